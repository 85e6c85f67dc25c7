"""Array constructors: np.zeros/ones/empty/full (and `*_like`), np.arange, np.linspace,
np.eye/np.identity, np.array/np.asarray (the assembly functions are in `assembly`).

Ranges, identity matrices and `full` are lazy (`lazy.Lazy` whose element is computed from the
index), so `np.sum(x * np.arange(n))` is one loop with no buffer; zeros/ones/empty are buffers
(stack when small and made outside loops, as the scalar front end always made them), since
they are mostly written into. np.array of literals is materialized into a fresh C-contiguous
buffer (of arrays: stacked, see `assembly.stack`).

Invariants: extents and dtypes follow NumPy (arange's length is ceil((stop - start) / step),
its elements `start + i * delta` with NumPy's delta; linspace computes NumPy's formula, its last
element is `stop` exactly); a negative size is a recorded `ValueError`, a zero arange step a
recorded `ZeroDivisionError`; the element type is fixed by the type rule and the emitter
converts to it; np.array is always a copy; np.asarray of an array of the requested dtype is
that array itself where the typer tracks the call as a view (`Typer.view_root`), else a lazy
read of it (so a variable bound to it holds a copy, never a view the typer would take for
fresh memory).
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays.assembly import stack
from enzyme_py.frontend.arrays.call_args import (
    arg_node,
    arg_type,
    arg_value,
    check_positional,
    dtype_of,
    number,
)
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.ftypes import BOOL, F32, F64, I64, Array, FType, Scalar, Tuple, unify
from enzyme_py.frontend.values import AVal, SVal, add_i64, const, convert, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value, const_float
from enzyme_py.rules.mathcalls import emit_math

_ZERO = ConstantInt(T.I64, 0)
_ONE = ConstantInt(T.I64, 1)


# --- arithmetic -------------------------------------------------------------------------------


def _sub(b: Any, x: Value, y: Value) -> Value:
    """x - y on i64, folded when y is 0 or both are constants."""
    if isinstance(x, ConstantInt) and isinstance(y, ConstantInt):
        return ConstantInt(T.I64, x.value - y.value)
    return x if isinstance(y, ConstantInt) and y.value == 0 else b.sub(x, y)


# --- shapes -----------------------------------------------------------------------------------


def _is_shape_attr(e: ast.expr | None) -> bool:
    return isinstance(e, ast.Attribute) and e.attr == "shape"


def _shape_rank(call: TypeCall, e: ast.expr | None, t: FType | None) -> int | None:
    """The number of extents of a shape argument (an int, a tuple of ints, `x.shape`)."""
    if e is None:
        raise call.error("the shape is missing", "np.zeros(n), np.zeros((n, m)), "
                         "np.zeros(x.shape)")
    if _is_shape_attr(e):
        base = call.typeof(e.value)  # type: ignore[union-attr]
        if base is not None and not isinstance(base, Array):
            raise call.error(f".shape of {base}", node=e)
        return None if base is None else base.ndim
    if isinstance(e, ast.Tuple | ast.List):
        items = [call.typeof(x) for x in e.elts]
        for x, it in zip(e.elts, items, strict=True):
            number(call, it, "an extent", x, ints=True)
        return None if any(i is None for i in items) else len(items)
    if isinstance(t, Tuple):
        for it in t.items:
            number(call, it, "an extent", e, ints=True)
        return len(t.items)
    number(call, t, "the shape", e, ints=True)
    return None if t is None else 1


def _shape_dims(call: EmitCall, e: ast.expr, v: Any) -> list[Value]:
    """The i64 extents of a shape argument, checked not negative (a recorded error)."""
    c = call.c
    if _is_shape_attr(e):
        arr = v if L.is_array(v) else c.expr(e.value)  # type: ignore[attr-defined]
        return list(arr.dims)
    if v is None:
        v = [c.expr(x) for x in e.elts] if isinstance(e, ast.Tuple | ast.List) else c.expr(e)
    if isinstance(v, SVal) and isinstance(v.type, Tuple):
        v = [SVal(t, c.b.extractvalue(v.v, [k])) for k, t in enumerate(v.type.items)]
    items = v if isinstance(v, list) else [v]
    dims = [convert(c.b, x, I64).v for x in items]
    check_sizes(c, dims, e)
    return dims


def check_sizes(c: Any, dims: list[Value], node: ast.AST) -> None:
    """A recorded `ValueError` (negative array size) for any extent below zero."""
    for k, d in enumerate(dims):
        if not (isinstance(d, ConstantInt) and d.value >= 0):
            c.check(c.b.icmp("sge", d, _ZERO), node, "array size", d, _ZERO, k)


# --- zeros, ones, empty, full and their *_like ------------------------------------------------

_FILLS = {"zeros": 0, "ones": 1, "empty": None, "full": None}


def _filled_type(kind: str) -> Any:
    full = kind == "full"

    def rule(call: TypeCall) -> FType | None:
        _dtype_positional(call, 2 if full else 1)  # np.zeros(3, float)
        call.only("shape", "dtype", *(("fill_value",) if full else ()))
        check_positional(call, 2 if full else 1, f"np.{kind}")
        shape = arg_node(call, 0, "shape")
        ndim = _shape_rank(call, shape, arg_type(call, 0, "shape") if shape is not None and
                           not _is_shape_attr(shape) else None)
        default: Scalar | None = F64
        if full:
            fill = _fill_type(call, 1)
            default = None if fill is None else fill
        elem = dtype_of(call, default)
        if ndim is None or elem is None:
            return None
        return Array(elem, ndim)

    return rule


def _dtype_positional(call: TypeCall, k: int) -> None:
    """A dtype given positionally (argument k, after the shape and the fill value) is read
    as `dtype=`."""
    if len(call.arg_nodes) == k + 1 and "dtype" not in call.keywords:
        node = call.arg_nodes[k]
        if call.typer.is_dtype(node) or isinstance(node, ast.Constant) and \
                isinstance(node.value, str):
            call.keywords["dtype"] = node
            del call.arg_nodes[k]
            del call.args[k]


def _fill_type(call: TypeCall, k: int) -> Scalar | None:
    node = arg_node(call, k, "fill_value")
    if node is None:
        raise call.error("np.full needs a fill value", "np.full(shape, value)")
    t = arg_type(call, k, "fill_value")
    if isinstance(t, Array):
        raise call.error("np.full with an array as the fill value is not supported",
                         "np.zeros(shape) + row (broadcasting)", node)
    return number(call, t, "the fill value", node)


def _filled(c: Any, t: Array, dims: list[Value], kind: str, fill: Any, node: ast.AST) -> Any:
    if kind != "full":
        return c.new_array(t, dims, _FILLS[kind], node)
    value = convert(c.b, fill, t.elem).v
    return L.Lazy(t, list(dims), lambda idx: value)


def _filled_emitter(kind: str) -> Any:
    def emit(call: EmitCall) -> Any:
        assert isinstance(call.type, Array)
        shape = arg_node(call, 0, "shape")
        assert shape is not None
        dims = _shape_dims(call, shape, call.args[0] if call.args else None)
        fill = arg_value(call, 1, "fill_value") if kind == "full" else None
        return _filled(call.c, call.type, dims, kind, fill, call.node)

    return emit


def _like_type(kind: str) -> Any:
    full = kind == "full"

    def rule(call: TypeCall) -> FType | None:
        call.only("dtype", *(("fill_value",) if full else ()))
        check_positional(call, 2 if full else 1, f"np.{kind}_like")
        t = call.args[0] if call.args else None
        if not call.args:
            raise call.error(f"np.{kind}_like needs an array")
        if t is not None and not isinstance(t, Array):
            raise call.error(f"np.{kind}_like needs an array, got {t}",
                             f"np.{kind}(shape) for a new array")
        if full and _fill_type(call, 1) is None:
            return None
        elem = dtype_of(call, t.elem if t is not None else None)
        return None if t is None or elem is None else Array(elem, t.ndim)

    return rule


def _like_emitter(kind: str) -> Any:
    def emit(call: EmitCall) -> Any:
        assert isinstance(call.type, Array)
        fill = arg_value(call, 1, "fill_value") if kind == "full" else None
        return _filled(call.c, call.type, list(call.args[0].dims), kind, fill, call.node)

    return emit


for _kind, _fn, _like in (("zeros", np.zeros, np.zeros_like), ("ones", np.ones, np.ones_like),
                          ("empty", np.empty, np.empty_like), ("full", np.full, np.full_like)):
    array_function(_fn, type_rule=_filled_type(_kind), lists=True)(_filled_emitter(_kind))
    array_function(_like, type_rule=_like_type(_kind))(_like_emitter(_kind))


# --- np.arange --------------------------------------------------------------------------------


def _arange_type(call: TypeCall) -> FType | None:
    call.only("dtype")
    if not 1 <= len(call.args) <= 3:
        raise call.error("np.arange takes 1 to 3 numbers", "np.arange(stop), "
                         "np.arange(start, stop), np.arange(start, stop, step), dtype=")
    types = [number(call, t, "an np.arange bound", n) for t, n in
             zip(call.args, call.arg_nodes, strict=True)]
    if any(t is None for t in types):
        return None
    floats = any(t.is_float for t in types)  # type: ignore[union-attr]
    elem = dtype_of(call, F64 if floats else I64)
    if elem is None:
        return None
    if floats and not elem.is_float or elem == BOOL:
        raise call.error(f"np.arange of {'floats' if floats else 'integers'} with "
                         f"dtype {elem} is not supported", "a float dtype, or .astype(...) "
                         "of the result")
    return Array(elem, 1)


def _arange_args(call: EmitCall) -> tuple[SVal, SVal, SVal]:
    a = list(call.args)
    if len(a) == 1:
        return const(I64, 0), a[0], const(I64, 1)
    return a[0], a[1], a[2] if len(a) == 3 else const(I64, 1)


@array_function(np.arange, type_rule=_arange_type)
def _arange(call: EmitCall) -> Any:
    c = call.c
    b = c.b
    assert isinstance(call.type, Array)
    elem = call.type.elem
    start, stop, step = _arange_args(call)
    t = unify(unify(start.type, stop.type), step.type)  # type: ignore[arg-type]
    assert isinstance(t, Scalar)
    work = F64 if t.is_float else I64
    s0, s1, st = (convert(b, v, work).v for v in (start, stop, step))
    if not (isinstance(st, ConstantInt) and st.value != 0):
        zero = const(work, 0).v
        nonzero = b.fcmp("une", st, zero) if work.is_float else b.icmp("ne", st, zero)
        c.check(nonzero, call.node, "integer division by zero", _ZERO, _ZERO, 0)
    n = _float_length(c, s0, s1, st, call.node) if work.is_float else _int_length(c, s0, s1, st)
    if not work.is_float:
        second_w: Value = add_i64(b, s0, st)
    else:
        second_w = b.fadd(s0, st)
    first = convert(b, SVal(work, s0), elem).v
    second = convert(b, SVal(work, second_w), elem).v
    if elem == I64:
        delta = st
    elif elem.is_float:
        delta = b.fsub(second, first)
    else:
        delta = b.sub(second, first)

    def element(idx: list[Value]) -> Value:
        i = idx[0]
        if elem == I64:
            return add_i64(b, first, mul_i64(b, i, delta))
        if not elem.is_float:
            return b.add(first, b.mul(convert(b, SVal(I64, i), elem).v, delta))
        x = b.fadd(first, b.fmul(convert(b, SVal(I64, i), elem).v, delta))
        x = b.select(b.icmp("eq", i, _ONE), second, x)  # NumPy stores start + step there
        return b.select(b.icmp("eq", i, _ZERO), first, x)

    return L.Lazy(call.type, [n], element)


def _int_length(c: Any, start: Value, stop: Value, step: Value) -> Value:
    """max(0, ceil((stop - start) / step)) in exact integer arithmetic (step != 0)."""
    b = c.b
    if isinstance(step, ConstantInt) and step.value == 0:
        return _ZERO  # the call's zero-step check has already failed
    if all(isinstance(v, ConstantInt) for v in (start, stop, step)):
        q = -((start.value - stop.value) // step.value)  # type: ignore[attr-defined]
        return ConstantInt(T.I64, max(q, 0))
    span = _sub(b, stop, start)
    if isinstance(step, ConstantInt) and step.value == 1:
        q = span
    else:
        # never `sdiv` by 0 or by -1 (the minimum span by -1 traps on x86): divide by 1
        # there, and take -span (saturated) for -1
        minus_one = None if isinstance(step, ConstantInt) and step.value != -1 else \
            b.icmp("eq", step, ConstantInt(T.I64, -1))
        safe = step if minus_one is None else \
            b.select(b.binop("or", b.icmp("eq", step, _ZERO), minus_one), _ONE, step)
        q, r = b.binop("sdiv", span, safe), b.binop("srem", span, safe)
        same_sign = b.icmp("eq", b.icmp("sgt", r, _ZERO), b.icmp("sgt", safe, _ZERO))
        up = b.binop("and", b.icmp("ne", r, _ZERO), same_sign)
        q = b.add(q, b.zext(up, T.I64))
        if minus_one is not None:
            lowest = b.icmp("eq", span, ConstantInt(T.I64, -(2**63)))
            negated = b.select(lowest, ConstantInt(T.I64, 2**63 - 1), b.sub(_ZERO, span))
            q = b.select(minus_one, negated, q)
    return b.select(b.icmp("sgt", q, _ZERO), q, _ZERO)


def _float_length(c: Any, start: Value, stop: Value, step: Value, node: ast.AST) -> Value:
    """NumPy's float arange length: ceil(delta / step), 1 when that underflows to +0.0 from a
    nonzero delta, 0 when not positive; NaN and sizes beyond 2**62 are recorded errors."""
    b = c.b
    zero = const_float(T.DOUBLE, 0.0)
    delta = b.fsub(stop, start)
    q = b.fdiv(delta, step)
    same_sign = b.icmp("eq", b.fcmp("ogt", delta, zero), b.fcmp("ogt", step, zero))
    tiny = b.binop("and", b.binop("and", b.fcmp("oeq", q, zero), b.fcmp("une", delta, zero)),
                   same_sign)
    q = emit_math(b, c.fn.parent, "ceil", [q])
    big = const_float(T.DOUBLE, float(1 << 62))
    ok = b.fcmp("olt", q, big)
    c.check(ok, node, "array size", ConstantInt(T.I64, 1 << 62), _ZERO, 0)
    n = b.cast("fptosi", b.select(ok, q, zero), T.I64)
    n = b.select(b.icmp("sgt", n, _ZERO), n, _ZERO)
    return b.select(tiny, _ONE, n)


# --- np.linspace ------------------------------------------------------------------------------


def _linspace_type(call: TypeCall) -> FType | None:
    call.only("num", "endpoint", "dtype")
    check_positional(call, 4, "np.linspace")
    ends = [arg_node(call, 0, "start"), arg_node(call, 1, "stop")]
    if ends[0] is None or ends[1] is None:
        raise call.error("np.linspace needs start and stop", "np.linspace(start, stop, num)")
    types = [arg_type(call, k, n) for k, n in enumerate(("start", "stop"))]
    for t, e in zip(types, ends, strict=True):
        if isinstance(t, Array):
            raise call.error("np.linspace between arrays is not supported",
                             "scalar start and stop", e)
        number(call, t, "a np.linspace bound", e)
    num = arg_node(call, 2, "num")
    if num is not None:
        number(call, arg_type(call, 2, "num"), "num", num, ints=True)
    endpoint = arg_node(call, 3, "endpoint")
    if endpoint is not None:
        call.constant(endpoint)
    if any(t is None for t in types):
        return None
    elem = dtype_of(call, _linspace_work(types, ends))  # type: ignore[arg-type]
    return None if elem is None else Array(elem, 1)


def _linspace_work(types: list[Scalar], ends: list[ast.expr | None]) -> Scalar:
    """The float type NumPy computes a linspace in: float32 when every bound that is not a
    (weakly typed) literal is float32, else float64."""
    strong = [t for t, e in zip(types, ends, strict=True) if not _is_literal(e)]
    return F32 if strong and all(t == F32 for t in strong) else F64


def _is_literal(e: ast.expr | None) -> bool:
    """A Python number literal (NumPy treats it as weakly typed)."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub | ast.UAdd):
        e = e.operand
    return isinstance(e, ast.Constant)


