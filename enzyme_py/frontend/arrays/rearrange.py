"""One array's elements rearranged: np.flip (a view), np.roll (a lazy permutation) and
np.diag (a diagonal as a view, or a vector spread on one).

`np.flip(a, axis)` views the same memory from the other end of each flipped axis (its stride
negated, the pointer moved to the last element), `np.roll(a, shift, axis)` reads
`a[..., (i - shift) mod n, ...]` at result index i (the shift is a run-time integer of any
sign and size, reduced once before the loops), and `np.diag` of a matrix views its k-th
diagonal with stride `row stride + column stride`; `np.diag` of a vector is a fresh matrix.

Invariants: axes and `k` are compile-time constants, checked against the rank as NumPy
checks them; a rolled lazy's reads are marked `moved` (they load elements for other result
indexes), so a store into the memory it reads computes the right side whole first; no
element outside an array is ever loaded (a rolled index is in range for every shift, and a
diagonal of extent 0 is never read).
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import loops
from enzyme_py.frontend.arrays.call_args import arg_node, arg_value, call_error
from enzyme_py.frontend.arrays.masks import unravel
from enzyme_py.frontend.arrays.reductions import normalize_axes
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.ftypes import I64, Array, FType, Scalar, Tuple
from enzyme_py.frontend.values import AVal, SVal, add_i64, c_strides, convert, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

_ZERO = ConstantInt(T.I64, 0)
_ONE = ConstantInt(T.I64, 1)
_MINUS_ONE = ConstantInt(T.I64, -1)


def _array_arg(call: TypeCall, name: str, most: int, usage: str) -> Array | None:
    """The array argument of `name` (its first), checked; None while not typed yet."""
    if not 1 <= len(call.arg_nodes) <= most:
        raise call.error(f"{name} takes an array and at most {most - 1} more arguments",
                         usage)
    t = call.args[0]
    if t is None:
        return None
    if not isinstance(t, Array):
        raise call.error(f"{name} needs an array, got {t}", usage)
    return t


# --- np.flip ----------------------------------------------------------------------------------


def _flip_axes(call: TypeCall | EmitCall, ndim: int) -> tuple[int, ...]:
    """The flipped axes, normalized and sorted (every axis for axis=None or none given)."""
    return normalize_axes(call, ndim, arg_node(call, 1, "axis"), "np.flip")


def _flip_type(call: TypeCall) -> FType | None:
    call.only("axis")
    t = _array_arg(call, "np.flip", 2, "np.flip(a), np.flip(a, 0), np.flip(a, axis=(0, 1))")
    if t is None:
        return None
    _flip_axes(call, t.ndim)
    return t.value


@array_function(np.flip, type_rule=_flip_type, view=True)
def _flip(call: EmitCall) -> Any:
    """np.flip(a, axis): a view reading each flipped axis backwards (no copy)."""
    c = call.c
    v = c.view(call.args[0], call.node)
    return flipped(c, v, _flip_axes(call, v.type.ndim))


def flipped(c: Any, v: AVal, axes: tuple[int, ...]) -> AVal:
    """`v` with `axes` reversed: element i of a flipped axis of extent n is element n - 1 - i
    (an axis of extent 0 moves the pointer before the data, where nothing is read)."""
    if not axes:
        return v
    b = c.b
    offset: Value = _ZERO
    strides = list(v.strides)
    for k in axes:
        offset = add_i64(b, offset, mul_i64(b, add_i64(b, v.dims[k], _MINUS_ONE), strides[k]))
        strides[k] = mul_i64(b, strides[k], _MINUS_ONE)
    ptr = v.ptr if offset is _ZERO else b.getelementptr(v.type.elem.ir, v.ptr, [offset])
    return AVal(v.type.value, ptr, list(v.dims), strides, False, v.root, None)


# --- np.roll ----------------------------------------------------------------------------------

_ROLL_USAGE = ("np.roll(a, shift), np.roll(a, shift, axis=k); for several axes, one call "
               "per axis: np.roll(np.roll(a, s0, axis=0), s1, axis=1)")


def _roll_type(call: TypeCall) -> FType | None:
    call.only("shift", "axis")
    t = _array_arg(call, "np.roll", 3, _ROLL_USAGE)
    shift_node = arg_node(call, 1, "shift")
    if shift_node is None:
        raise call.error("np.roll needs the shift", _ROLL_USAGE)
    shift = call.args[1] if len(call.args) > 1 else call.typeof(shift_node)
    if isinstance(shift, Tuple) or isinstance(shift_node, ast.Tuple | ast.List):
        raise call.error("np.roll with a tuple of shifts is not supported", _ROLL_USAGE,
                         shift_node)
    if shift is not None and not (isinstance(shift, Scalar) and shift.is_int):
        raise call.error(f"np.roll: the shift must be an integer, got {shift}", _ROLL_USAGE,
                         shift_node)
    if t is None:
        return None
    axis_node = arg_node(call, 2, "axis")
    if axis_node is not None and isinstance(call.constant(axis_node), tuple):
        raise call.error("np.roll along a tuple of axes is not supported", _ROLL_USAGE,
                         axis_node)
    _roll_axis(call, t.ndim)
    return t.value


def _roll_axis(call: TypeCall | EmitCall, ndim: int) -> int | None:
    """The rolled axis, normalized; None: the array rolled flattened (NumPy's axis=None)."""
    node = arg_node(call, 2, "axis")
    if node is None or call.constant(node) is None:
        return None
    return normalize_axes(call, ndim, node, "np.roll")[0]


@array_function(np.roll, type_rule=_roll_type)
def _roll(call: EmitCall) -> Any:
    """np.roll(a, shift, axis): result[..., i, ...] = a[..., (i - shift) mod n, ...]."""
    c = call.c
    src = L.as_lazy(c, call.args[0], call.node)
    shift = convert(c.b, arg_value(call, 1, "shift"), I64).v
    axis = _roll_axis(call, src.type.ndim)
    if axis is None and src.type.ndim > 1:
        return rolled_flat(c, src, shift)
    return rolled(c, src, 0 if axis is None else axis, shift)


def _reduced_shift(c: Any, shift: Value, n: Value) -> Value:
    """`shift mod n` in [0, n) (Python's modulo; 0 for n == 0), computed once."""
    b = c.b
    if isinstance(shift, ConstantInt) and isinstance(n, ConstantInt):
        return ConstantInt(T.I64, shift.value % n.value if n.value else 0)
    safe = b.select(b.icmp("eq", n, _ZERO), _ONE, n)
    r = b.binop("srem", shift, safe)
    return b.select(b.icmp("slt", r, _ZERO), b.add(r, safe), r)


def _back(c: Any, i: Value, r: Value, n: Value) -> Value:
    """(i - r) mod n for i and r in [0, n): the index read for result index i."""
    b = c.b
    if isinstance(r, ConstantInt) and r.value == 0:
        return i
    j = b.sub(i, r)
    return b.select(b.icmp("slt", j, _ZERO), b.add(j, n), j)


def moved_reads(reads: list[AVal]) -> list[AVal]:
    """`reads` marked as read at other indexes than the result's (see `writes`)."""
    return [dataclasses.replace(r, origin=None, moved=True) for r in reads]


def rolled(c: Any, src: L.Lazy, axis: int, shift: Value) -> L.Lazy:
    """`src` rolled by `shift` (any i64) along `axis`, as a lazy permutation of it."""
    n = src.dims[axis]
    r = _reduced_shift(c, shift, n)
    return _rolled_by(c, src, axis, r)


def _rolled_by(c: Any, src: L.Lazy, axis: int, r: Value) -> L.Lazy:
    n = src.dims[axis]

    def element(idx: list[Value]) -> Value:
        moved = list(idx)
        moved[axis] = _back(c, idx[axis], r, n)
        return src.element(moved)

    out = L.Lazy(src.type, list(src.dims), element, moved_reads(src.reads))
    return L.with_fast(out, src, lambda f: _rolled_by(c, f, axis, r))


def rolled_flat(c: Any, src: L.Lazy, shift: Value) -> L.Lazy:
    """NumPy's np.roll(a, shift) of an N-D array: a flattened in row-major order, rolled,
    reshaped back. The result's element at flat position f is a's at (f - shift) mod size."""
    total = L.count_of(c, src.dims)
    return _rolled_flat_by(c, src, _reduced_shift(c, shift, total), total,
                           c_strides(c.b, src.dims))


def _rolled_flat_by(c: Any, src: L.Lazy, r: Value, total: Value,
                    strides: list[Value]) -> L.Lazy:
    dims = list(src.dims)

    def element(idx: list[Value]) -> Value:
        b = c.b
        flat: Value = _ZERO
        for i, s in zip(idx, strides, strict=True):
            flat = add_i64(b, flat, mul_i64(b, i, s))
        return src.element(unravel(c, _back(c, flat, r, total), dims))

    out = L.Lazy(src.type, dims, element, moved_reads(src.reads))
    return L.with_fast(out, src, lambda f: _rolled_flat_by(c, f, r, total, strides))


# --- np.diag ----------------------------------------------------------------------------------

_DIAG_USAGE = "np.diag(v) of a 1-D v, np.diag(m) of a 2-D m, np.diag(x, k) with a constant k"


def _diagonal_number(call: TypeCall | EmitCall, name: str, keyword: str, usage: str) -> int:
    """Which diagonal (`k` of np.diag, `offset` of np.diagonal): a constant, 0 if absent."""
    node = arg_node(call, 1, keyword)
    k = 0 if node is None else call.constant(node)
    if not isinstance(k, int) or isinstance(k, bool):
        raise call_error(call, f"{name}: {keyword} must be an integer constant, got {k!r}",
                         usage, node)
    return k


def _diag_k(call: TypeCall | EmitCall) -> int:
    return _diagonal_number(call, "np.diag", "k", _DIAG_USAGE)


def _diag_type(call: TypeCall) -> FType | None:
    call.only("k")
    t = _array_arg(call, "np.diag", 2, _DIAG_USAGE)
    _diag_k(call)
    if t is None:
        return None
    if t.ndim not in (1, 2):
        raise call.error(f"np.diag of a {t.ndim}-D array is not supported (NumPy needs 1-D "
                         "or 2-D)", _DIAG_USAGE)
    return Array(t.elem, 3 - t.ndim)


@array_function(np.diag, type_rule=_diag_type, view=True)
def _diag(call: EmitCall) -> Any:
    """np.diag(x, k): the k-th diagonal of a matrix (a view), or a matrix with vector x on
    its k-th diagonal (fresh memory, zeros elsewhere)."""
    c = call.c
    k = _diag_k(call)
    x = call.args[0]
    if x.type.ndim == 2:
        return diagonal(c, c.view(x, call.node), k)
    return spread_diagonal(c, L.as_lazy(c, x, call.node), k, call.node)


_DIAGONAL_USAGE = "np.diagonal(m, offset) / m.diagonal(offset) of a 2-D m, offset a constant"


def _diagonal_offset(call: TypeCall | EmitCall) -> int:
    return _diagonal_number(call, "np.diagonal", "offset", _DIAGONAL_USAGE)


def _diagonal_type(call: TypeCall) -> FType | None:
    call.only("offset")
    t = _array_arg(call, "np.diagonal", 2, _DIAGONAL_USAGE)
    _diagonal_offset(call)
    if t is None:
        return None
    if t.ndim != 2:
        raise call.error(f"np.diagonal of a {t.ndim}-D array is not supported",
                         _DIAGONAL_USAGE)
    return Array(t.elem, 1)


@array_function(np.diagonal, type_rule=_diagonal_type, method="diagonal", view=True)
def _diagonal(call: EmitCall) -> Any:
    """np.diagonal(m, offset) / m.diagonal(offset): the offset-th diagonal of a matrix, a
    view (np.diag's of a matrix)."""
    return diagonal(call.c, call.c.view(call.args[0], call.node), _diagonal_offset(call))


def _min_i64(c: Any, x: Value, y: Value) -> Value:
    if isinstance(x, ConstantInt) and isinstance(y, ConstantInt):
        return ConstantInt(T.I64, min(x.value, y.value))
    return c.b.select(c.b.icmp("slt", x, y), x, y)


def diagonal(c: Any, m: AVal, k: int) -> AVal:
    """The view of m[i, i + k] (k >= 0) or m[i - k, i] (k < 0), i in [0, extent): extent
    max(0, min(rows, cols - k)) or max(0, min(rows + k, cols))."""
    b = c.b
    rows, cols = m.dims
    rs, cs = m.strides
    kc = ConstantInt(T.I64, abs(k))
    if k >= 0:
        offset = mul_i64(b, kc, cs)
        extent = _min_i64(c, rows, add_i64(b, cols, ConstantInt(T.I64, -k)))
    else:
        offset = mul_i64(b, kc, rs)
        extent = _min_i64(c, add_i64(b, rows, ConstantInt(T.I64, k)), cols)
    if isinstance(extent, ConstantInt):
        extent = ConstantInt(T.I64, max(0, extent.value))
    else:
        extent = b.select(b.icmp("slt", extent, _ZERO), _ZERO, extent)
    ptr = m.ptr if offset is _ZERO else b.getelementptr(m.type.elem.ir, m.ptr, [offset])
    return AVal(Array(m.type.elem, 1), ptr, [extent], [add_i64(b, rs, cs)], False, m.root,
                None)


def spread_diagonal(c: Any, v: L.Lazy, k: int, node: ast.AST) -> AVal:
    """A fresh (n + |k|)-square matrix of zeros with v[i] at (i, i + k) or (i - k, i)."""
    b = c.b
    n = v.dims[0]
    size = add_i64(b, n, ConstantInt(T.I64, abs(k)))
    out = c.new_array(Array(v.type.elem, 2), [size, size], 0.0, node)
    row_off, col_off = ConstantInt(T.I64, max(0, -k)), ConstantInt(T.I64, max(0, k))

    def emit(form: L.Lazy) -> None:
        def body(idx: list[Value]) -> None:
            i = idx[0]
            at = [add_i64(c.b, i, row_off), add_i64(c.b, i, col_off)]
            x = convert(c.b, SVal(form.type.elem, form.element(idx)), out.type.elem).v
            c.b.store(x, L.element_address(c, out, at))

        loops.nest(c, [n], body)

    L.versioned(c, v, emit)
    return out
