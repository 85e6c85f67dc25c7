"""Enzyme-ABI plumbing shared by the custom-rule wrappers (`custom_ir`, `custom_array_ir`):
their signatures (a shadow after every array pointer, a tangent after floats when asked),
zeroed scratch memory standing for a missing shadow, and the registration globals.

Invariant: nothing here knows a rule's meaning; the wrappers decide what they call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzyme_py.ad.registrations import PYTHON_MARK
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.frontend.ftypes import Array, FType, NoneType, Scalar, Tuple
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, GlobalVariable
from enzyme_py.ir.values import ConstantAggregate, ConstantInt, Value, zero

if TYPE_CHECKING:
    from enzyme_py.frontend.session import CompileSession


# --- signatures ---------------------------------------------------------------------------------


def split_params(fn: Function, arg_types: tuple[FType, ...], float_tangents: bool
                  ) -> tuple[list[list[Value]], list[Value | None]]:
    """The wrapper's parameters by argument of `f`: the primal IR values (an array's pointer
    and extents), and the shadow or tangent that follows (None for integers, and for floats
    unless `float_tangents`)."""
    primal: list[list[Value]] = []
    extra: list[Value | None] = []
    args = iter(fn.args)
    for t in arg_types:
        if isinstance(t, Array):
            ptr, shadow = next(args), next(args)
            primal.append([ptr, *(next(args) for _ in range(t.ndim))])
            extra.append(shadow)
        else:
            assert isinstance(t, Scalar)
            primal.append([next(args)])
            extra.append(next(args) if t.is_float and float_tangents else None)
    return primal, extra


def wrapper_params(arg_types: tuple[FType, ...], with_float_tangents: bool) -> list[T.Type]:
    out: list[T.Type] = []
    for t in arg_types:
        if isinstance(t, Array):
            out.extend([T.PTR, T.PTR, *([T.I64] * t.ndim)])
        else:
            assert isinstance(t, Scalar)
            out.append(t.ir)
            if t.is_float and with_float_tangents:
                out.append(t.ir)
    return out


def new_function(session: CompileSession, name: str, ftype: T.FunctionType) -> Function:
    module = session.module
    fn = Function(module.unique_name(name), ftype)
    module.add_function(fn)
    return fn


def register(session: CompileSession, prefix: str, f: Function,
              fns: list[Value]) -> None:
    t = T.ArrayType(len(fns), T.PTR)
    name = session.module.unique_name(f"{prefix}{PYTHON_MARK}{f.name}")
    session.module.add_global(GlobalVariable(name, t, ConstantAggregate(t, tuple(fns))))


def check_result(rule_name: str, got: FType, want: FType, what: str) -> None:
    if got != want:
        raise FrontendError(f"{rule_name} must return {what} ({want}); it returns {got}")


# --- scratch shadows for missing ones -----------------------------------------------------------


def nonnull(b: Builder, fn: Function, ptr: Value, t: Array, dims: list[Value],
             to_free: list[Value]) -> Value:
    """`ptr`, or zeroed scratch memory of the array's size when `ptr` is null (recorded in
    `to_free`; `free(null)` is a no-op, so the wrapper frees a select of the two)."""
    module = fn.parent
    assert module is not None
    calloc = module.declare_function("calloc", T.FunctionType(T.PTR, (T.I64, T.I64)))
    count: Value = ConstantInt(T.I64, 1)
    for d in dims:
        count = b.mul(count, d)
    is_null = b.icmp("eq", ptr, zero(T.PTR))
    here = b.block
    assert here is not None
    alloc = fn.append_block("scratch")
    join = fn.append_block("have_shadow")
    b.condbr(is_null, alloc, join)
    b.position_at_end(alloc)
    size = ConstantInt(T.I64, t.elem.dtype.itemsize)
    fresh = b.call(calloc, [count, size], name="scratch")
    b.br(join)
    b.position_at_end(join)
    eff = b.phi(T.PTR, [(ptr, here), (fresh, alloc)])
    to_free.append(b.select(is_null, eff, zero(T.PTR)))
    return eff


def free_all(b: Builder, fn: Function, to_free: list[Value]) -> None:
    if not to_free:
        return
    module = fn.parent
    assert module is not None
    free = module.declare_function("free", T.FunctionType(T.VOID, (T.PTR,)))
    for p in to_free:
        b.call(free, [p])


def tangent_types(arg_types: tuple[FType, ...]) -> tuple[FType, ...]:
    """The types of a forward rule's tangents: one per float and array argument."""
    return tuple(t for t in arg_types if isinstance(t, Array) or
                 isinstance(t, Scalar) and t.is_float)


def tangent_args(b: Builder, fn: Function, arg_types: tuple[FType, ...],
                 primal: list[list[Value]], extras: list[Value | None],
                 to_free: list[Value] | None) -> list[Value]:
    """A forward rule's tangent arguments from a wrapper's parameters (`split_params` with
    float tangents): each array's tangent and extents, each float's tangent. With `to_free`,
    a null tangent array becomes zeroed scratch memory (recorded there)."""
    out: list[Value] = []
    for t, group, extra in zip(arg_types, primal, extras, strict=True):
        if isinstance(t, Array):
            assert extra is not None
            eff = nonnull(b, fn, extra, t, group[1:], to_free) if to_free is not None else \
                extra
            out.extend([eff, *group[1:]])
        elif extra is not None:
            out.append(extra)
    return out


def float_cotangents(arg_types: tuple[FType, ...]) -> tuple[FType, T.Type]:
    """What a `bwd` rule returns for `f`'s float arguments (None for none, a float for one,
    a tuple for several), and the IR type a reverse wrapper returns them as."""
    floats = [t for t in arg_types if isinstance(t, Scalar) and t.is_float]
    if not floats:
        return NoneType(), T.VOID
    if len(floats) == 1:
        return floats[0], floats[0].ir
    return Tuple(tuple(floats)), T.StructType(tuple(t.ir for t in floats))
