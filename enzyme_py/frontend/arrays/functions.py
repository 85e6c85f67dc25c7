"""NumPy functions of the array layer that are neither reductions nor constructors: np.where,
np.clip, np.sign, np.logaddexp, products (np.dot, np.matmul) and layout changes (transpose,
swapaxes, reshape, to extents or to `b.shape`, ravel/flatten, copy, astype).

Invariant: each entry's type rule and emitter agree on the result type; views stay views
(transpose, reshape of C-contiguous data, ravel of C-contiguous data), `copy`, `flatten` and
`astype` always give fresh memory.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import types as AT
from enzyme_py.frontend.arrays import views
from enzyme_py.frontend.arrays.call_args import dtype_named
from enzyme_py.frontend.arrays.elementwise import lift, where
from enzyme_py.frontend.arrays.linalg import matmul, matmul_type
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.ftypes import BOOL, I64, Array, FType, NoneType, Scalar, Tree, Tuple
from enzyme_py.frontend.tree_values import TVal
from enzyme_py.frontend.trees import iterated
from enzyme_py.frontend.values import SVal, const, convert
from enzyme_py.ir.values import ConstantInt, Value, const_float
from enzyme_py.rules.mathcalls import emit_math


def _arrays_or_scalars(call: TypeCall, n: int, name: str) -> list[FType] | None:
    if len(call.args) != n:
        raise call.error(f"{name} takes {n} arguments")
    for t in call.args:
        if t is not None and not isinstance(t, Scalar | Array):
            raise call.error(f"{name} takes arrays and numbers, got {t}")
    if any(t is None for t in call.args):
        return None
    return call.args  # type: ignore[return-value]


def _elementwise_type(elem: Scalar, types: list[FType]) -> FType:
    rank = AT.result_rank(types)
    return Array(elem, rank) if rank else elem


# --- np.where, np.clip, np.sign, np.logaddexp -----------------------------------------------


def _where_type(call: TypeCall) -> FType | None:
    call.only()
    types = _arrays_or_scalars(call, 3, "np.where")
    if types is None:
        return None
    return _elementwise_type(AT.promote(types[1:]), types)


@array_function(np.where, type_rule=_where_type)
def _where(call: EmitCall) -> Any:
    c = call.c
    elem = call.type.elem if isinstance(call.type, Array) else call.type
    assert isinstance(elem, Scalar)
    cond, x, y = call.args
    if not any(L.is_array(a) for a in call.args):
        test = convert(c.b, cond, BOOL).v
        return SVal(elem, c.b.select(test, convert(c.b, x, elem).v, convert(c.b, y, elem).v))
    return where(c, cond, x, y, elem, call.node)


def _clip_type(call: TypeCall) -> FType | None:
    call.only("a_min", "a_max", "min", "max")
    types = [call.args[0]]
    for k in ("a_min", "a_max", "min", "max"):
        if k in call.keywords and not _is_none(call.keywords[k]):
            types.append(call.typeof(call.keywords[k]))
    types += [t for t in call.args[1:] if not isinstance(t, NoneType)]  # (None: no bound)
    if any(t is None for t in types):
        return None
    return _elementwise_type(AT.promote(types), types)  # type: ignore[arg-type]


def _is_none(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value is None


def _bounds(call: EmitCall) -> tuple[Any, Any]:
    lo_e = call.keywords.get("a_min", call.keywords.get("min"))
    hi_e = call.keywords.get("a_max", call.keywords.get("max"))
    rest = list(call.args[1:])
    lo = (None if _is_none(lo_e) else call.c.expr(lo_e)) if lo_e is not None else \
        (rest.pop(0) if rest else None)
    hi = (None if _is_none(hi_e) else call.c.expr(hi_e)) if hi_e is not None else \
        (rest.pop(0) if rest else None)
    return lo, hi


@array_function(np.clip, type_rule=_clip_type, method="clip")
def _clip(call: EmitCall) -> Any:
    c = call.c
    elem = call.type.elem if isinstance(call.type, Array) else call.type
    assert isinstance(elem, Scalar)
    lo, hi = _bounds(call)
    operands = [call.args[0]] + [v for v in (lo, hi) if v is not None]
    has_lo, has_hi = lo is not None, hi is not None

    def rule(v: list[SVal]) -> SVal:
        x = convert(c.b, v[0], elem).v
        k = 1
        if has_lo:  # np.clip = minimum(maximum(x, lo), hi)
            m = convert(c.b, v[k], elem).v
            x = c.b.select(_less(c, elem, x, m), m, x)
            k += 1
        if has_hi:
            m = convert(c.b, v[k], elem).v
            x = c.b.select(_less(c, elem, m, x), m, x)
        return SVal(elem, x)

    if not any(L.is_array(a) for a in operands):
        return rule(operands)
    return lift(c, operands, elem, rule, call.node)


def _less(c: Any, elem: Scalar, x: Value, y: Value) -> Value:
    return c.b.fcmp("olt", x, y) if elem.is_float else c.b.icmp("slt", x, y)


def _sign_type(call: TypeCall) -> FType | None:
    call.only()
    types = _arrays_or_scalars(call, 1, "np.sign")
    if types is None:
        return None
    return _elementwise_type(AT.promote(types), types)


@array_function(np.sign, type_rule=_sign_type)
def _sign(call: EmitCall) -> Any:
    c = call.c
    elem = call.type.elem if isinstance(call.type, Array) else call.type
    assert isinstance(elem, Scalar)

    def rule(v: list[SVal]) -> SVal:
        x = convert(c.b, v[0], elem).v
        zero, one, minus = const(elem, 0).v, const(elem, 1).v, const(elem, -1).v
        pos = _less(c, elem, zero, x)
        neg = _less(c, elem, x, zero)
        return SVal(elem, c.b.select(pos, one, c.b.select(neg, minus, x)))  # NaN, 0 stay

    if not L.is_array(call.args[0]):
        return rule(call.args)
    return lift(c, call.args, elem, rule, call.node)


def _logaddexp_type(call: TypeCall) -> FType | None:
    call.only()
    types = _arrays_or_scalars(call, 2, "np.logaddexp")
    if types is None:
        return None
    return _elementwise_type(AT.float_elem(AT.promote(types)), types)


@array_function(np.logaddexp, type_rule=_logaddexp_type)
def _logaddexp(call: EmitCall) -> Any:
    """np.logaddexp(a, b) = log(exp(a) + exp(b)), element-wise, as NumPy computes it:
    `hi + log1p(exp(lo - hi))` with hi the larger, and `a + log(2)` where a == b.

    The derivative is right everywhere: off ties, hi and lo are a and b, so the partials
    are 1 / (1 + exp(lo - hi)) and its complement; at a tie (infinities too) the value is
    `a / 2 + b / 2 + log(2)` (exactly a + log(2)), whose partials are 1/2 each. The other
    branch then reads `lo - hi` as 0, so an infinite tie leaves no NaN in the gradient."""
    c = call.c
    elem = call.type.elem if isinstance(call.type, Array) else call.type
    assert isinstance(elem, Scalar)
    module = c.fn.parent

    def rule(v: list[SVal]) -> SVal:
        b = c.b
        x, y = (convert(b, a, elem).v for a in v)
        tie = b.fcmp("oeq", x, y)
        first = b.fcmp("ogt", x, y)
        hi, lo = b.select(first, x, y), b.select(first, y, x)
        gap = b.select(tie, const_float(elem.ir, 0.0), b.fsub(lo, hi))
        apart = b.fadd(hi, emit_math(b, module, "log1p", [emit_math(b, module, "exp", [gap])]))
        half = const_float(elem.ir, 0.5)
        even = b.fadd(b.fadd(b.fmul(x, half), b.fmul(y, half)),
                      const_float(elem.ir, float(np.log(2.0))))
        return SVal(elem, b.select(tie, even, apart))

    if not any(L.is_array(a) for a in call.args):
        return rule(call.args)
    return lift(c, call.args, elem, rule, call.node)


# --- products -------------------------------------------------------------------------------


def _matmul_rule(call: TypeCall) -> FType | None:
    call.only()
    if len(call.args) != 2:
        raise call.error("np.dot / np.matmul take two arrays")
    a, b = call.args
    if a is None or b is None:
        return None
    if isinstance(a, Scalar) or isinstance(b, Scalar):
        if call.node.func and isinstance(a, Scalar | Array) and isinstance(b, Scalar | Array):
            if _is_dot(call):  # np.dot with a scalar is multiplication
                return _elementwise_type(AT.promote([a, b]), [a, b])
        raise call.error("np.matmul needs two arrays (use * to scale)")
    if not (isinstance(a, Array) and isinstance(b, Array)):
        raise call.error(f"np.dot / np.matmul of {a} and {b}")
    if _is_dot(call) and a.ndim > 2 and b.ndim > 1:
        raise call.error("np.dot of N-D arrays (N > 2) is not supported",
                         "np.matmul / @ (stacks of matrices), np.einsum")
    try:
        return matmul_type(a, b)
    except ValueError as err:
        raise call.error(str(err)) from None


def _is_dot(call: TypeCall | EmitCall) -> bool:
    f = call.node.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
    return name == "dot"


@array_function(np.dot, np.matmul, type_rule=_matmul_rule, method="dot")
def _matmul(call: EmitCall) -> Any:
    a, b = call.args
    if not (L.is_array(a) and L.is_array(b)):
        return call.c.binop(ast.Mult(), a, b, call.node)
    return matmul(call.c, a, b, call.node)


# --- layout ---------------------------------------------------------------------------------


def _one_array(call: TypeCall, name: str) -> Array | None:
    if not call.args:
        raise call.error(f"{name} needs an array")
    t = call.args[0]
    if t is None:
        return None
    if not isinstance(t, Array):
        raise call.error(f"{name} needs an array, got {t}")
    return t


def _transpose_type(call: TypeCall) -> FType | None:
    call.only("axes")
    t = _one_array(call, "transpose")
    if t is None:
        return None
    return t.value


def _axes_arg(call: EmitCall, ndim: int) -> list[int] | None:
    nodes = call.arg_nodes[1:]
    if "axes" in call.keywords:
        nodes = [call.keywords["axes"]]
    if not nodes:
        return None
    vals = [call.constant(n) for n in nodes]
    axes = list(vals[0]) if len(vals) == 1 and isinstance(vals[0], tuple) else vals
    return [a % ndim for a in axes]


@array_function(np.transpose, type_rule=_transpose_type, method="transpose", view=True)
def _transpose(call: EmitCall) -> Any:
    c = call.c
    v = c.view(call.args[0], call.node)
    try:
        return views.transpose(c, v, _axes_arg(call, v.type.ndim))
    except ValueError as err:
        raise c.src.error(call.node, str(err)) from None


def _swapaxes_type(call: TypeCall) -> FType | None:
    call.only()
    t = _one_array(call, "swapaxes")
    if len(call.arg_nodes) != 3:
        raise call.error("swapaxes takes an array and two axes")
    return None if t is None else t.value


@array_function(np.swapaxes, type_rule=_swapaxes_type, method="swapaxes", view=True)
def _swapaxes(call: EmitCall) -> Any:
    c = call.c
    v = c.view(call.args[0], call.node)
    n = v.type.ndim
    a, b = (call.constant(x) % n for x in call.arg_nodes[1:3])
    order = list(range(n))
    order[a], order[b] = order[b], order[a]
    return views.transpose(c, v, order)


def _moveaxis_order(call: TypeCall | EmitCall, ndim: int) -> list[int]:
    """The axis order of np.moveaxis(a, source, destination) (NumPy's own construction)."""
    src = call.typer.src if isinstance(call, TypeCall) else call.c.src
    if len(call.arg_nodes) != 3:
        raise src.error(call.node, "np.moveaxis takes an array, source and destination",
                        "np.moveaxis(a, 0, -1) or np.moveaxis(a, (0, 1), (-1, -2))")
    lists = []
    for node, what in zip(call.arg_nodes[1:], ("source", "destination"), strict=True):
        value = call.constant(node)
        items = list(value) if isinstance(value, tuple | list) else [value]
        for a in items:
            if not isinstance(a, int) or isinstance(a, bool) or not -ndim <= a < ndim:
                raise src.error(node, f"np.moveaxis: {what} axis {a!r} is out of bounds for "
                                f"an array of dimension {ndim}")
        axes = [a % ndim for a in items]
        if len(set(axes)) != len(axes):
            raise src.error(node, f"np.moveaxis: repeated axis in `{what}` argument")
        lists.append(axes)
    source, destination = lists
    if len(source) != len(destination):
        raise src.error(call.node, "np.moveaxis: `source` and `destination` arguments must "
                        "have the same number of elements")
    order = [n for n in range(ndim) if n not in source]
    for dest, s in sorted(zip(destination, source, strict=True)):
        order.insert(dest, s)
    return order


def _moveaxis_type(call: TypeCall) -> FType | None:
    call.only()
    t = _one_array(call, "np.moveaxis")
    if t is None:
        return None
    _moveaxis_order(call, t.ndim)
    return t.value


@array_function(np.moveaxis, type_rule=_moveaxis_type, view=True)
def _moveaxis(call: EmitCall) -> Any:
    c = call.c
    v = c.view(call.args[0], call.node)
    return views.transpose(c, v, _moveaxis_order(call, v.type.ndim))


def _shape_nodes(call: TypeCall | EmitCall) -> list[ast.expr]:
    nodes = call.arg_nodes[1:]
    if "newshape" in call.keywords or "shape" in call.keywords:
        nodes = [call.keywords.get("newshape", call.keywords.get("shape"))]  # type: ignore
    if len(nodes) == 1 and isinstance(nodes[0], ast.Tuple | ast.List):
        return list(nodes[0].elts)  # type: ignore[union-attr]
    return nodes


def _shape_of(nodes: list[ast.expr]) -> ast.expr | None:
    """The array `x` of a shape given as `x.shape` (None: given as extents)."""
    if len(nodes) == 1 and isinstance(nodes[0], ast.Attribute) and nodes[0].attr == "shape":
        return nodes[0].value
    return None


def _reshape_type(call: TypeCall) -> FType | None:
    call.only("newshape", "shape")
    t = _one_array(call, "reshape")
    nodes = _shape_nodes(call)
    if not nodes:
        raise call.error("reshape needs the new shape")
    other = _shape_of(nodes)
    if other is not None:  # a.reshape(b.shape): b's rank
        s = call.typeof(other)
        if s is not None and not isinstance(s, Array):
            raise call.error(f"reshape: .shape of {s}", node=nodes[0])
        return None if t is None or s is None else Array(t.elem, s.ndim)
    if len(nodes) == 1 and isinstance(call.typeof(nodes[0]), Array):
        raise call.error("reshape takes a shape, not an array")
    for n in nodes:
        s = call.typeof(n)
        if s is not None and not (isinstance(s, Scalar) and s.is_int):
            raise call.error(f"reshape: an extent has type {s}", node=n)
    return None if t is None else Array(t.elem, len(nodes))


@array_function(np.reshape, type_rule=_reshape_type, method="reshape", view=True, lists=True)
def _reshape(call: EmitCall) -> Any:
    c = call.c
    v = c.view(call.args[0], call.node)
    nodes = _shape_nodes(call)
    other = _shape_of(nodes)
    if other is not None:  # (a positional `b.shape` arrives as the array b: see `lists`)
        shaped = call.args[1] if len(call.args) > 1 else c.expr(other)
        return views.reshape(c, v, list(shaped.dims), call.node)
    dims = [c.int_value(n) for n in nodes]
    return views.reshape(c, v, dims, call.node)


def _ravel_type(call: TypeCall) -> FType | None:
    call.only()
    t = _one_array(call, "ravel")
    return None if t is None else Array(t.elem, 1)


@array_function(np.ravel, type_rule=_ravel_type, method="ravel", view=True)
def _ravel(call: EmitCall) -> Any:
    c = call.c
    v = call.args[0]
    if isinstance(v, L.Lazy) or not v.contiguous:
        v = L.copy(c, v, call.node)  # NumPy copies a non-contiguous array too
    return views.reshape(c, v, [L.count_of(c, v.dims)], call.node)


@array_function(type_rule=_ravel_type, method="flatten")
def _flatten(call: EmitCall) -> Any:
    c = call.c
    v = L.copy(c, call.args[0], call.node)
    return views.reshape(c, v, [L.count_of(c, v.dims)], call.node)


def _copy_type(call: TypeCall) -> FType | None:
    call.only()
    t = _one_array(call, "copy")
    return None if t is None else t.value


@array_function(np.copy, type_rule=_copy_type, method="copy")
def _copy(call: EmitCall) -> Any:
    return L.copy(call.c, call.args[0], call.node)


def _astype_type(call: TypeCall) -> FType | None:
    call.only()
    t = _one_array(call, "astype")
    if len(call.arg_nodes) != 2:
        raise call.error("astype takes the dtype", "x.astype(float), x.astype(np.float32)")
    elem = dtype_named(call, call.arg_nodes[1])
    if elem == BOOL:
        raise call.error("astype(bool) is not supported", "a comparison: x != 0",
                         call.arg_nodes[1])
    return None if t is None or elem is None else Array(elem, t.ndim)


@array_function(type_rule=_astype_type, method="astype")
def _astype(call: EmitCall) -> Any:
    assert isinstance(call.type, Array)
    c = call.c
    return L.copy(c, L.converted(c, L.as_lazy(c, call.args[0]), call.type.elem), call.node)


# --- Python's sum() -------------------------------------------------------------------------


def _sum_type(call: TypeCall) -> FType | None:
    from enzyme_py.frontend import comprehensions

    call.only("start")
    if not 1 <= len(call.arg_nodes) <= 2:
        raise call.error("sum() takes an iterable and an optional start")
    node = call.arg_nodes[0]
    if isinstance(call.args[0], Tree):  # a container (a comprehension over one): its children
        items: list[FType | None] = list(iterated(call.typer.src, call.args[0], node))
    elif isinstance(node, ast.ListComp | ast.GeneratorExp):
        items = [comprehensions.element_type(call.typer, node, True)]
    elif isinstance(call.args[0], Array):
        t = call.args[0]
        items = [t.elem if t.ndim == 1 else Array(t.elem, t.ndim - 1)]
    elif isinstance(call.args[0], Tuple):
        items = list(call.args[0].items)  # type: ignore[union-attr]
    elif call.args[0] is None:
        return None
    else:
        raise call.error(f"sum() of {call.args[0]} is not supported",
                         "sum of a list, a comprehension, a generator or an array")
    start = call.keywords.get("start", call.arg_nodes[1] if len(call.arg_nodes) > 1 else None)
    types = [*items, call.typeof(start) if start is not None else I64]
    if any(t is None for t in types):
        return None
    if any(isinstance(t, Array) for t in types):
        return Array(AT.binop_elem(ast.Add(), types), AT.result_rank(types))  # type: ignore
    return AT.binop_elem(ast.Add(), types) if len(types) > 1 else types[0]  # type: ignore


@array_function(builtins.sum, type_rule=_sum_type, lists=True, filters=True)
def _sum(call: EmitCall) -> Any:
    """sum(iterable, start=0): Python's left fold; of an array, a sum over its first axis."""
    from enzyme_py.frontend.arrays.reductions import reduce

    c = call.c
    node = call.arg_nodes[0]
    start_node = call.keywords.get("start", call.arg_nodes[1] if len(call.arg_nodes) > 1
                                   else None)
    start = c.expr(start_node) if start_node is not None else const(I64, 0)
    if isinstance(call.args[0], list | TVal):
        items = call.args[0] if isinstance(call.args[0], list) else call.args[0].items
        if not items:
            return start
        total = items[0]
        for it in items[1:]:
            total = c.binop(ast.Add(), total, it, call.node)
        return c.binop(ast.Add(), start, total, call.node)
    else:
        total = reduce(c, "sum", call.args[0], (0,), False, node)
    if isinstance(start.v, ConstantInt) and start.v.value == 0 and start_node is None:
        return total
    return c.binop(ast.Add(), start, total, call.node)


# --- np.squeeze, np.expand_dims -------------------------------------------------------------


def _axis_list(call: TypeCall | EmitCall, ndim: int, name: str) -> list[int] | None:
    """The constant `axis` argument (an int or a tuple), normalized for rank `ndim`."""
    node = call.keywords.get("axis", call.arg_nodes[1] if len(call.arg_nodes) > 1 else None)
    if node is None:
        return None
    value = call.constant(node)
    items = value if isinstance(value, tuple) else (value,)
    out = []
    for a in items:
        if not isinstance(a, int) or isinstance(a, bool) or not -ndim <= a < ndim:
            src = call.typer.src if isinstance(call, TypeCall) else call.c.src
            raise src.error(node, f"{name}: axis {a!r} is out of bounds for {ndim} dimensions")
        out.append(a % ndim)
    return sorted(set(out))


def _squeeze_type(call: TypeCall) -> FType | None:
    call.only("axis")
    t = _one_array(call, "squeeze")
    if t is None:
        return None
    axes = _axis_list(call, t.ndim, "squeeze")
    if axes is None:
        raise call.error("np.squeeze without axis= is not supported: which extents are 1 is "
                         "known only at run time", "np.squeeze(x, axis=k), x[:, 0], "
                         "x.reshape(...)")
    rank = t.ndim - len(axes)
    return Array(t.elem, rank) if rank else t.elem


@array_function(np.squeeze, type_rule=_squeeze_type, method="squeeze", view=True)
def _squeeze(call: EmitCall) -> Any:
    from enzyme_py.frontend.values import AVal
    from enzyme_py.ir import types as T

    c = call.c
    v = c.view(call.args[0], call.node)
    axes = _axis_list(call, v.type.ndim, "squeeze")
    assert axes is not None
    one = ConstantInt(T.I64, 1)
    for k in axes:  # NumPy: "cannot select an axis to squeeze out which has size not one"
        d = v.dims[k]
        if not (isinstance(d, ConstantInt) and d.value == 1):
            c.check(c.b.icmp("eq", d, one), call.node, "shape mismatch", d, one, k)
    keep = [k for k in range(v.type.ndim) if k not in axes]
    if not keep:
        return SVal(v.type.elem, c.b.load(v.type.elem.ir, v.ptr))
    return AVal(Array(v.type.elem, len(keep)), v.ptr, [v.dims[k] for k in keep],
                [v.strides[k] for k in keep], v.contiguous, v.root)


def _expand_dims_type(call: TypeCall) -> FType | None:
    call.only("axis")
    t = _one_array(call, "expand_dims")
    if t is None:
        return None
    if len(call.arg_nodes) < 2 and "axis" not in call.keywords:
        raise call.error("np.expand_dims needs axis")
    node = call.keywords.get("axis", call.arg_nodes[1] if len(call.arg_nodes) > 1 else None)
    value = call.constant(node)  # type: ignore[arg-type]
    count = len(value) if isinstance(value, tuple) else 1
    return Array(t.elem, t.ndim + count)


@array_function(np.expand_dims, type_rule=_expand_dims_type, view=True)
def _expand_dims(call: EmitCall) -> Any:
    from enzyme_py.frontend.values import AVal
    from enzyme_py.ir import types as T

    c = call.c
    v = c.view(call.args[0], call.node)
    assert isinstance(call.type, Array)
    rank = call.type.ndim
    new = _axis_list(call, rank, "expand_dims")
    assert new is not None
    dims, strides, it = [], [], 0
    for k in range(rank):
        if k in new:
            dims.append(ConstantInt(T.I64, 1))
            strides.append(ConstantInt(T.I64, 0))
        else:
            dims.append(v.dims[it])
            strides.append(v.strides[it])
            it += 1
    return AVal(call.type, v.ptr, dims, strides, False, v.root)
