"""Reductions: np.sum, np.mean, np.prod, np.max/np.min, np.any/np.all, np.var/np.std (with
`ddof=`), with `axis=` (an int or a tuple, negative counting from the end) and `keepdims=`;
np.argmax/np.argmin with `axis=` (an int or None: the flat row-major index) and
`keepdims=`; all as functions and methods.

A reduction consumes its operand lazily: `np.sum(np.exp(x) * y)` is one loop with no
temporary. A whole-array reduction keeps one accumulator; a reduction over some axes
accumulates into a fresh buffer holding the identity, in one pass over the operand in
row-major order (`out[i] += x[i, j]`), so the operand is read contiguously whichever axes are
reduced and the inner loop vectorizes when it is not itself the reduced axis.

Invariants: elements are accumulated in row-major order (no reassociation: results match a
sequential sum bit for bit); np.max/np.min propagate NaN as NumPy does, and start from the
extreme of the element type (int32's own for int32); argmax/argmin keep the first of equal
values and take the first NaN, give int64 and carry no derivative (`x[np.argmax(x)]`
differentiates through the load); a reduction without identity over an empty array is a
recorded error; integer sums and products accumulate in int64, means, variances and
standard deviations of integers in float64; np.var reads its operand twice (the mean, then
the squared deviations), so a lazy operand is computed once into a temporary.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import loops
from enzyme_py.frontend.arrays.elementwise import lift
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.ftypes import BOOL, F64, I64, Array, FType, Scalar
from enzyme_py.frontend.values import AVal, SVal, add_i64, c_strides, const, convert, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value, const_float
from enzyme_py.rules.mathcalls import emit_math

_KINDS = {np.sum: "sum", np.mean: "mean", np.prod: "prod", np.max: "max", np.min: "min",
          np.amax: "max", np.amin: "min", np.any: "any", np.all: "all"}


def normalize_axes(call: TypeCall | EmitCall, ndim: int, node: ast.expr | None,
                   name: str = "") -> tuple[int, ...]:
    """The constant axes `node` gives (an int or a tuple of them), normalized and sorted
    (every axis for axis=None or no node); out of bounds or repeated: an error, which names
    the function `name` when given."""
    if node is None:
        return tuple(range(ndim))
    value = call.constant(node)
    if value is None:
        return tuple(range(ndim))
    lead = f"{name}: " if name else ""
    items = value if isinstance(value, tuple) else (value,)
    out = []
    for a in items:
        if not isinstance(a, int) or isinstance(a, bool) or not -ndim <= a < ndim:
            raise error(call, f"{lead}axis {a!r} is out of bounds for an array of dimension "
                              f"{ndim}", node, f"axes in [-{ndim}, {ndim})" if name else "")
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise error(call, f"{lead}duplicate value in 'axis'", node)
    return tuple(sorted(out))


def error(call: TypeCall | EmitCall, message: str, node: ast.AST | None = None,
          supported: str = "") -> Exception:
    """The front end's error for `call` (at `node`, or the call itself)."""
    src = call.typer.src if isinstance(call, TypeCall) else call.c.src
    return src.error(node or call.node, message, supported)


def _options(call: TypeCall | EmitCall) -> tuple[ast.expr | None, bool]:
    args = call.arg_nodes
    axis = call.keywords.get("axis", args[1] if len(args) > 1 else None)
    keep = call.keywords.get("keepdims")  # positional keepdims is refused by the type rules
    keepdims = bool(call.constant(keep)) if keep is not None else False
    return axis, keepdims


def _result_elem(kind: str, elem: Scalar) -> Scalar:
    if kind in ("any", "all"):
        return BOOL
    if kind == "mean":
        return elem if elem.is_float else F64
    if kind in ("sum", "prod"):
        return elem if elem.is_float else I64
    return elem


