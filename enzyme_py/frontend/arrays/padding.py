"""np.pad with the modes "constant", "edge" and "wrap".

`np.pad(a, pad_width, mode="constant", constant_values=0)` is a fresh array of extents
`before + n + after` per axis: filled with the constant, then `a` stored into its interior
(so the gradient of `a` is the interior's, and a run-time constant's is the sum over the
padding). "edge" and "wrap" are lazy reads of `a`: result index i of an axis reads
`a[clamp(i - before, 0, n - 1)]` ("edge") or `a[(i - before) mod n]` ("wrap", for any
width, as NumPy's repeated wrapping).

Invariants: `pad_width` is a compile-time constant of non-negative integers in one of
NumPy's forms (an int, `(n,)`, `(before, after)`, or one pair per axis), broadcast to one
pair per axis as NumPy broadcasts it; the mode is a string literal; `constant_values` is one
number (a run-time one too) converted to the array's dtype; "edge" and "wrap" of an axis of
extent 0 with a width > 0 is a recorded error (NumPy's ValueError) before anything is read;
their reads are marked `moved`, and no element outside `a` is ever loaded.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays.call_args import arg_node, arg_type, arg_value, call_error
from enzyme_py.frontend.arrays.rearrange import moved_reads
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.frontend.ftypes import Array, FType, Scalar, Tuple
from enzyme_py.frontend.values import AVal, SVal, add_i64, const, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

_ZERO = ConstantInt(T.I64, 0)
_MODES = ("constant", "edge", "wrap")
_USAGE = ('np.pad(a, 2), np.pad(a, (1, 2)), np.pad(a, ((1, 2), (0, 3))) with constant '
          'integers; mode="constant" (constant_values=a number), "edge" or "wrap"')
_EMPTY_AXIS = "np.pad of an empty axis with mode 'edge' or 'wrap'"


def _widths(call: TypeCall | EmitCall, ndim: int) -> list[tuple[int, int]]:
    """(before, after) per axis, from NumPy's forms of `pad_width`."""
    node = arg_node(call, 1, "pad_width")
    if node is None:
        raise call_error(call, "np.pad needs the pad_width", _USAGE)
    try:
        value = call.constant(node)
    except FrontendError:
        raise call_error(call, "np.pad: pad_width must be a compile-time constant",
                         _USAGE, node) from None
    arr = np.asarray(value, dtype=object)
    if arr.size == 0 or not all(isinstance(w, int) and not isinstance(w, bool)
                                for w in arr.flat):
        raise call_error(call, f"np.pad: pad_width must be integers, got {value!r}",
                         _USAGE, node)
    try:
        pairs = np.broadcast_to(arr, (ndim, 2))
    except ValueError:
        raise call_error(call, f"np.pad: pad_width {value!r} does not fit a {ndim}-D array "
                         "(NumPy's forms: n, (n,), (before, after), or one pair per axis)",
                         _USAGE, node) from None
    if any(w < 0 for w in pairs.flat):
        raise call_error(call, f"np.pad: pad_width must not be negative, got {value!r}",
                         _USAGE, node)
    return [(int(b), int(a)) for b, a in pairs]


def _mode(call: TypeCall | EmitCall) -> str:
    node = arg_node(call, 2, "mode")
    if node is None:
        return "constant"
    if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        raise call_error(call, "np.pad: the mode must be a string literal", _USAGE, node)
    if node.value not in _MODES:
        raise call_error(call, f"np.pad with mode={node.value!r} is not supported",
                         f"modes {', '.join(map(repr, _MODES))}", node)
    return node.value


def _pad_type(call: TypeCall) -> FType | None:
    call.only("pad_width", "mode", "constant_values")
    if not 1 <= len(call.arg_nodes) <= 3:
        raise call.error("np.pad takes an array, the pad_width and the mode (the constant "
                         "as constant_values=)", _USAGE)
    mode = _mode(call)
    cv = call.keywords.get("constant_values")
    if cv is not None:
        if mode != "constant":
            raise call.error(f"np.pad: constant_values is not an option of mode={mode!r}",
                             _USAGE, cv)
        ct = arg_type(call, 3, "constant_values")
        if isinstance(ct, Tuple | Array) or isinstance(cv, ast.Tuple | ast.List):
            raise call.error("np.pad with constant_values per axis or side is not "
                             "supported", "constant_values=one number", cv)
        if ct is not None and not isinstance(ct, Scalar):
            raise call.error(f"np.pad: constant_values must be a number, got {ct}", node=cv)
    t = call.args[0]
    if t is None:
        return None
    if not isinstance(t, Array):
        raise call.error(f"np.pad of {t} is not supported, it needs an array", _USAGE)
    _widths(call, t.ndim)
    return t.value