@array_function(np.linspace, type_rule=_linspace_type)
def _linspace(call: EmitCall) -> Any:
    c = call.c
    b = c.b
    assert isinstance(call.type, Array)
    elem = call.type.elem
    ends = [arg_node(call, 0, "start"), arg_node(call, 1, "stop")]
    values = [arg_value(call, 0, "start"), arg_value(call, 1, "stop")]
    work = _linspace_work([v.type for v in values], ends)
    start, stop = (convert(b, v, work).v for v in values)
    num_v = arg_value(call, 2, "num")
    num = ConstantInt(T.I64, 50) if num_v is None else convert(b, num_v, I64).v
    endpoint_e = arg_node(call, 3, "endpoint")
    endpoint = True if endpoint_e is None else bool(call.constant(endpoint_e))
    check_sizes(c, [num], call.node)
    div = _sub(b, num, _ONE) if endpoint else num
    zero = const(work, 0).v
    delta = b.fsub(stop, start)
    div_f = convert(b, SVal(I64, div), work).v
    positive: Value = ConstantInt(T.I1, int(div.value > 0)) if isinstance(div, ConstantInt) \
        else b.icmp("sgt", div, _ZERO)
    step = b.fdiv(delta, b.select(positive, div_f, const(work, 1).v))
    step_zero = b.fcmp("oeq", step, zero)
    last = _sub(b, num, _ONE)

    def element(idx: list[Value]) -> Value:
        i = convert(b, SVal(I64, idx[0]), work).v
        scaled = b.select(step_zero, b.fmul(b.fdiv(i, div_f), delta), b.fmul(i, step))
        y = b.fadd(b.select(positive, scaled, b.fmul(i, delta)), start)
        if endpoint:
            y = b.select(b.binop("and", b.icmp("eq", idx[0], last), positive), stop, y)
        if elem.is_int:
            y = emit_math(b, c.fn.parent, "floor", [y])
        return convert(b, SVal(work, y), elem).v

    return L.Lazy(call.type, [num], element)