def _type_rule(kind: str) -> Any:
    def rule(call: TypeCall) -> FType | None:
        call.only("axis", "keepdims")
        if not call.args:
            raise call.error(f"np.{kind} needs an array")
        t = call.args[0]
        if t is None:
            return None
        if isinstance(t, Scalar):
            return _result_elem(kind, t)
        if not isinstance(t, Array):
            raise call.error(f"np.{kind} needs an array, got {t}")
        if len(call.args) > 2:
            raise call.error(f"np.{kind}: pass only the array and axis positionally",
                             f"np.{kind}(x, axis=..., keepdims=...)")
        axis, keepdims = _options(call)
        axes = normalize_axes(call, t.ndim, axis)
        elem = _result_elem(kind, t.elem)
        rank = t.ndim if keepdims else t.ndim - len(axes)
        return elem if rank == 0 else Array(elem, rank)

    return rule


def _identity(kind: str, elem: Scalar) -> Value:
    if kind in ("sum", "mean"):
        return const(elem, 0).v
    if kind == "prod":
        return const(elem, 1).v
    if kind == "any":
        return ConstantInt(T.I1, 0)
    if kind == "all":
        return ConstantInt(T.I1, 1)
    return extreme(kind, elem)


def extreme(kind: str, elem: Scalar) -> Value:
    """The identity of max ("max": the least value of `elem`) or min (the greatest)."""
    if elem == BOOL:
        return ConstantInt(T.I1, 0 if kind == "max" else 1)
    if elem.is_float:
        return const_float(elem.ir, -math.inf if kind == "max" else math.inf)
    bits = elem.ir.bits  # type: ignore[attr-defined]
    return ConstantInt(elem.ir, -(1 << (bits - 1)) if kind == "max" else (1 << (bits - 1)) - 1)


def better(c: Any, kind: str, elem: Scalar, x: Value, best: Value) -> Value:
    """An i1: does `x` replace `best` in a max ("max") or min scan? Strict, so the first of
    equal values stays; a NaN replaces any number and is never replaced (NumPy's rule)."""
    b = c.b
    if elem.is_float:  # x greater (or NaN), unless best is NaN already
        take = b.fcmp("ugt" if kind == "max" else "ult", x, best)
        best_nan = b.fcmp("uno", best, best)
        return b.binop("and", take, b.binop("xor", best_nan, ConstantInt(T.I1, 1)))
    if elem == BOOL:
        return b.icmp("ugt" if kind == "max" else "ult", x, best)
    return b.icmp("sgt" if kind == "max" else "slt", x, best)


def combine(c: Any, kind: str, elem: Scalar, acc: Value, x: Value) -> Value:
    """One accumulation step of reduction `kind` on IR values of type `elem`."""
    b = c.b
    if kind in ("sum", "mean"):
        return b.fadd(acc, x) if elem.is_float else b.add(acc, x)
    if kind == "prod":
        return b.fmul(acc, x) if elem.is_float else b.mul(acc, x)
    if kind == "any":
        return b.binop("or", acc, x)
    if kind == "all":
        return b.binop("and", acc, x)
    return b.select(better(c, kind, elem, x, acc), x, acc)