@array_function(np.pad, type_rule=_pad_type)
def _pad(call: EmitCall) -> Any:
    """np.pad(a, pad_width, mode): see the module's docstring."""
    c = call.c
    src = L.as_lazy(c, call.args[0], call.node)
    widths = _widths(call, src.type.ndim)
    mode = _mode(call)
    if mode == "constant":
        cv = call.keywords.get("constant_values")
        value = const(src.type.elem, 0) if cv is None else arg_value(call, 3,
                                                                     "constant_values")
        return padded_constant(c, src, widths, value, call.node)
    for k, (d, (before, after)) in enumerate(zip(src.dims, widths, strict=True)):
        if before + after and not (isinstance(d, ConstantInt) and d.value > 0):
            c.check(c.b.icmp("ne", d, _ZERO), call.node, _EMPTY_AXIS, d, d, k)
    return padded_reads(c, src, widths, mode)


def _padded_dims(c: Any, src: L.Lazy, widths: list[tuple[int, int]]) -> list[Value]:
    return [add_i64(c.b, d, ConstantInt(T.I64, b + a))
            for d, (b, a) in zip(src.dims, widths, strict=True)]


def padded_constant(c: Any, src: L.Lazy, widths: list[tuple[int, int]], value: SVal,
                    node: ast.AST) -> AVal:
    """A fresh array of the padded extents: `value` (converted) around `src`."""
    dims = _padded_dims(c, src, widths)
    out = L.fresh(c, src.type, dims, node)
    if any(b + a for b, a in widths):
        L.store_elements(c, out, L.scalar_lazy(c, value, dims))
    offset: Value = _ZERO
    for (b, _), s in zip(widths, out.strides, strict=True):
        offset = add_i64(c.b, offset, mul_i64(c.b, ConstantInt(T.I64, b), s))
    ptr = out.ptr if offset is _ZERO else c.b.getelementptr(out.type.elem.ir, out.ptr,
                                                            [offset])
    L.store_elements(c, AVal(out.type, ptr, list(src.dims), list(out.strides), False,
                             out.root, None), src)
    return out


def padded_reads(c: Any, src: L.Lazy, widths: list[tuple[int, int]], mode: str) -> L.Lazy:
    """`src` padded by "edge" or "wrap" reads (every padded axis checked non-empty)."""
    b = c.b
    # per axis: None (the index as it is), or what its index map needs, computed once:
    # ("edge") -before and the last index n - 1, ("wrap") the shift and n
    maps: list[tuple[Value, Value] | None] = []
    for d, (before, after) in zip(src.dims, widths, strict=True):
        if before + after == 0:
            maps.append(None)
        elif mode == "edge":
            maps.append((ConstantInt(T.I64, -before), add_i64(b, d, ConstantInt(T.I64, -1))))
        else:  # (i - before) mod d == (i + shift) mod d, shift = (-before) mod d in [0, d)
            if isinstance(d, ConstantInt) and d.value == 0:  # (the check fails first)
                d = ConstantInt(T.I64, 1)
            maps.append((_wrap_shift(c, before, d), d))
    return _padded_by(c, src, _padded_dims(c, src, widths), maps, mode)


def _wrap_shift(c: Any, before: int, d: Value) -> Value:
    if isinstance(d, ConstantInt):
        return ConstantInt(T.I64, -before % d.value)
    r = c.b.binop("urem", ConstantInt(T.I64, before), d)
    return c.b.binop("urem", c.b.sub(d, r), d)


def _padded_by(c: Any, src: L.Lazy, dims: list[Value],
               maps: list[tuple[Value, Value] | None], mode: str) -> L.Lazy:
    def element(idx: list[Value]) -> Value:
        b = c.b
        inner = []
        for i, m in zip(idx, maps, strict=True):
            if m is None:
                inner.append(i)
            elif mode == "edge":
                before, last = m
                j = add_i64(b, i, before)  # (before holds -before)
                j = b.select(b.icmp("slt", j, _ZERO), _ZERO, j)
                inner.append(b.select(b.icmp("sgt", j, last), last, j))
            else:
                shift, d = m
                inner.append(b.binop("urem", add_i64(b, i, shift), d))
        return src.element(inner)

    out = L.Lazy(src.type, list(dims), element, moved_reads(src.reads))
    return L.with_fast(out, src, lambda f: _padded_by(c, f, dims, maps, mode))