# --- np.eye, np.identity ----------------------------------------------------------------------


def _eye_type(call: TypeCall) -> FType | None:
    call.only("M", "k", "dtype")
    check_positional(call, 3, "np.eye")
    if not call.args:
        raise call.error("np.eye needs the number of rows", "np.eye(n), np.eye(n, m, k=1)")
    for k, name in enumerate(("N", "M", "k")):
        e = arg_node(call, k, name)
        if e is not None and not (isinstance(e, ast.Constant) and e.value is None):
            number(call, arg_type(call, k, name), name, e, ints=True)
    elem = dtype_of(call, F64)
    return None if elem is None else Array(elem, 2)


def _identity_type(call: TypeCall) -> FType | None:
    call.only("dtype")
    if len(call.args) != 1:
        raise call.error("np.identity takes the number of rows", "np.identity(n)")
    number(call, call.args[0], "n", call.arg_nodes[0], ints=True)
    elem = dtype_of(call, F64)
    return None if elem is None else Array(elem, 2)


def _eye_lazy(c: Any, t: Array, n: Value, m: Value, k: Value, node: ast.AST) -> L.Lazy:
    check_sizes(c, [n, m], node)
    one, zero = const(t.elem, 1).v, const(t.elem, 0).v

    def element(idx: list[Value]) -> Value:
        on = c.b.icmp("eq", c.b.sub(idx[1], idx[0]), k)
        return c.b.select(on, one, zero)

    return L.Lazy(t, [n, m], element)