def reduce(c: Any, kind: str, v: Any, axes: tuple[int, ...], keepdims: bool,
           node: ast.AST) -> Any:
    """The reduction of `v` (array or scalar) over `axes`."""
    if isinstance(v, SVal):
        return convert(c.b, v, _result_elem(kind, v.type)) if kind not in ("any", "all") \
            else convert(c.b, v, BOOL)
    if isinstance(v, L.Lazy) and v.mask is not None:  # x[x > 0]: selected elements only
        from enzyme_py.frontend.arrays.masks import reduce_masked

        res_elem = _result_elem(kind, v.type.elem)
        total = reduce_masked(c, kind, v, res_elem, _identity(kind, res_elem), combine, node)
        if keepdims:
            return L.materialize(c, L.scalar_lazy(c, total, [ConstantInt(T.I64, 1)]), node)
        return total
    src = L.as_lazy(c, v)
    elem_in = src.type.elem
    elem = _result_elem(kind, elem_in)
    acc_elem = elem
    count = None
    if kind in ("max", "min"):
        count = L.count_of(c, [src.dims[a] for a in axes])
        if not (isinstance(count, ConstantInt) and count.value > 0):
            zero = ConstantInt(T.I64, 0)
            c.check(c.b.icmp("sgt", count, zero), node, "empty reduction", count, zero, 0)

    def element_of(form: L.Lazy) -> Callable[[list[Value]], Value]:
        def element(idx: list[Value]) -> Value:
            x = SVal(elem_in, form.element(idx))
            return convert(c.b, x, BOOL if kind in ("any", "all") else acc_elem).v

        return element

    if kind in ("max", "min") and acc_elem.is_float and c.session.reverse_mode:
        # (its two passes must read the same numbers: computed elements are stored first,
        # since code computing them may round differently in a vector loop and its scalar
        # remainder, or in a vector math call and a scalar one)
        stored = v if isinstance(v, AVal) else L.materialize(c, src, node)
        return _extreme(c, kind, acc_elem, src.dims, axes, keepdims,
                        element_of(L.of_view(c, stored)), node)
    # (each accumulation runs `versioned`: with plain strides where no extent known only at
    # run time stretches, as an element-wise store does)
    if len(axes) == len(src.dims) and not keepdims:
        acc = c.alloca_at.alloca(acc_elem.ir, name=kind)
        c.b.store(_identity(kind, acc_elem), acc)

        def whole(form: L.Lazy) -> None:
            element = element_of(form)

            def body(idx: list[Value]) -> None:
                c.b.store(combine(c, kind, acc_elem, c.b.load(acc_elem.ir, acc),
                                  element(idx)), acc)

            loops.joined_nest(c, src.dims, form.joins, body)

        L.versioned(c, src, whole)
        total = SVal(acc_elem, c.b.load(acc_elem.ir, acc))
        return _finish(c, kind, total, src.dims, axes)
    kept = [k for k in range(len(src.dims)) if k not in axes]
    one = ConstantInt(T.I64, 1)
    out_dims = [src.dims[k] if k in kept else one for k in range(len(src.dims))] if keepdims \
        else [src.dims[k] for k in kept]
    out = L.fresh(c, Array(acc_elem, len(out_dims)), out_dims, node)
    ident = _identity(kind, acc_elem)
    L.fill(c, out, ident)

    def along(form: L.Lazy) -> None:
        element = element_of(form)

        def accumulate(idx: list[Value]) -> None:
            if keepdims:
                oidx = [idx[k] if k in kept else ConstantInt(T.I64, 0)
                        for k in range(len(idx))]
            else:
                oidx = [idx[k] for k in kept]
            at = L.element_address(c, out, oidx)
            c.b.store(combine(c, kind, acc_elem, c.b.load(acc_elem.ir, at), element(idx)), at)

        loops.nest(c, src.dims, accumulate)

    L.versioned(c, src, along)
    if kind == "mean":
        n = SVal(I64, L.count_of(c, [src.dims[a] for a in axes]))
        denom = convert(c.b, n, acc_elem).v

        def scale(idx: list[Value]) -> None:
            at = L.element_address(c, out, idx)
            c.b.store(c.b.fdiv(c.b.load(acc_elem.ir, at), denom), at)

        loops.nest(c, out.dims, scale)
    return out


