"""Array assembly: np.concatenate, np.stack, np.hstack, np.vstack, np.column_stack (and the
stacking of np.array([a, b]) of arrays, see `constructors`).

Every assembly is materialized into a fresh C-contiguous buffer, part by part (each part a
lazy, so an element-wise part is computed straight into its place).

Invariants: extents and dtypes follow NumPy (the parts keep one rank; the result's element
type is the promotion of theirs, or `dtype=`); `axis` is a compile-time integer constant in
range; mismatched extents in an assembly are a recorded `ValueError`; 1-D parts of
np.vstack / np.column_stack get a unit axis as NumPy gives them.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import types as AT
from enzyme_py.frontend.arrays.call_args import arg_node, call_error, check_positional, dtype_of
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.ftypes import Array, FType, Scalar, Tuple
from enzyme_py.frontend.values import AVal, SVal, add_i64, convert, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

_ZERO = ConstantInt(T.I64, 0)
_ONE = ConstantInt(T.I64, 1)


def _parts_type(call: TypeCall, name: str) -> list[Array] | None:
    if not call.args:
        raise call.error(f"{name} needs a list or tuple of arrays", f"{name}([a, b])")
    t = call.args[0]
    if t is None:
        return None
    if not isinstance(t, Tuple):
        raise call.error(f"{name} takes a list or tuple literal of arrays, got {t}",
                         f"{name}([a, b]), {name}((a, b, c))", call.arg_nodes[0])
    if not t.items:
        raise call.error(f"{name} needs at least one array")
    for k, it in enumerate(t.items):
        if it is not None and not isinstance(it, Array):
            e = call.arg_nodes[0]
            elts = e.elts if isinstance(e, ast.List | ast.Tuple) else []
            raise call.error(f"{name} joins arrays, item {k} is {it}",
                             "np.array([...]) for numbers", elts[k] if elts else e)
    return list(t.items)  # type: ignore[arg-type]


def _parts(call: EmitCall) -> list[L.Lazy]:
    """The arrays to join (a list of compiled items: see `registry.EmitCall`)."""
    v = call.args[0]
    if not isinstance(v, list):
        raise call.c.src.error(call.arg_nodes[0], "a list or tuple of arrays is needed here",
                               "a list or tuple literal: np.stack([a, b])")
    return [L.as_lazy(call.c, x) for x in v]


def _axis(call: TypeCall | EmitCall, ndim: int, default: int = 0) -> int:
    e = arg_node(call, 1, "axis")
    a = default if e is None else call.constant(e)
    if a is None:
        raise call_error(call, "axis=None (joining flattened arrays) is not supported",
                         "np.concatenate([a.ravel(), b.ravel()])", e)
    if not isinstance(a, int) or isinstance(a, bool):
        raise call_error(call, "axis must be an integer constant", "axis=0, axis=-1", e)
    if not -ndim <= a < ndim:
        raise call_error(call, f"axis {a} is out of bounds for an array of dimension "
                         f"{ndim}", node=e)
    return a % ndim


def _same_rank(call: TypeCall, parts: list[Array], name: str) -> int:
    ranks = {p.ndim for p in parts}
    if len(ranks) != 1:
        raise call.error(f"{name}: all the input arrays must have the same number of "
                         f"dimensions, got {sorted(ranks)}")
    return ranks.pop()


def _join_type(name: str, new_axis: bool) -> Any:
    def rule(call: TypeCall) -> FType | None:
        call.only("axis", "dtype")
        check_positional(call, 2, name)
        first = call.args[0] if call.args else None
        if new_axis and isinstance(first, Array):  # np.stack(array): its items are its rows
            if _axis(call, first.ndim) != 0:
                raise call.error(f"{name} of one array along axis != 0 is not supported",
                                 "np.stack([...]) of a list, or np.moveaxis")
            elem = dtype_of(call, first.elem)
            return None if elem is None else Array(elem, first.ndim)
        items = call.args[0] if call.args else None
        if new_axis and isinstance(items, Tuple) and items.items and all(
                isinstance(t, Scalar) for t in items.items):  # np.stack of numbers: a vector
            _axis(call, 1)
            elem = dtype_of(call, AT.promote(list(items.items)))  # type: ignore[arg-type]
            return None if elem is None else Array(elem, 1)
        parts = _parts_type(call, name)
        if parts is None or any(p is None for p in parts):
            return None
        ndim = _same_rank(call, parts, name) + (1 if new_axis else 0)
        _axis(call, ndim)
        elem = dtype_of(call, AT.promote(parts))  # type: ignore[arg-type]
        return None if elem is None else Array(elem, ndim)

    return rule


def _check_extents(c: Any, dims: list[Value], first: list[Value], skip: int | None,
                   node: ast.AST) -> None:
    for k, (d, f) in enumerate(zip(dims, first, strict=True)):
        if k != skip and not L.same_extent(d, f):
            c.check(c.b.icmp("eq", d, f), node, "shape mismatch", d, f, k)


def _at(c: Any, out: AVal, offset: Value) -> Value:
    if isinstance(offset, ConstantInt) and offset.value == 0:
        return out.ptr
    return c.b.getelementptr(out.type.elem.ir, out.ptr, [offset])


def concatenate(c: Any, parts: list[L.Lazy], axis: int, elem: Scalar, node: ast.AST) -> AVal:
    """The parts joined along `axis` in a fresh buffer (other extents checked equal)."""
    first = parts[0].dims
    for z in parts[1:]:
        _check_extents(c, z.dims, first, axis, node)
    total: Value = _ZERO
    for z in parts:
        total = add_i64(c.b, total, z.dims[axis])
    dims = [total if k == axis else d for k, d in enumerate(first)]
    out = L.fresh(c, Array(elem, len(dims)), dims, node)
    offset: Value = _ZERO
    for z in parts:
        sub = [z.dims[axis] if k == axis else d for k, d in enumerate(dims)]
        ptr = _at(c, out, mul_i64(c.b, offset, out.strides[axis]))
        L.store_elements(c, AVal(out.type, ptr, sub, list(out.strides), False, out.root,
                                 None), z)
        offset = add_i64(c.b, offset, z.dims[axis])
    return out


def stack(c: Any, parts: list[L.Lazy], axis: int, elem: Scalar, node: ast.AST) -> AVal:
    """The parts (of one shape, checked) stacked along a new axis `axis`."""
    first = parts[0].dims
    for z in parts[1:]:
        _check_extents(c, z.dims, first, None, node)
    dims = [*first[:axis], ConstantInt(T.I64, len(parts)), *first[axis:]]
    out = L.fresh(c, Array(elem, len(dims)), dims, node)
    strides = out.strides[:axis] + out.strides[axis + 1:]
    for k, z in enumerate(parts):
        ptr = _at(c, out, mul_i64(c.b, ConstantInt(T.I64, k), out.strides[axis]))
        L.store_elements(c, AVal(Array(elem, len(first)), ptr, list(first), strides, False,
                                 out.root, None), z)
    return out


@array_function(np.concatenate, type_rule=_join_type("np.concatenate", False), lists=True)
def _concatenate(call: EmitCall) -> Any:
    assert isinstance(call.type, Array)
    c = call.c
    return concatenate(c, _parts(call), _axis(call, call.type.ndim), call.type.elem,
                       call.node)


@array_function(np.stack, type_rule=_join_type("np.stack", True), lists=True)
def _stack_call(call: EmitCall) -> Any:
    assert isinstance(call.type, Array)
    c = call.c
    if not isinstance(call.args[0], list):  # one array (a comprehension of arrays): a copy
        return L.copy(c, L.converted(c, L.as_lazy(c, call.args[0]), call.type.elem), call.node)
    if all(isinstance(v, SVal) for v in call.args[0]):  # numbers: np.array([...])'s vector
        return _vector_of(c, call.args[0], call.type.elem, call.node)
    return stack(c, _parts(call), _axis(call, call.type.ndim), call.type.elem, call.node)


def _vector_of(c: Any, items: list[SVal], elem: Scalar, node: ast.AST) -> AVal:
    out = L.fresh(c, Array(elem, 1), [ConstantInt(T.I64, len(items))], node)
    for k, v in enumerate(items):
        c.b.store(convert(c.b, v, elem).v, _at(c, out, ConstantInt(T.I64, k)))
    return out


def _unit_axis(z: L.Lazy, at: int) -> L.Lazy:
    """`z` with a new axis of extent 1 at position `at` (np.atleast_2d and friends)."""
    dims = [*z.dims[:at], _ONE, *z.dims[at:]]
    return L.Lazy(Array(z.type.elem, len(dims)), dims,
                  lambda idx: z.element(idx[:at] + idx[at + 1:]), z.reads)


# (name, rank of the result for parts of rank r, axis joined, where 1-D parts get a unit axis)
_SHORTHANDS = {np.hstack: ("np.hstack", lambda r: r, lambda r: 0 if r == 1 else 1, None),
               np.vstack: ("np.vstack", lambda r: max(r, 2), lambda r: 0, 0),
               np.column_stack: ("np.column_stack", lambda r: 2, lambda r: 1, 1)}


def _shorthand_type(fn: object) -> Any:
    name, rank_of, _, _ = _SHORTHANDS[fn]

    def rule(call: TypeCall) -> FType | None:
        call.only("dtype")
        check_positional(call, 1, name)
        parts = _parts_type(call, name)
        if parts is None or any(p is None for p in parts):
            return None
        ranks = [max(p.ndim, 2) if fn is not np.hstack else p.ndim for p in parts]
        if len(set(ranks)) != 1 or fn is np.column_stack and ranks[0] != 2:
            raise call.error(f"{name} of arrays of ranks {[p.ndim for p in parts]} is not "
                             "supported", "arrays of one rank (1-D or 2-D for "
                             "np.column_stack)")
        elem = dtype_of(call, AT.promote(parts))  # type: ignore[arg-type]
        return None if elem is None else Array(elem, rank_of(ranks[0]))

    return rule


def _shorthand_emitter(fn: object) -> Any:
    _, _, axis_of, unit_at = _SHORTHANDS[fn]

    def emit(call: EmitCall) -> Any:
        assert isinstance(call.type, Array)
        c = call.c
        parts = _parts(call)
        rank = parts[0].type.ndim
        if unit_at is not None:
            parts = [_unit_axis(z, unit_at) if z.type.ndim == 1 else z for z in parts]
        return concatenate(c, parts, axis_of(rank), call.type.elem, call.node)

    return emit


for _short in _SHORTHANDS:
    array_function(_short, type_rule=_shorthand_type(_short), lists=True)(
        _shorthand_emitter(_short))