@array_function(np.eye, type_rule=_eye_type)
def _eye(call: EmitCall) -> Any:
    assert isinstance(call.type, Array)
    b = call.c.b
    n = convert(b, call.args[0], I64).v
    m_e = arg_node(call, 1, "M")
    none = m_e is None or isinstance(m_e, ast.Constant) and m_e.value is None
    m = n if none else convert(b, arg_value(call, 1, "M"), I64).v
    k_v = arg_value(call, 2, "k")
    k = _ZERO if k_v is None else convert(b, k_v, I64).v
    return _eye_lazy(call.c, call.type, n, m, k, call.node)


@array_function(np.identity, type_rule=_identity_type)
def _identity(call: EmitCall) -> Any:
    assert isinstance(call.type, Array)
    n = convert(call.c.b, call.args[0], I64).v
    return _eye_lazy(call.c, call.type, n, n, _ZERO, call.node)


# --- np.array, np.asarray ---------------------------------------------------------------------


def _layout(call: TypeCall, t: FType, node: ast.AST) -> tuple[list[int], Scalar, int]:
    """A literal's (extents, element type, rank of its array items: 0 for numbers)."""
    if isinstance(t, Scalar):
        return [], t, 0
    if isinstance(t, Array):
        return [], t.elem, t.ndim
    if not isinstance(t, Tuple):
        raise call.error(f"np.array of {t}", node=node)
    if not t.items:
        return [0], F64, 0
    subs = [_layout(call, it, node) for it in t.items]
    shapes = {(tuple(s[0]), s[2]) for s in subs}
    if len(shapes) != 1:
        raise call.error("np.array of a ragged literal (items of different shapes or kinds)",
                         "a rectangular nested list of numbers, or a list of arrays of "
                         "one rank", node)
    inner, elem, rank = subs[0]
    if rank and inner:
        raise call.error("np.array of nested lists of arrays is not supported",
                         "np.stack of a flat list of arrays", node)
    for s in subs[1:]:
        joined = unify(elem, s[1])
        assert isinstance(joined, Scalar)
        elem = joined
    return [len(t.items), *inner], elem, rank