def _extreme(c: Any, kind: str, elem: Scalar, dims: list[Value], axes: tuple[int, ...],
             keepdims: bool, element: Any, node: ast.AST) -> Any:
    """np.max/np.min of floats over `axes` in a module for a reverse-mode gradient: where
    the scan's extreme is, then the element read again there.

    Two passes that LLVM vectorizes (the one-pass scan keeping the extreme and its place
    is a chain of compares, one element at a time): the extreme with `llvm.maximum` /
    `llvm.minimum` (a NaN wins; any order gives the same number), then the first place
    (row-major over the reduced axes) holding a NaN or a value equal to it, as the smallest
    such flat index. That is the scan's place: its first NaN, else the first of the
    values equal to the extreme (+0 and -0 are equal, so the first zero either way). Both
    passes read the same numbers (`reduce` hands over a view, storing computed elements
    first), so the second always finds a place.

    The result is the same number as the scan's, and only the final read carries a
    derivative: the passes' values decide integers only, so a gradient neither records
    nor reverses them, and the cotangent goes to that element. `jit` (and forward mode)
    keep the plain scan."""
    b = c.b
    zero = ConstantInt(T.I64, 0)
    ident = _identity(kind, elem)
    fn = c.fn.parent
    kept = [k for k in range(len(dims)) if k not in axes]
    kept_dims = [dims[k] for k in kept]
    whole = not kept_dims and not keepdims
    reduced = [dims[a] for a in axes]
    none = L.count_of(c, reduced)  # past every flat place: "not found yet"

    def place(idx: list[Value]) -> Value:  # the flat row-major index over the reduced axes
        pos: Value = zero
        for a in axes:
            pos = add_i64(b, mul_i64(b, pos, dims[a]), idx[a])
        return pos

    if whole:
        best_slot = c.alloca_at.alloca(elem.ir, name=kind)
        at_slot = c.alloca_at.alloca(T.I64, name=f"{kind}.at")
        b.store(ident, best_slot)
        b.store(none, at_slot)

        def best_of(o: list[Value]) -> Value:
            return best_slot

        def at_of(o: list[Value]) -> Value:
            return at_slot
    else:
        scan = L.fresh(c, Array(elem, len(kept)), kept_dims, node)
        where = L.fresh(c, Array(I64, len(kept)), kept_dims, node)

        def best_of(o: list[Value]) -> Value:
            return L.element_address(c, scan, o)

        def at_of(o: list[Value]) -> Value:
            return L.element_address(c, where, o)

        L.fill(c, scan, ident)
        L.fill(c, where, none)
    extreme = "maximum" if kind == "max" else "minimum"

    def widen(idx: list[Value]) -> None:
        slot = best_of([idx[k] for k in kept])
        b.store(emit_math(b, fn, extreme, [b.load(elem.ir, slot), element(idx)]), slot)

    loops.nest(c, dims, widen)

    def find(idx: list[Value]) -> None:
        o = [idx[k] for k in kept]
        x, best = element(idx), b.load(elem.ir, best_of(o))
        hit = b.binop("or", b.fcmp("oeq", x, best), b.fcmp("uno", x, x))
        slot = at_of(o)
        cur = b.load(T.I64, slot)
        cand = b.select(hit, place(idx), none)
        b.store(b.select(b.icmp("slt", cand, cur), cand, cur), slot)

    loops.nest(c, dims, find)

    def full(o: list[Value]) -> list[Value]:  # every axis's index of the place found
        pos = b.load(T.I64, at_of(o))
        out: dict[int, Value] = {}
        for a in reversed(axes):
            out[a] = b.binop("srem", pos, dims[a]) if a != axes[0] else pos
            if a != axes[0]:
                pos = b.binop("sdiv", pos, dims[a])
        return [o[kept.index(k)] if k in kept else out[k] for k in range(len(dims))]

    if whole:
        return SVal(elem, element(full([])))
    one = ConstantInt(T.I64, 1)
    out_dims = [dims[k] if k in kept else one for k in range(len(dims))] if keepdims \
        else kept_dims
    out = L.fresh(c, Array(elem, len(out_dims)), out_dims, node)

    def finish(o: list[Value]) -> None:
        oidx = [o[kept.index(k)] if k in kept else zero for k in range(len(dims))] \
            if keepdims else o
        b.store(element(full(o)), L.element_address(c, out, oidx))

    loops.nest(c, kept_dims, finish)
    return out


def _finish(c: Any, kind: str, total: SVal, dims: list[Value], axes: tuple[int, ...]) -> SVal:
    if kind != "mean":
        return total
    n = SVal(I64, L.count_of(c, [dims[a] for a in axes]))
    return SVal(total.type, c.b.fdiv(total.v, convert(c.b, n, total.type).v))


def _emitter(kind: str) -> Any:
    def emit(call: EmitCall) -> Any:
        v = call.args[0]
        axis, keepdims = _options(call)
        ndim = v.type.ndim if L.is_array(v) else 0
        axes = normalize_axes(call, ndim, axis)
        return reduce(call.c, kind, v, axes, keepdims, call.node)

    return emit


for _obj, _kind in _KINDS.items():
    array_function(_obj, type_rule=_type_rule(_kind),
                   method=() if _obj in (np.amax, np.amin) else _kind)(_emitter(_kind))


# --- np.argmax / np.argmin ------------------------------------------------------------------


