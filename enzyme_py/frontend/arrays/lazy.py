"""Lazy element-wise array expressions: fused into their consumer, materialized on demand.

A `Lazy` is an array whose elements are not stored anywhere: `element(idx)` emits the code
computing the element at `idx` (one in-range i64 index per extent) at the compiler's builder.
Element-wise operators build `Lazy` trees over views, scalars and other `Lazy`s, so
`np.sum(np.exp(x) * y)` is one loop that loads `x[i]` and `y[i]`, with no temporary.

Broadcasting follows NumPy: shapes align at the right; an extent of 1 stretches. Extents are
run-time values, so an extent that may be 1 is handled by a multiplier `(d != 1)` on its
index, computed once before the loops, and a shape mismatch is a recorded error (`ValueError`
naming the source line). Extents known equal at compile time (the same IR value, or equal
constants) need neither.

Invariants: building a `Lazy` emits only loop-invariant code (extents, multipliers, checks);
all per-element code is emitted by `element`, at the consumer's position, exactly once per
element; `materialize` gives a fresh C-contiguous heap buffer (a temporary of the statement),
holding only the selected elements for a masked selection (`compact`; see `masks`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Union

from enzyme_py.frontend.arrays import loops
from enzyme_py.frontend.ftypes import Array, Scalar
from enzyme_py.frontend.values import AVal, SVal, add_i64, c_strides, convert, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.instructions import BinaryOp
from enzyme_py.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling


@dataclass
class Lazy:
    type: Array
    dims: list[Value]
    element: Callable[[list[Value]], Value]  # idx -> IR value of type.elem
    reads: list[AVal] = field(default_factory=list)  # views it loads from (overlap checks)
    # a boolean-mask selection (see `masks`): idx -> i1, whether element idx is selected;
    # only reductions and element-wise operations with numbers read a masked Lazy as such
    mask: Callable[[list[Value]], Value] | None = None
    # the same expression read at a larger (checked) broadcast shape, broadcasting its
    # leaves: views get stride 0 on stretched axes (see `broadcast_to`)
    rebroadcast: Callable[[list[Value]], Lazy] | None = None
    # the same expression when no extent known only at run time is stretched (all the
    # conditions in `assume` hold): plain strides, which vectorize; see `versioned`
    fast: Lazy | None = None
    assume: tuple[Value, ...] = ()
    # axes k whose index pair (i_k, i_k+1) the element reads only as one flat index
    # i_k * d_k+1 + i_k+1: element(idx) is element(idx with 0 at k and that index at k + 1),
    # so a consumer may run axes k and k + 1 as one loop (see `loops.joined_nest`)
    joins: frozenset[int] = frozenset()


ArrayValue = Union[AVal, Lazy]  # noqa: UP007 - a runtime alias


def is_array(v: object) -> bool:
    return isinstance(v, AVal | Lazy)


def same_extent(a: Value, b: Value) -> bool:
    if a is b:
        return True
    return isinstance(a, ConstantInt) and isinstance(b, ConstantInt) and a.value == b.value


def _is_one(d: Value) -> bool:
    return isinstance(d, ConstantInt) and d.value == 1


# --- reading elements -----------------------------------------------------------------------


def element_address(c: Compiling, v: AVal, idx: list[Value]) -> Value:
    b = c.b
    flat: Value = ConstantInt(T.I64, 0)
    for i, s in zip(idx, v.strides, strict=True):
        flat = add_i64(b, flat, mul_i64(b, i, s))
    return b.getelementptr(v.type.elem.ir, v.ptr, [flat])


def of_view(c: Compiling, v: AVal, joins: frozenset[int] | None = None) -> Lazy:
    """`v` read element by element; `joins` (default: `view_joins(v)`) as `Lazy.joins`."""

    def element(idx: list[Value]) -> Value:
        redirected = c.carried.get(v.ptr)  # (a store reads this view its own way: `writes`)
        if redirected is not None:
            return redirected(idx)
        return c.b.load(v.type.elem.ir, element_address(c, v, idx))

    return Lazy(v.type.value, list(v.dims), element, [v],
                rebroadcast=lambda dims: _broadcast_leaf(c, v, dims),
                joins=view_joins(v) if joins is None else joins)


def view_joins(v: AVal, dims: list[Value] | None = None) -> frozenset[int]:
    """The axes k of `v` whose stride is known at compile time to be the next axis's
    stride times its extent (`dims`, default v's own): element (.., i, j, ..) is at the
    flat index i * d + j of axis k + 1. A C-contiguous view joins every axis."""
    n = len(v.dims)
    if v.contiguous:
        return frozenset(range(n - 1))
    dims = v.dims if dims is None else dims
    return frozenset(k for k in range(n - 1)
                     if _is_product(v.strides[k], v.strides[k + 1], dims[k + 1]))


def _is_product(s: Value, inner: Value, d: Value) -> bool:
    """Whether `s` is known to equal `inner * d` (both stride 0, `d` itself for an inner
    stride of 1, the very `mul` of the two, or constants)."""
    if isinstance(s, ConstantInt) and isinstance(inner, ConstantInt):
        if s.value == 0 and inner.value == 0:
            return True
        if isinstance(d, ConstantInt):
            return s.value == inner.value * d.value
    if isinstance(inner, ConstantInt) and inner.value == 1 and s is d:
        return True
    return (isinstance(s, BinaryOp) and s.opcode == "mul"
            and {id(s.lhs), id(s.rhs)} == {id(inner), id(d)})


def _broadcast_leaf(c: Compiling, v: AVal, dims: list[Value]) -> Lazy:
    general, fast, assume = broadcast_view(c, v, dims)
    out = of_view(c, general)
    out.rebroadcast = lambda more: _broadcast_leaf(c, v, more)  # from the original view
    if assume:
        # (the fast form holds where each run-time extent equals the broadcast one, so its
        # strides are checked against v's own extents)
        off = len(dims) - len(v.dims)
        out.fast, out.assume = of_view(c, fast, view_joins(fast, [*dims[:off], *v.dims])), \
            tuple(assume)
    return out


def broadcast_view(c: Compiling, v: AVal, dims: list[Value]
                   ) -> tuple[AVal, AVal, list[Value]]:
    """`v` as a view of the (checked) broadcast shape `dims`: a stretched axis has stride 0.

    An axis whose extent is known only at run time may or may not stretch: its stride is
    `select(d == 1, 0, s)` in the general view, and the fast view keeps `s` under the
    assumption `d == out` (returned), so the consumer can run a loop with plain strides
    when nothing stretches (`versioned`)."""
    b = c.b
    off = len(dims) - len(v.dims)
    zero = ConstantInt(T.I64, 0)
    strides: list[Value] = [zero] * off
    plain: list[Value] = [zero] * off
    assume: list[Value] = []
    for d, s, out in zip(v.dims, v.strides, dims[off:], strict=True):
        if same_extent(d, out):
            strides.append(s)
            plain.append(s)
        elif _is_one(d):
            strides.append(zero)
            plain.append(zero)
        else:
            strides.append(b.select(b.icmp("eq", d, ConstantInt(T.I64, 1)), zero, s))
            plain.append(s)
            assume.append(b.icmp("eq", d, out))
    t = Array(v.type.elem, len(dims))
    # (where `assume` holds nothing stretches, so a slice keeps its origin: see `writes`)
    origin = v.origin if len(dims) == len(v.dims) else None
    return (AVal(t, v.ptr, list(dims), strides, False, v.root, None, origin),
            AVal(t, v.ptr, list(dims), plain, False, v.root, None, origin), assume)


def versioned(c: Compiling, v: Lazy, emit: Callable[[Lazy], None]) -> None:
    """`emit(v)` (code reading v's elements), twice when v has a fast form: with plain
    strides when nothing stretches at run time, else the general form.

    In an optimistic compile (a gradient's first; see `compile_python`) the general form is
    not emitted: where something stretches, the function leaves with the request for the
    version that has it (as a loop whose bounds test fails leaves for its checked copy), so
    the gradient, its tape and LLVM's work are not doubled for a case most calls never
    meet."""
    if v.fast is None or not v.assume:
        emit(v)
        return
    b = c.b
    test: Value = ConstantInt(T.I1, 1)
    for cond in v.assume:
        test = b.binop("and", test, cond)
    fast, general, done = (c.new_block("bcast.none"), c.new_block("bcast.some"),
                           c.new_block("bcast.end"))
    b.condbr(test, fast, general)
    b.position_at_end(fast)
    emit(v.fast)
    b.br(done)
    b.position_at_end(general)
    if c.session.optimistic:
        c.leave_for_retry(b)
    else:
        emit(v)
        b.br(done)
    b.position_at_end(done)


def with_fast(out: Lazy, v: Lazy, make: Callable[[Lazy], Lazy]) -> Lazy:
    """`out` (made from `v` by `make`) with the fast form made the same way from v's."""
    if v.fast is not None and v.assume:
        out.fast, out.assume = make(v.fast), v.assume
    return out


def as_lazy(c: Compiling, v: ArrayValue, node: ast.AST | None = None) -> Lazy:
    """`v` read element by element (a masked selection is compacted first)."""
    if isinstance(v, Lazy) and v.mask is not None:
        return of_view(c, compact(c, v, node or c.fdef))
    return v if isinstance(v, Lazy) else of_view(c, v)


def converted(c: Compiling, v: Lazy, elem: Scalar) -> Lazy:
    """`v` with elements converted to `elem` (NumPy's casting on promotion)."""
    if v.type.elem == elem:
        return v

    def element(idx: list[Value]) -> Value:
        return convert(c.b, SVal(v.type.elem, v.element(idx)), elem).v

    return with_fast(Lazy(Array(elem, v.type.ndim), v.dims, element, v.reads,
                          joins=v.joins), v, lambda f: converted(c, f, elem))


# --- broadcasting ---------------------------------------------------------------------------


def broadcast_dims(c: Compiling, shapes: list[list[Value]], node: ast.AST) -> list[Value]:
    """The broadcast shape of `shapes`, with a run-time check where extents may differ."""
    b = c.b
    rank = max((len(s) for s in shapes), default=0)
    out: list[Value] = []
    for k in range(rank):
        axis = rank - 1 - k  # position from the right
        ds = [s[len(s) - rank + k] for s in shapes if len(s) - rank + k >= 0]
        ds = [d for d in ds if not _is_one(d)] or [ConstantInt(T.I64, 1)]
        cur = ds[0]
        for d in ds[1:]:
            if same_extent(cur, d):
                continue
            if isinstance(cur, ConstantInt) and isinstance(d, ConstantInt):
                raise c.src.error(node, f"operands could not be broadcast together: extents "
                                  f"{cur.value} and {d.value} on axis {k}")
            one_c = b.icmp("eq", cur, ConstantInt(T.I64, 1))
            ok = b.binop("or", b.binop("or", b.icmp("eq", cur, d), one_c),
                         b.icmp("eq", d, ConstantInt(T.I64, 1)))
            c.check(ok, node, "broadcast", cur, d, axis)
            cur = b.select(one_c, d, cur)
        out.append(cur)
    return out


def broadcast_to(c: Compiling, v: Lazy, dims: list[Value]) -> Lazy:
    """`v` read at indexes of the (already checked) broadcast shape `dims`."""
    off = len(dims) - len(v.dims)
    assert off >= 0
    if off == 0 and all(same_extent(a, d) for a, d in zip(v.dims, dims, strict=True)):
        return v
    if v.rebroadcast is not None and v.mask is None:
        return v.rebroadcast(dims)
    b = c.b
    scale: list[Value | None] = []  # per axis of v: None (index as is), 0, or (d != 1)
    for d, out in zip(v.dims, dims[off:], strict=True):
        if same_extent(d, out):
            scale.append(None)
        elif _is_one(d):
            scale.append(ConstantInt(T.I64, 0))
        else:
            scale.append(b.zext(b.icmp("ne", d, ConstantInt(T.I64, 1)), T.I64))

    def element(idx: list[Value]) -> Value:
        inner = []
        for i, s in zip(idx[off:], scale, strict=True):
            inner.append(i if s is None else mul_i64(c.b, i, s))
        return v.element(inner)

    out = Lazy(Array(v.type.elem, len(dims)), list(dims), element, v.reads)
    assume = [b.icmp("eq", d, o) for d, o, s in zip(v.dims, dims[off:], scale, strict=True)
              if s is not None and not isinstance(s, ConstantInt)]
    if assume and v.mask is None:  # nothing stretches: read v at the index as it is
        base = v.fast or v
        out.fast = Lazy(out.type, list(dims), lambda idx: base.element(idx[off:]), v.reads,
                        joins=frozenset(k + off for k in base.joins))
        out.assume = (*v.assume, *assume)
    return out


def scalar_lazy(c: Compiling, s: SVal, dims: list[Value]) -> Lazy:
    return Lazy(Array(s.type, len(dims)), list(dims), lambda idx: s.v,
                joins=frozenset(range(len(dims) - 1)))


# --- materialization ------------------------------------------------------------------------


def count_of(c: Compiling, dims: list[Value]) -> Value:
    n: Value = ConstantInt(T.I64, 1)
    for d in dims:
        n = mul_i64(c.b, n, d)
    return n


def fresh(c: Compiling, t: Array, dims: list[Value], node: ast.AST) -> AVal:
    """A new uninitialized C-contiguous array (a heap temporary of the statement)."""
    ptr = c.heap.allocate(t.elem, count_of(c, dims), node)
    return AVal(t.value, ptr, list(dims), c_strides(c.b, dims), True, ("temp", ptr), ptr)


def store_elements(c: Compiling, dest: AVal, v: Lazy) -> None:
    """dest[...] = v, element by element (no overlap check: see `writes`)."""
    elem = dest.type.elem

    def emit(form: Lazy) -> None:
        def body(idx: list[Value]) -> None:
            x = convert(c.b, SVal(form.type.elem, form.element(idx)), elem).v
            c.b.store(x, element_address(c, dest, idx))

        loops.joined_nest(c, list(dest.dims), form.joins & view_joins(dest), body)

    versioned(c, v, emit)


def fill(c: Compiling, out: AVal, value: Value) -> None:
    """Every element of the view `out` set to `value` (joined axes run as one loop, so a
    C-contiguous `out` is one loop, which LLVM makes one memset for zero, not one per row)."""
    loops.joined_nest(c, out.dims, view_joins(out),
                      lambda idx: c.b.store(value, element_address(c, out, idx)))


def materialize(c: Compiling, v: ArrayValue, node: ast.AST) -> AVal:
    """`v` as a view; a `Lazy` is computed into a fresh buffer."""
    if isinstance(v, AVal):
        return v
    if v.mask is not None:
        return compact(c, v, node)
    out = fresh(c, v.type, v.dims, node)
    store_elements(c, out, v)
    return out


def copy(c: Compiling, v: ArrayValue, node: ast.AST) -> AVal:
    """A fresh C-contiguous copy of `v` (even when `v` is a view already)."""
    lz = as_lazy(c, v)
    out = fresh(c, lz.type, lz.dims, node)
    store_elements(c, out, lz)
    return out


# --- masked selections (see `masks`) ---------------------------------------------------------


def compact(c: Compiling, v: Lazy, node: ast.AST) -> AVal:
    """A masked lazy's selected elements in a fresh buffer of their number."""
    assert v.mask is not None
    b = c.b
    n = c.alloca_at.alloca(T.I64, name="selected")
    b.store(ConstantInt(T.I64, 0), n)
    loops.nest(c, v.dims, lambda idx: when(c, v.mask(idx), lambda: b.store(  # type: ignore
        b.add(b.load(T.I64, n), ConstantInt(T.I64, 1)), n)))
    count = b.load(T.I64, n)
    ptr = c.heap.allocate(v.type.elem, count, node)
    out = AVal(v.type, ptr, [count], c_strides(b, [count]), True, ("temp", ptr), ptr)
    b.store(ConstantInt(T.I64, 0), n)

    def put(idx: list[Value]) -> None:
        def take() -> None:
            k = b.load(T.I64, n)
            c.heap.begin_statement()
            b.store(v.element(idx), element_address(c, out, [k]))
            c.heap.end_statement()
            b.store(add_i64(b, k, ConstantInt(T.I64, 1)), n)

        when(c, v.mask(idx), take)  # type: ignore[misc]

    loops.nest(c, v.dims, put)
    return out


def when(c: Compiling, cond: Value, then: Callable[[], None]) -> None:
    """Emit `then()` where `cond` holds."""
    yes, done = c.new_block("mask.take"), c.new_block("mask.next")
    c.b.condbr(cond, yes, done)
    c.b.position_at_end(yes)
    then()
    c.b.br(done)
    c.b.position_at_end(done)