def _array_type(call: TypeCall) -> FType | None:
    call.only("dtype")
    if len(call.args) != 1:
        raise call.error("np.array / np.asarray take one value", "np.array([1.0, 2.0]), "
                         "np.array(x), dtype=")
    t = call.args[0]
    if t is None:
        return None
    if isinstance(t, Scalar):
        raise call.error("0-d arrays (np.array of a number) are not supported",
                         "use the number itself, or np.array([x]) for one element")
    shape, elem, rank = _layout(call, t, call.arg_nodes[0])
    given = dtype_of(call, elem)
    return None if given is None else Array(given, len(shape) + rank)


def _literal_array(call: EmitCall, items: list[Any]) -> Any:
    c = call.c
    assert isinstance(call.type, Array)
    t = call.type
    if items and L.is_array(items[0]):
        return stack(c, [L.as_lazy(c, v) for v in items], 0, t.elem, call.node)
    shape: list[int] = []
    level: Any = items
    while isinstance(level, list):
        shape.append(len(level))
        level = level[0] if level else None
    dims: list[Value] = [ConstantInt(T.I64, n) for n in shape]
    out = c.new_array(t, dims, None, call.node)
    flat: list[SVal] = []

    def walk(v: Any) -> None:
        if isinstance(v, list):
            for x in v:
                walk(x)
        else:
            flat.append(v)

    walk(items)
    for k, v in enumerate(flat):
        at = c.b.getelementptr(t.elem.ir, out.ptr, [ConstantInt(T.I64, k)])
        c.b.store(convert(c.b, v, t.elem).v, at)
    return out


