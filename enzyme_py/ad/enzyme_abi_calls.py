"""Enzyme's C ABI calls (`__enzyme_autodiff`, `__enzyme_fwddiff`, ...), as both lowerings read
and replace them: the markers, the activity and values of each parameter, and the C ABI shape
of the result (a scalar, a struct, a coerced vector, or an sret pointer).

Markers `enzyme_dup`, `enzyme_dupnoneed`, `enzyme_const`, `enzyme_out` arrive as loads of the
external globals of those names (what clang emits at any -O level) or as the globals' addresses;
what an unmarked parameter is, and how many values a marked one takes, is the mode's
(`read_parameters`).

Invariants: a lowered call is replaced and removed (an `invoke` becomes a branch to its normal
destination); the marker globals get definitions with distinct addresses, so the output links
with plain clang.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from enzyme_py.analysis.activities import MARKERS, Activity
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.printer import Slots
from enzyme_py.ir.values import (
    Argument,
    ConstantInt,
    Value,
    strip_constant_casts,
    zero,
)


@dataclass(frozen=True)
class CallPlan:
    """One Enzyme ABI call, read: what to differentiate, how, and with which values."""

    call: I.Call
    function: Function
    activities: tuple[Activity, ...]
    args: tuple[Value, ...]  # derivative arguments, before conversion to parameter types
    result_ptr: Value | None  # sret destination of the results, if the C ABI used one
    width: int = 1  # (forward mode) directions per sweep


def is_marker_function(name: str | None, marker: str) -> bool:
    """`__enzyme_autodiff`, `__enzyme_autodiff1`..., or a C++ declaration of it (a template
    or overload, whose mangled name is `_Z<len>__enzyme_autodiff...`)."""
    if not name:
        return False
    if name.startswith(marker):
        return True
    return name.startswith("_Z") and re.match(r"_Z(?:L)?\d+" + marker, name) is not None


def call_site(call: I.Call) -> str:
    """Where an Enzyme ABI call is, for messages (any of the `__enzyme_*` entry points)."""
    fn = call.function
    if fn is None or call.parent is None:
        return f"a call to {call.callee_name or '__enzyme_autodiff'}"
    return f"in @{fn.name}, block {Slots(fn).local(call.parent)}, the call to {call.callee_name}"


def marker_global(v: Value) -> str | None:
    """The name of the global a marker argument is (loaded from, or the address of; in GPU
    code through an address space cast: `extern __device__ int enzyme_dup`)."""
    if isinstance(v, I.Load):
        v = v.pointer
    v = strip_constant_casts(v)
    return v.name if isinstance(v, GlobalVariable) else None


def split_call(call: I.Call) -> tuple[Value | None, Function, list[Value]]:
    """An Enzyme ABI call's parts: the sret destination (if the C ABI used one), the function
    to differentiate, and the remaining arguments (markers and values)."""
    args = list(call.args)
    result_ptr = None
    if args and call.arg_attrs and any(a.startswith("sret(") for a in call.arg_attrs[0]):
        result_ptr = args.pop(0)
    if not args:
        raise DifferentiationError(f"{call_site(call)} has no function argument")
    target = strip_constant_casts(args.pop(0))
    if not isinstance(target, Function):
        raise DifferentiationError(f"{call_site(call)}: the first argument must be a function "
                                   f"known at compile time, not {target.ref()}")
    if target.is_declaration:
        raise DifferentiationError(f"{call_site(call)}: @{target.name} has no body in this "
                                   "module (it must be defined in the same file)")
    return result_ptr, target, args


def read_parameters(call: I.Call, target: Function, args: list[Value], *,
                    marker: Callable[[Value], str | None],
                    default: Callable[[Argument], Activity],
                    count: Callable[[Activity], int],
                    refuse: Callable[[Activity, Argument], str | None] = lambda act, p: None
                    ) -> tuple[list[Activity], list[Value]]:
    """The activity of each parameter of `target` and the values passed for it, read from
    the arguments of an Enzyme ABI call the way a mode passes them: an optional marker
    (`marker`; else `default(param)`), then `count(activity)` values. `refuse(act, param)`:
    the message of a marker the mode does not take, or None."""
    where = call_site(call)
    activities: list[Activity] = []
    values: list[Value] = []
    i = 0
    for param in target.args:
        if i >= len(args):
            raise DifferentiationError(
                f"{where}: too few arguments for @{target.name} (parameter {param.index} of "
                f"{len(target.args)} is missing)")
        act = marker(args[i])
        if act is not None:
            i += 1
        else:
            act = default(param)
        refused = refuse(act, param)
        if refused is not None:
            raise DifferentiationError(f"{where}: {refused}")
        need = count(act)
        if i + need > len(args):
            raise DifferentiationError(
                f"{where}: parameter {param.index} of @{target.name} is '{act}' and needs "
                f"{need} value(s), but the arguments ran out")
        if any(marker(a) for a in args[i:i + need]):
            raise DifferentiationError(
                f"{where}: a marker stands where a value for parameter {param.index} of "
                f"@{target.name} was expected")
        activities.append(act)
        values.extend(args[i:i + need])
        i += need
    if i != len(args):
        raise DifferentiationError(
            f"{where}: {len(args) - i} argument(s) left over after the "
            f"{len(target.args)} parameters of @{target.name}")
    return activities, values


def convert_value(b: Builder, v: Value, to: T.Type, what: str) -> Value:
    """C's default argument promotions undone (double->float, int widths)."""
    if v.type == to:
        return v
    if v.type.is_float and to.is_float:
        fb = T.FLOAT_BITS
        op = "fptrunc" if fb[str(v.type)] > fb[str(to)] else "fpext"
        return b.cast(op, v, to)
    if isinstance(v.type, T.IntType) and isinstance(to, T.IntType):
        return b.cast("trunc" if v.type.bits > to.bits else "sext", v, to)
    raise DifferentiationError(f"{what}: cannot pass {v.type} as {to}")