def single_axis(call: TypeCall | EmitCall, ndim: int, what: str) -> int | None:
    """The one `axis` (keyword or second positional) of a call taking an int or None."""
    node = call.keywords.get("axis", call.arg_nodes[1] if len(call.arg_nodes) > 1 else None)
    if node is None or call.constant(node) is None:
        return None
    if isinstance(call.constant(node), tuple):
        raise error(call, f"{what} one axis (an integer) or None", node)
    return normalize_axes(call, ndim, node)[0]


def _arg_type_rule(kind: str) -> Any:
    def rule(call: TypeCall) -> FType | None:
        call.only("axis", "keepdims")
        name = f"np.arg{kind}"
        if not call.args or len(call.args) > 2:
            raise call.error(f"{name} takes an array and an axis",
                             f"{name}(x), {name}(x, axis=0, keepdims=True)")
        t = call.args[0]
        if t is None:
            return None
        if not isinstance(t, Array):
            raise call.error(f"{name} needs an array, got {t}")
        axis = single_axis(call, t.ndim, "argmax/argmin take")
        _, keepdims = _options(call)
        rank = t.ndim if keepdims else (0 if axis is None else t.ndim - 1)
        return I64 if rank == 0 else Array(I64, rank)

    return rule


def arg_reduce(c: Any, kind: str, v: Any, axis: int | None, keepdims: bool,
               node: ast.AST) -> Any:
    """The index (int64) of the first greatest ("max") or least element of `v`: flat, in
    row-major order, for axis=None; along `axis` otherwise. NaN counts as the extreme."""
    b = c.b
    src = L.as_lazy(c, v)
    elem = src.type.elem
    zero = ConstantInt(T.I64, 0)
    if len(src.dims) == 1:
        axis = None  # the one axis: the flat index
    reduced = list(src.dims) if axis is None else [src.dims[axis]]
    count = L.count_of(c, reduced)
    if not (isinstance(count, ConstantInt) and count.value > 0):
        c.check(b.icmp("sgt", count, zero), node, "empty reduction", count, zero, 0)
    if axis is None:
        best = c.alloca_at.alloca(elem.ir, name=f"arg{kind}.best")
        at = c.alloca_at.alloca(T.I64, name=f"arg{kind}")
        b.store(extreme(kind, elem), best)
        b.store(zero, at)
        flat_strides = c_strides(b, src.dims)

        def scan(idx: list[Value]) -> None:
            x, cur = src.element(idx), c.b.load(elem.ir, best)
            take = better(c, kind, elem, x, cur)
            flat: Value = zero
            for i, s in zip(idx, flat_strides, strict=True):
                flat = add_i64(c.b, flat, mul_i64(c.b, i, s))
            c.b.store(c.b.select(take, x, cur), best)
            c.b.store(c.b.select(take, flat, c.b.load(T.I64, at)), at)

        loops.nest(c, src.dims, scan)
        result = SVal(I64, b.load(T.I64, at))
        if not keepdims:
            return result
        one = ConstantInt(T.I64, 1)
        out = L.fresh(c, Array(I64, len(src.dims)), [one] * len(src.dims), node)
        b.store(result.v, out.ptr)
        return out
    one = ConstantInt(T.I64, 1)
    out_dims = [one if k == axis else d for k, d in enumerate(src.dims)] if keepdims else \
        [d for k, d in enumerate(src.dims) if k != axis]
    out = L.fresh(c, Array(I64, len(out_dims)), out_dims, node)
    bests = L.fresh(c, Array(elem, len(out_dims)), out_dims, node)
    first = extreme(kind, elem)

    def init(idx: list[Value]) -> None:
        c.b.store(first, L.element_address(c, bests, idx))
        c.b.store(zero, L.element_address(c, out, idx))

    loops.nest(c, out_dims, init)

    def scan_axis(idx: list[Value]) -> None:  # row-major over the operand
        oidx = [zero if k == axis else i for k, i in enumerate(idx)] if keepdims else \
            [i for k, i in enumerate(idx) if k != axis]
        best_at, at = L.element_address(c, bests, oidx), L.element_address(c, out, oidx)
        x, cur = src.element(idx), c.b.load(elem.ir, best_at)
        take = better(c, kind, elem, x, cur)
        c.b.store(c.b.select(take, x, cur), best_at)
        c.b.store(c.b.select(take, idx[axis], c.b.load(T.I64, at)), at)

    loops.nest(c, src.dims, scan_axis)
    return out


