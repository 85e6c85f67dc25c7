"""One array's elements repeated: np.tile and np.repeat, as lazy reads (no copy).

`np.tile(a, reps)` reads `a[..., i mod n, ...]` at result index i of a tiled axis of extent
`reps * n`; `np.repeat(a, r, axis)` reads `a[..., i // r, ...]` at result index i of an axis
of extent `n * r` (axis=None: the row-major flattening of `a`, as NumPy's).

Invariants: NumPy's rank rules for np.tile (`a` promoted to len(reps) axes by prepending
extents of 1, reps prepended with 1s when shorter; a prepended axis reads nothing but repeats
the whole array); a tuple of reps and every axis are compile-time constants (an int reps or
repeats may be known only at run time: a negative one is the recorded `ValueError` NumPy
raises); both lazies' reads are marked `moved` (several result indexes load one element, so
a store into the memory they read computes the right side whole first); the gradient is the
sum over the copies, which reverse mode gets from the repeated loads; no element outside `a`
is ever loaded (an index is reduced only where the result has an element, and a divisor
that is 0 there is replaced by 1 before the loops).
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays.call_args import arg_node, arg_type, arg_value, call_error
from enzyme_py.frontend.arrays.masks import unravel
from enzyme_py.frontend.arrays.rearrange import moved_reads
from enzyme_py.frontend.arrays.reductions import normalize_axes
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.frontend.ftypes import I64, Array, FType, Scalar, Tuple
from enzyme_py.frontend.values import convert, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

_ZERO = ConstantInt(T.I64, 0)
_ONE = ConstantInt(T.I64, 1)


def _nonzero(c: Any, d: Value) -> Value:
    """`d`, or 1 where `d` is 0 (a divisor used only where the result has elements)."""
    if isinstance(d, ConstantInt):
        return d if d.value else _ONE
    return c.b.select(c.b.icmp("eq", d, _ZERO), _ONE, d)


def _count_arg(c: Any, v: Any, node: ast.AST, what: str) -> Value:
    """A run-time integer count as i64, checked non-negative (NumPy's ValueError)."""
    n = convert(c.b, v, I64).v
    if isinstance(n, ConstantInt):
        if n.value < 0:
            raise c.src.error(node, f"{what} must not be negative, got {n.value}")
        return n
    c.check(c.b.icmp("sge", n, _ZERO), node, "array size", n, n, 0)
    return n


def _array_of(call: TypeCall, name: str, usage: str) -> Array | None:
    t = call.args[0] if call.args else None
    if not call.arg_nodes:
        raise call.error(f"{name} needs an array", usage)
    if t is None:
        return None
    if not isinstance(t, Array):
        raise call.error(f"{name} of {t} is not supported, it needs an array",
                         f"{usage}; np.full(n, x) for a number repeated")
    return t


def _int_type(call: TypeCall, t: FType | None, node: ast.expr, name: str, usage: str
              ) -> None:
    if t is None:
        return
    if isinstance(t, Array | Tuple):
        raise call.error(f"{name} with an array or tuple of counts is not supported here",
                         usage, node)
    if not (isinstance(t, Scalar) and t.is_int):
        raise call.error(f"{name}: the count must be an integer, got {t}",
                         f"{usage}; int(n) for a float n", node)


# --- np.tile ----------------------------------------------------------------------------------

_TILE_USAGE = "np.tile(a, n) with an integer n, np.tile(a, (2, 3)) with constant integers"


def _constant_reps(call: TypeCall | EmitCall, node: ast.expr) -> tuple[int, ...] | None:
    """The reps a tuple or list literal (or a module constant tuple) gives; None: one int."""
    if isinstance(node, ast.Tuple | ast.List):
        value = call.constant(node)
    else:
        try:
            value = call.constant(node)
        except FrontendError:  # a run-time integer: the type rule checks its type
            return None
        if not isinstance(value, tuple):
            return None
    for r in value:
        if not isinstance(r, int) or isinstance(r, bool):
            raise call_error(call, f"np.tile: reps must be integers, got {value!r}",
                             _TILE_USAGE, node)
        if r < 0:
            raise call_error(call, f"np.tile: reps must not be negative, got {value!r}",
                             _TILE_USAGE, node)
    return value


def _tile_type(call: TypeCall) -> FType | None:
    call.only("reps")
    if len(call.arg_nodes) > 2:
        raise call.error("np.tile takes an array and the reps", _TILE_USAGE)
    t = _array_of(call, "np.tile", _TILE_USAGE)
    node = arg_node(call, 1, "reps")
    if node is None:
        raise call.error("np.tile needs the reps", _TILE_USAGE)
    reps = _constant_reps(call, node)
    if reps is None:
        _int_type(call, arg_type(call, 1, "reps"), node, "np.tile", _TILE_USAGE)
    if t is None:
        return None
    return Array(t.elem, max(t.ndim, 1 if reps is None else len(reps)))


@array_function(np.tile, type_rule=_tile_type)
def _tile(call: EmitCall) -> Any:
    """np.tile(a, reps): result[i0, ..., ik] = a[i0 mod n0, ..., ik mod nk] (promoted)."""
    c = call.c
    src = L.as_lazy(c, call.args[0], call.node)
    node = arg_node(call, 1, "reps")
    assert node is not None
    consts = _constant_reps(call, node)
    if consts is None:
        reps: list[Value] = [_count_arg(c, arg_value(call, 1, "reps"), node, "np.tile: reps")]
    else:
        reps = [ConstantInt(T.I64, r) for r in consts]
    rank = max(src.type.ndim, len(reps))
    reps = [_ONE] * (rank - len(reps)) + reps
    return tiled(c, src, reps)


def tiled(c: Any, src: L.Lazy, reps: list[Value]) -> L.Lazy:
    """`src` tiled `reps` times per axis (len(reps) >= src's rank; leading axes are new)."""
    off = len(reps) - src.type.ndim
    dims = [r if k < off else mul_i64(c.b, r, src.dims[k - off]) for k, r in enumerate(reps)]
    # per axis of src: None (the index as it is: one copy) or the extent to reduce by
    mods = [None if isinstance(r, ConstantInt) and r.value == 1 else _nonzero(c, d)
            for r, d in zip(reps[off:], src.dims, strict=True)]
    return _tiled_by(c, src, off, dims, mods)


def _tiled_by(c: Any, src: L.Lazy, off: int, dims: list[Value],
              mods: list[Value | None]) -> L.Lazy:
    def element(idx: list[Value]) -> Value:
        inner = [i if m is None else c.b.binop("urem", i, m)
                 for i, m in zip(idx[off:], mods, strict=True)]
        return src.element(inner)

    out = L.Lazy(Array(src.type.elem, len(dims)), list(dims), element, moved_reads(src.reads))
    return L.with_fast(out, src, lambda f: _tiled_by(c, f, off, dims, mods))


# --- np.repeat --------------------------------------------------------------------------------

_REPEAT_USAGE = ("np.repeat(a, n) (flattened), np.repeat(a, n, axis=k) with an integer n "
                 "and a constant k")


def _repeat_type(call: TypeCall) -> FType | None:
    call.only("repeats", "axis")
    if len(call.arg_nodes) > 3:
        raise call.error("np.repeat takes an array, the repeats and the axis", _REPEAT_USAGE)
    t = _array_of(call, "np.repeat", _REPEAT_USAGE)
    node = arg_node(call, 1, "repeats")
    if node is None:
        raise call.error("np.repeat needs the repeats", _REPEAT_USAGE)
    if isinstance(node, ast.Tuple | ast.List):
        raise call.error("np.repeat with a count per element is not supported",
                         f"{_REPEAT_USAGE}; np.concatenate of the parts", node)
    _int_type(call, arg_type(call, 1, "repeats"), node, "np.repeat", _REPEAT_USAGE)
    if t is None:
        return None
    axis = _repeat_axis(call, t.ndim)
    return Array(t.elem, 1 if axis is None else t.ndim)


def _repeat_axis(call: TypeCall | EmitCall, ndim: int) -> int | None:
    """The repeated axis, normalized; None: the array flattened first (NumPy's default)."""
    node = arg_node(call, 2, "axis")
    if node is None or call.constant(node) is None:
        return None
    if isinstance(call.constant(node), tuple):
        raise call_error(call, "np.repeat along a tuple of axes is not supported",
                         _REPEAT_USAGE, node)
    return normalize_axes(call, ndim, node, "np.repeat")[0]


@array_function(np.repeat, type_rule=_repeat_type, method="repeat")
def _repeat(call: EmitCall) -> Any:
    """np.repeat(a, r, axis): result[..., i, ...] = a[..., i // r, ...]."""
    c = call.c
    src = L.as_lazy(c, call.args[0], call.node)
    node = arg_node(call, 1, "repeats")
    assert node is not None
    r = _count_arg(c, arg_value(call, 1, "repeats"), node, "np.repeat: repeats")
    axis = _repeat_axis(call, src.type.ndim)
    if axis is None:
        return repeated_flat(c, src, r)
    return repeated(c, src, axis, r)


def repeated(c: Any, src: L.Lazy, axis: int, r: Value) -> L.Lazy:
    """Each element of `src` along `axis` `r` (>= 0) times in a row."""
    dims = list(src.dims)
    dims[axis] = mul_i64(c.b, dims[axis], r)
    return _repeated_by(c, src, axis, dims, r, _nonzero(c, r))


def _repeated_by(c: Any, src: L.Lazy, axis: int, dims: list[Value], r: Value,
                 div: Value) -> L.Lazy:
    def element(idx: list[Value]) -> Value:
        inner = list(idx)
        if not (isinstance(r, ConstantInt) and r.value == 1):
            inner[axis] = c.b.binop("udiv", idx[axis], div)
        return src.element(inner)

    out = L.Lazy(src.type, list(dims), element, moved_reads(src.reads))
    return L.with_fast(out, src, lambda f: _repeated_by(c, f, axis, dims, r, div))


def repeated_flat(c: Any, src: L.Lazy, r: Value) -> L.Lazy:
    """NumPy's np.repeat(a, r): a flattened in row-major order, each element r times; the
    element at flat position f is a's at row-major position f // r."""
    if src.type.ndim == 1:
        return repeated(c, src, 0, r)
    total = L.count_of(c, src.dims)
    return _repeated_flat_by(c, src, [mul_i64(c.b, total, r)], _nonzero(c, r))


def _repeated_flat_by(c: Any, src: L.Lazy, dims: list[Value], div: Value) -> L.Lazy:
    def element(idx: list[Value]) -> Value:
        return src.element(unravel(c, c.b.binop("udiv", idx[0], div), list(src.dims)))

    out = L.Lazy(Array(src.type.elem, 1), list(dims), element, moved_reads(src.reads))
    return L.with_fast(out, src, lambda f: _repeated_flat_by(c, f, dims, div))