def _items(c: Any, v: Any) -> Any:
    """`v` with tuples of numbers (a callee's results) as lists of their items, nested."""
    if isinstance(v, SVal) and isinstance(v.type, Tuple):
        return [SVal(t, c.b.extractvalue(v.v, [k])) for k, t in enumerate(v.type.items)]
    return [_items(c, x) for x in v] if isinstance(v, list) else v


@array_function(np.array, type_rule=_array_type, lists=True)
def _array(call: EmitCall) -> Any:
    v = _items(call.c, call.args[0])
    if isinstance(v, list):
        return _literal_array(call, v)
    assert isinstance(call.type, Array)
    c = call.c
    return L.copy(c, L.converted(c, L.as_lazy(c, v), call.type.elem), call.node)


@array_function(np.asarray, type_rule=_array_type, lists=True, view=True)
def _asarray(call: EmitCall) -> Any:
    v = _items(call.c, call.args[0])
    if isinstance(v, list):
        return _literal_array(call, v)
    assert isinstance(call.type, Array)
    c = call.c
    if v.type.elem != call.type.elem:
        return L.converted(c, L.as_lazy(c, v), call.type.elem)
    if isinstance(v, AVal) and c.typer.view_root(call.node) is None:
        # The typer does not track this call as an alias of its argument, so a variable
        # bound to the same view would be taken for fresh, C-contiguous memory: read it
        # lazily instead (fused where it is consumed, a copy where it is bound).
        return L.of_view(c, v)
    return v