def _arg_emitter(kind: str) -> Any:
    def emit(call: EmitCall) -> Any:
        v = call.args[0]
        _, keepdims = _options(call)
        axis = single_axis(call, v.type.ndim, "argmax/argmin take")
        return arg_reduce(call.c, kind, v, axis, keepdims, call.node)

    return emit


# --- np.var / np.std ------------------------------------------------------------------------


def _moment_type_rule(name: str) -> Any:
    def rule(call: TypeCall) -> FType | None:
        call.only("axis", "keepdims", "ddof")
        if not call.args or len(call.args) > 2:
            raise call.error(f"np.{name}: pass only the array and axis positionally",
                             f"np.{name}(x, axis=..., ddof=..., keepdims=...)")
        t = call.args[0]
        if t is None:
            return None
        if not isinstance(t, Array):
            raise call.error(f"np.{name} needs an array, got {t}")
        if "ddof" in call.keywords:
            d = call.typeof(call.keywords["ddof"])
            if d is not None and not (isinstance(d, Scalar) and d != BOOL):
                raise call.error(f"np.{name}: ddof must be a number, got {d}",
                                 node=call.keywords["ddof"])
        axis, keepdims = _options(call)
        axes = normalize_axes(call, t.ndim, axis)
        elem = t.elem if t.elem.is_float else F64
        rank = t.ndim if keepdims else t.ndim - len(axes)
        return elem if rank == 0 else Array(elem, rank)

    return rule


def moment(c: Any, name: str, v: Any, axes: tuple[int, ...], keepdims: bool, ddof: SVal,
           node: ast.AST) -> Any:
    """np.var (`name` "var") or np.std of `v` over `axes`: two passes (the mean, then the
    squared deviations), divided by max(n - ddof, 0) as NumPy does."""
    b = c.b
    view = c.view(v, node)  # read twice: a lazy operand is computed once
    elem = view.type.elem if view.type.elem.is_float else F64
    src = L.converted(c, L.of_view(c, view), elem)
    whole = len(axes) == len(src.dims)
    mean = reduce(c, "mean", src, axes, not whole, node)
    centre = L.broadcast_to(c, L.of_view(c, mean), src.dims) if not whole else None

    def squared(idx: list[Value]) -> Value:
        m = mean.v if centre is None else centre.element(idx)
        d = c.b.fsub(src.element(idx), m)
        return c.b.fmul(d, d)

    total = reduce(c, "sum", L.Lazy(src.type, src.dims, squared, src.reads), axes, keepdims,
                   node)
    n = convert(b, SVal(I64, L.count_of(c, [src.dims[a] for a in axes])), elem).v
    denom = b.fsub(n, convert(b, ddof, elem).v)
    zero = const_float(elem.ir, 0.0)
    denom = b.select(b.fcmp("olt", denom, zero), zero, denom)

    def finish(x: Value) -> Value:
        r = c.b.fdiv(x, denom)
        return r if name == "var" else emit_math(c.b, c.fn.parent, "sqrt", [r])

    if isinstance(total, SVal):
        return SVal(elem, finish(total.v))
    return lift(c, [total], elem, lambda x: SVal(elem, finish(x[0].v)), node)


def _moment_emitter(name: str) -> Any:
    def emit(call: EmitCall) -> Any:
        c = call.c
        v = call.args[0]
        axis, keepdims = _options(call)
        axes = normalize_axes(call, v.type.ndim, axis)
        ddof_node = call.keywords.get("ddof")
        ddof = c.expr(ddof_node) if ddof_node is not None else SVal(I64, ConstantInt(T.I64, 0))
        return moment(c, name, v, axes, keepdims, ddof, call.node)

    return emit


for _kind in ("max", "min"):
    array_function(getattr(np, f"arg{_kind}"), type_rule=_arg_type_rule(_kind),
                   method=f"arg{_kind}")(_arg_emitter(_kind))
for _name in ("var", "std"):
    array_function(getattr(np, _name), type_rule=_moment_type_rule(_name),
                   method=_name)(_moment_emitter(_name))