def replace_marker_call(call: I.Call, replacement: Value | None) -> None:
    """Uses of a lowered `__enzyme_*` call take `replacement`; the call goes."""
    fn = call.function
    assert fn is not None and call.parent is not None
    if replacement is not None:
        fn.replace_all_uses(call, replacement)
    remove_marker_call(call)


def remove_marker_call(call: I.Call) -> None:
    """Remove a lowered `__enzyme_*` call. C++ with exceptions calls it with `invoke`: the
    derivative call that replaces it does not unwind, so the block branches to the normal
    destination, and the landing pad loses this block as a predecessor."""
    block = call.parent
    assert block is not None
    block.remove(call)
    if isinstance(call, I.Invoke):
        for phi in call.unwind.phis():
            keep = [(v, b) for v, b in phi.incoming() if b is not block]
            phi.operands = [v for v, _ in keep]
            phi.incoming_blocks = [b for _, b in keep]
        Builder().position_at_end(block).br(call.normal)


def scalar_leaves(t: T.Type) -> list[tuple[tuple[int, ...], T.Type]]:
    """Scalar positions of an aggregate/vector return type, in memory order."""
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        out = []
        for k, e in enumerate(T.struct_elements(t)):
            out += [((k, *p), s) for p, s in scalar_leaves(e)]
        return out
    if isinstance(t, T.ArrayType):
        return [((k, *p), s) for k in range(t.count) for p, s in scalar_leaves(t.element)]
    if isinstance(t, T.VectorType):
        return [((-1 - k,), t.element) for k in range(t.count)]
    return [((), t)]


