"""Views: indexing, slicing, new axes, transposes and reshapes of strided arrays.

Every operation here returns a view of the same memory (no copy): `x[1:]`, `x[::-1]`,
`X[i]`, `X[:, j]`, `X[1:, ::2]`, `x[None, :]`, `X.T`, `X.reshape(m, n)` (of C-contiguous data;
a recorded `ValueError` otherwise), `x.ravel()`.

Invariants: slices follow Python's `slice.indices` exactly (negative bounds count from the
end, bounds clamp, a negative step walks backwards, an empty slice has extent 0 and is never
read); an integer index wraps once when negative and, with bounds checks on, is checked
against its extent before any memory is touched; the result's `root` is the viewed array's.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from enzyme_py.frontend.ftypes import Array
from enzyme_py.frontend.values import AVal, add_i64, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling

_ZERO = ConstantInt(T.I64, 0)
_ONE = ConstantInt(T.I64, 1)


def index_parts(e: ast.Subscript) -> list[ast.expr]:
    return list(e.slice.elts) if isinstance(e.slice, ast.Tuple) else [e.slice]


def is_newaxis(c: Compiling, e: ast.expr) -> bool:
    if isinstance(e, ast.Constant) and e.value is None:
        return True
    return isinstance(e, ast.Attribute) and e.attr == "newaxis" and \
        c.typer.resolve_global(e) is None


def expand_ellipsis(parts: list[ast.expr], ndim: int, newaxes: int) -> list[ast.expr]:
    """`...` replaced by as many full slices as it stands for."""
    dots = [k for k, p in enumerate(parts) if isinstance(p, ast.Constant) and
            p.value is Ellipsis]
    if not dots:
        return parts
    used = len(parts) - 1 - newaxes
    fill = [ast.Slice(None, None, None) for _ in range(ndim - used)]
    k = dots[0]
    return [*parts[:k], *fill, *parts[k + 1:]]


def checked_index(c: Compiling, ie: ast.expr, dim: Value, axis: int,
                  proven: bool = False) -> Value:
    """An integer index into an extent: wrapped once when negative, then bounds-checked."""
    b = c.b
    i = c.int_value(ie)
    if not (isinstance(i, ConstantInt) and i.value >= 0) and not proven:
        neg = b.icmp("slt", i, _ZERO)
        i = b.select(neg, b.add(i, dim), i)
    if c.session.bounds_check and not proven:
        c.check(b.icmp("ult", i, dim), ie, "index", i, dim, axis)
    return i


def _slice(c: Compiling, s: ast.Slice, dim: Value) -> tuple[Value, Value, Value]:
    """(start, extent, step) of `s` over an axis of extent `dim` (Python's slice.indices).

    Slices with constant bounds of the same extent value give the same values within a
    statement, so `u[:-2] + u[2:]` has operands of one extent, known equal at compile time
    (no broadcast check, no stride select)."""
    key = None
    parts = (s.lower, s.upper, s.step)
    if parts == (None, None, None):  # `:` is the axis itself (so its extent stays `dim`)
        return _ZERO, dim, _ONE
    if all(p is None or _constant_int(p) is not None for p in parts):
        key = ("slice", id(dim), *(None if p is None else _constant_int(p) for p in parts))
        got = c.heap.remembered(key)
        if got is not None:
            return got  # type: ignore[return-value]
    trimmed = _trimmed_bounds(parts)
    out = _slice_values(c, s, dim) if trimmed is None else _trimmed(c, dim, *trimmed)
    if key is not None:
        c.heap.remember(key, out)
    return out


def _trimmed_bounds(parts: tuple[ast.expr | None, ...]) -> tuple[int, int] | None:
    """For `a:`, `:-b` and `a:-b` (a >= 0, b > 0, step 1): (a, a + b), the start and the
    extent taken off the axis (the slice's extent is max(0, dim - a - b) for every
    dim >= 0); else None (`:0` is empty, not the whole axis)."""
    lower, upper, step = parts
    a = 0 if lower is None else _constant_int(lower)
    z = 0 if upper is None else _constant_int(upper)
    if (step is not None and _constant_int(step) != 1) or a is None or z is None or a < 0 or \
            (upper is not None and z >= 0):
        return None
    return a, a - z


def _trimmed(c: Compiling, dim: Value, a: int, trim: int) -> tuple[Value, Value, Value]:
    """(start, extent, step) of a slice that `_trimmed_bounds` accepts. Its extent is one
    value per (axis, trim) in a statement, so `u[1:-1]`, `u[:-2]` and `u[2:]` are operands
    of one extent at compile time (`lazy.same_extent`: no broadcast check, no stride
    select)."""
    b = c.b
    start: Value = _ZERO if not a else \
        b.select(b.icmp("sgt", ConstantInt(T.I64, a), dim), dim, ConstantInt(T.I64, a))
    if not trim:
        return start, dim, _ONE
    key = ("trimmed extent", id(dim), trim)
    n = c.heap.remembered(key)
    if n is None:
        left = b.sub(dim, ConstantInt(T.I64, trim))
        n = b.select(b.icmp("sgt", left, _ZERO), left, _ZERO)
        c.heap.remember(key, n)
    return start, n, _ONE  # type: ignore[return-value]


def _constant_int(e: ast.expr) -> int | None:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        v = _constant_int(e.operand)
        return None if v is None else -v
    return None


def _slice_values(c: Compiling, s: ast.Slice, dim: Value) -> tuple[Value, Value, Value]:
    b = c.b
    step: Value = _ONE if s.step is None else c.int_value(s.step)
    if not isinstance(step, ConstantInt):
        c.check(b.icmp("ne", step, _ZERO), s.step, "slice step", step, _ZERO, 0)
    elif step.value == 0:
        raise c.src.error(s.step, "slice step cannot be zero")
    forward = isinstance(step, ConstantInt) and step.value > 0
    backward = isinstance(step, ConstantInt) and step.value < 0
    minus1 = ConstantInt(T.I64, -1)

    def bound(e: ast.expr | None, default_fwd: Value, default_bwd: Value) -> Value:
        if e is None:
            if forward:
                return default_fwd
            if backward:
                return default_bwd
            return b.select(b.icmp("sgt", step, _ZERO), default_fwd, default_bwd)
        x = c.int_value(e)
        if not (isinstance(x, ConstantInt) and x.value >= 0):
            x = b.select(b.icmp("slt", x, _ZERO), b.add(x, dim), x)
        # clamp to [0, dim] going forward, [-1, dim - 1] going backward
        lo_f, hi_f = _ZERO, dim
        lo_b, hi_b = minus1, b.sub(dim, _ONE)
        if forward:
            return _clamp(c, x, lo_f, hi_f)
        if backward:
            return _clamp(c, x, lo_b, hi_b)
        up = b.icmp("sgt", step, _ZERO)
        return b.select(up, _clamp(c, x, lo_f, hi_f), _clamp(c, x, lo_b, hi_b))

    start = bound(s.lower, _ZERO, b.sub(dim, _ONE))
    stop = bound(s.upper, dim, minus1)
    # extent: ceil((stop - start) / step) when positive, else 0
    if forward and step.value == 1:  # type: ignore[union-attr]
        n = b.sub(stop, start)
    elif forward or backward:
        mag = abs(step.value)  # type: ignore[union-attr]
        span = b.sub(stop, start) if forward else b.sub(start, stop)
        n = b.binop("sdiv", b.add(span, ConstantInt(T.I64, mag - 1)), ConstantInt(T.I64, mag))
    else:
        up = b.icmp("sgt", step, _ZERO)
        span = b.select(up, b.sub(stop, start), b.sub(start, stop))
        mag = b.select(up, step, b.sub(_ZERO, step))
        n = b.binop("sdiv", b.add(span, b.sub(mag, _ONE)), mag)
    n = b.select(b.icmp("sgt", n, _ZERO), n, _ZERO)
    return start, n, step


def _clamp(c: Compiling, x: Value, lo: Value, hi: Value) -> Value:
    b = c.b
    x = b.select(b.icmp("slt", x, lo), lo, x)
    return b.select(b.icmp("sgt", x, hi), hi, x)


def subscript(c: Compiling, arr: AVal, e: ast.Subscript,
              proven: bool = False) -> AVal | Value:
    """`arr[...]`: a view, or (every axis indexed by an integer) the element's address."""
    parts = index_parts(e)
    newaxes = sum(1 for p in parts if is_newaxis(c, p))
    parts = expand_ellipsis(parts, arr.type.ndim, newaxes)
    b = c.b
    offset: Value = _ZERO
    dims: list[Value] = []
    strides: list[Value] = []
    axis = 0
    contiguous_prefix = True  # integer indexes on leading axes keep C order
    for p in parts:
        if is_newaxis(c, p):
            dims.append(_ONE)
            strides.append(_ZERO)
            continue
        if axis >= arr.type.ndim:
            raise c.src.error(e, f"too many indices for a {arr.type.ndim}-D array")
        dim, stride = arr.dims[axis], arr.strides[axis]
        if isinstance(p, ast.Slice):
            start, n, step = _slice(c, p, dim)
            offset = add_i64(b, offset, mul_i64(b, start, stride))
            dims.append(n)
            strides.append(mul_i64(b, stride, step))
            if not (p.lower is None and p.upper is None and p.step is None):
                contiguous_prefix = False
        else:
            i = checked_index(c, p, dim, axis, proven)
            offset = add_i64(b, offset, mul_i64(b, i, stride))
            if dims:
                contiguous_prefix = False
        axis += 1
    for k in range(axis, arr.type.ndim):  # unindexed trailing axes are full slices
        dims.append(arr.dims[k])
        strides.append(arr.strides[k])
    ptr = arr.ptr if offset is _ZERO else b.getelementptr(arr.type.elem.ir, arr.ptr, [offset])
    if not dims:
        return ptr
    contiguous = arr.contiguous and contiguous_prefix and newaxes == 0
    return AVal(Array(arr.type.elem, len(dims)), ptr, dims, strides, contiguous, arr.root,
                None, _origin(arr, e, parts))


def _origin(arr: AVal, e: ast.Subscript,
            parts: list[ast.expr]) -> tuple[str, Value, tuple[int, ...]] | None:
    """`AVal.origin` of `arr[parts]`: a slice of a variable on every axis (trailing axes
    left out count as `:`), each with a constant start >= 0 and step 1 (else None)."""
    if not isinstance(e.value, ast.Name) or len(parts) > arr.type.ndim:
        return None
    starts: list[int] = []
    for p in parts:
        if not isinstance(p, ast.Slice) or p.step is not None and _constant_int(p.step) != 1:
            return None
        start = 0 if p.lower is None else _constant_int(p.lower)
        if start is None or start < 0:
            return None
        starts.append(start)
    starts += [0] * (arr.type.ndim - len(parts))
    return e.value.id, arr.ptr, tuple(starts)


def item(c: Compiling, arr: AVal, k: Value) -> object:
    """`arr[k]` for an in-range k: the element of a 1-D array, else a view of row k."""
    from enzyme_py.frontend.values import SVal

    b = c.b
    ptr = b.getelementptr(arr.type.elem.ir, arr.ptr, [mul_i64(b, k, arr.strides[0])])
    if arr.type.ndim == 1:
        return SVal(arr.type.elem, b.load(arr.type.elem.ir, ptr))
    return AVal(Array(arr.type.elem, arr.type.ndim - 1), ptr, arr.dims[1:], arr.strides[1:],
                arr.contiguous, arr.root, None)


def transpose(c: Compiling, arr: AVal, axes: list[int] | None = None) -> AVal:
    n = arr.type.ndim
    order = list(range(n))[::-1] if axes is None else axes
    if sorted(order) != list(range(n)):
        raise ValueError(f"axes {order} are not a permutation of {n} axes")
    contiguous = arr.contiguous and (n <= 1 or order == list(range(n)))
    return AVal(arr.type, arr.ptr, [arr.dims[k] for k in order],
                [arr.strides[k] for k in order], contiguous, arr.root, None)


def reshape(c: Compiling, arr: AVal, dims: list[Value], node: ast.AST) -> AVal:
    """A C-order reshape; the data must be C-contiguous (checked at run time if not known),
    and the sizes must agree (checked). One extent may be -1 (inferred)."""
    from enzyme_py.frontend.arrays.lazy import count_of
    from enzyme_py.frontend.values import c_strides

    b = c.b
    total = count_of(c, arr.dims)
    minus = [k for k, d in enumerate(dims) if isinstance(d, ConstantInt) and d.value == -1]
    if len(minus) > 1:
        raise c.src.error(node, "can only specify one unknown dimension")
    if minus:
        known = count_of(c, [d for k, d in enumerate(dims) if k != minus[0]])
        safe = b.select(b.icmp("eq", known, _ZERO), _ONE, known)
        dims = list(dims)
        dims[minus[0]] = b.binop("sdiv", total, safe)
    new_total = count_of(c, dims)
    if not (isinstance(total, ConstantInt) and isinstance(new_total, ConstantInt) and
            total.value == new_total.value):
        c.check(b.icmp("eq", total, new_total), node, "reshape size", total, new_total, 0)
    if not arr.contiguous:
        c.check(is_c_contiguous(c, arr), node, "reshape layout", total, _ZERO, 0)
    return AVal(Array(arr.type.elem, len(dims)), arr.ptr, list(dims), c_strides(b, dims), True,
                arr.root, None)


def is_c_contiguous(c: Compiling, arr: AVal) -> Value:
    """An i1: are `arr`'s strides those of a C-contiguous array? (axes of extent 1 and empty
    arrays impose nothing, as in NumPy)"""
    b = c.b
    ok: Value = ConstantInt(T.I1, 1)
    expect: Value = _ONE
    empty: Value = ConstantInt(T.I1, 0)
    for d, s in zip(reversed(arr.dims), reversed(arr.strides), strict=True):
        fine = b.binop("or", b.icmp("eq", s, expect), b.icmp("eq", d, _ONE))
        ok = b.binop("and", ok, fine)
        empty = b.binop("or", empty, b.icmp("eq", d, _ZERO))
        expect = b.mul(expect, d)
    return b.binop("or", ok, empty)