def pack_result(b: Builder, adjoints: list[Value], t: T.Type, call: I.Call,
                what: str = "'out' argument(s)") -> Value:
    """The values an Enzyme ABI call returns (`adjoints`, `what` they are, for messages),
    packed into its declared return type `t`, one value per scalar leaf."""
    leaves = scalar_leaves(t)
    if len(leaves) != len(adjoints):
        raise DifferentiationError(
            f"{call_site(call)}: the declared return type {t} has {len(leaves)} value(s) but "
            f"the function has {len(adjoints)} {what}")
    if len(leaves) == 1 and leaves[0][0] == ():
        return convert_value(b, adjoints[0], t, call_site(call))
    agg: Value = zero(t)
    for (path, lt), v in zip(leaves, adjoints, strict=True):
        v = convert_value(b, v, lt, call_site(call))
        agg = _insert(b, agg, path, v)
    return agg


def deliver_result(b: Builder, call: I.Call, result_ptr: Value | None, values: list[Value],
                   what: str = "'out' argument(s)") -> Value | None:
    """Hand `values` to the caller of an Enzyme ABI call as its C ABI shape asks: stored
    through the sret pointer, or packed into the declared result (None: nothing to replace
    the call's value with, because it returns void or its result is unused)."""
    if result_ptr is not None:
        b.store(pack_result(b, values, sret_type(call), call, what), result_ptr)
        return None
    if call.type.is_void or not has_uses(call):
        return None  # the declared result is ignored: nothing to match it against
    return pack_result(b, values, call.type, call, what)


def has_uses(call: I.Call) -> bool:
    fn = call.function
    return fn is not None and any(call in inst.operands for inst in fn.instructions())


def _insert(b: Builder, agg: Value, path: tuple[int, ...], v: Value) -> Value:
    if not path:
        return v
    head = path[0]
    if head < 0:  # vector lane
        return b.insertelement(agg, v, ConstantInt(T.I32, -1 - head))
    inner = b.extractvalue(agg, [head])
    return b.insertvalue(agg, _insert(b, inner, path[1:], v), [head])


def sret_type(call: I.Call) -> T.Type:
    """The type of the result an Enzyme ABI call returns through its sret pointer."""
    sret = next((a for a in call.arg_attrs[0] if a.startswith("sret(")), "")
    module = call.function.parent if call.function else None
    return _struct_named(module, sret[len("sret("):-1])


def _struct_named(module: Module | None, text: str) -> T.Type:
    if module is not None and text.startswith("%"):
        t = module.types.get(text[1:].strip('"'))
        if t is not None:
            return t
    from enzyme_py.ir import parse

    probe = parse(f"@x = global {text} zeroinitializer\n")
    return probe.get_global("x").value_type


# split mode's markers (`enzyme_abi_split.py`): they take no parameter's place
SPLIT_MARKERS = ("enzyme_tape", "enzyme_allocated", "enzyme_nofree")


def define_markers(module: Module) -> None:
    """Give the marker globals definitions (distinct addresses), so the output links."""
    for k, name in enumerate([*MARKERS, *SPLIT_MARKERS]):
        g = module.symbols.get(name)
        if isinstance(g, GlobalVariable) and g.initializer is None:
            g.prefix = [w for w in g.prefix if w not in ("external", "extern_weak")]
            g.initializer = ConstantInt(g.value_type if g.value_type.is_int else T.I32, k)
            if not g.value_type.is_int:
                g.value_type = T.I32


# Enzyme entry points this tool does not lower yet, and what to use instead
_NOT_LOWERED: dict[str, str] = {}


def check_all_lowered(module: Module) -> None:
    """Raise for any call to an `__enzyme_*` entry point still in `module` after lowering:
    left in place it would fail to link, or be called as an undefined function."""
    for fn in module.functions:
        for inst in fn.instructions():
            if not isinstance(inst, I.Call):
                continue
            name = inst.callee_name or ""
            if "__enzyme_" not in name:
                continue
            entry = re.search(r"__enzyme_[a-z]+", name)
            what = entry.group(0) if entry else name
            hint = _NOT_LOWERED.get(what, "it is not one of the entry points enzyme-py "
                                          "lowers (__enzyme_autodiff, __enzyme_fwddiff, "
                                          "__enzyme_augmentfwd, __enzyme_reverse, "
                                          "__enzyme_augmentsize)")
            raise DifferentiationError(f"{call_site(inst)}: {what}: {hint}")
