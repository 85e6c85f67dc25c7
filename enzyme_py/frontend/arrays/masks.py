"""Indexing by arrays: boolean masks (`x[x > 0]`) and integer index arrays (`x[idx]`).

A mask selects a run-time number of elements. `x[m]` is a lazy 1-D array whose elements are
the selected ones in row-major order: a reduction consumes it in one loop that evaluates an
element only where the mask holds (`np.sum(np.sqrt(x[x > 0]))` never takes the root of a
negative number, so its gradient has no NaN); an element-wise operation with numbers keeps
it lazy; anything else (a variable, an operation with another array) first compacts it into
a fresh buffer of the selected length (`lazy.compact`: two passes, count then copy).
`x[m] = v` and `x[m] += v` update the selected elements in place (v a number). An integer
index array gathers: `x[idx]` has idx's shape (followed by x's other axes), each index wrapped
once when negative and bounds-checked.

Invariants: a mask has exactly the indexed array's shape (a recorded `ValueError`
otherwise, as NumPy's `IndexError`... is reported with the source line); the selected elements are
visited in row-major order; the compacted buffer is a temporary of the statement like any other.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import loops
from enzyme_py.frontend.ftypes import BOOL, Array, Scalar
from enzyme_py.frontend.values import AVal, SVal, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling


def unravel(c: Compiling, k: Value, dims: list[Value]) -> list[Value]:
    """The row-major index of flat position k in an array of extents `dims`."""
    if len(dims) == 1:
        return [k]
    b = c.b
    out: list[Value] = []
    for d in reversed(dims[1:]):
        out.append(b.binop("urem", k, d))
        k = b.binop("udiv", k, d)
    out.append(k)
    return out[::-1]


def _check_shape(c: Compiling, mask: L.Lazy, dims: list[Value], node: ast.AST) -> None:
    if mask.type.ndim != len(dims):
        raise c.src.error(node, f"a {mask.type.ndim}-D boolean mask indexes a {len(dims)}-D "
                          "array", "a mask of the array's own shape")
    for k, (a, d) in enumerate(zip(mask.dims, dims, strict=True)):
        if not L.same_extent(a, d):
            c.check(c.b.icmp("eq", a, d), node, "shape mismatch", a, d, k)


def masked(c: Compiling, base: AVal, mask: Any, node: ast.AST) -> L.Lazy:
    """`base[mask]` as a lazy 1-D array of the selected elements."""
    m = L.as_lazy(c, mask)
    if m.type.elem != BOOL:
        raise c.src.error(node, f"an array index must be boolean or integer, not "
                          f"{m.type.elem}")
    _check_shape(c, m, base.dims, node)
    dims = list(base.dims)
    view = L.of_view(c, base)

    def element(idx: list[Value]) -> Value:
        return view.element(unravel(c, idx[0], dims))

    def selected(idx: list[Value]) -> Value:
        return m.element(unravel(c, idx[0], dims))

    return L.Lazy(Array(base.type.elem, 1), [L.count_of(c, dims)], element, [base, *m.reads],
                  mask=selected)


def reduce_masked(c: Compiling, kind: str, v: L.Lazy, acc_elem: Scalar,
                  identity: Value, combine: Any, node: ast.AST) -> SVal:
    """A whole reduction of a masked lazy: one loop, elements evaluated where selected."""
    b = c.b
    acc = c.alloca_at.alloca(acc_elem.ir, name=kind)
    b.store(identity, acc)
    n = c.alloca_at.alloca(T.I64, name="selected")
    b.store(ConstantInt(T.I64, 0), n)

    def body(idx: list[Value]) -> None:
        def take() -> None:
            c.heap.begin_statement()  # what the element allocates stays on this path
            x = convert(b, SVal(v.type.elem, v.element(idx)),
                        BOOL if kind in ("any", "all") else acc_elem).v
            c.heap.end_statement()
            b.store(combine(c, kind, acc_elem, b.load(acc_elem.ir, acc), x), acc)
            b.store(b.add(b.load(T.I64, n), ConstantInt(T.I64, 1)), n)

        L.when(c, v.mask(idx), take)  # type: ignore[misc]

    loops.nest(c, v.dims, body)
    total = SVal(acc_elem, b.load(acc_elem.ir, acc))
    count = b.load(T.I64, n)
    zero = ConstantInt(T.I64, 0)
    if kind in ("max", "min"):
        c.check(b.icmp("sgt", count, zero), node, "empty reduction", count, zero, 0)
    if kind == "mean":
        total = SVal(acc_elem, b.fdiv(total.v, convert(b, SVal(Scalar("i64"), count),
                                                         acc_elem).v))
    return total


def gather(c: Compiling, base: AVal, index: Any, node: ast.AST) -> L.Lazy:
    """`base[idx]` for an integer array idx: idx's shape, then base's other axes."""
    ix = L.as_lazy(c, index)
    if ix.type.elem.is_float or ix.type.elem == BOOL:
        raise c.src.error(node, "an index array must hold integers")
    dims = [*ix.dims, *base.dims[1:]]
    rank = ix.type.ndim
    view = L.of_view(c, base)

    def element(idx: list[Value]) -> Value:
        b = c.b
        i = convert(b, SVal(ix.type.elem, ix.element(idx[:rank])), Scalar("i64")).v
        d = base.dims[0]
        i = b.select(b.icmp("slt", i, ConstantInt(T.I64, 0)), b.add(i, d), i)
        if c.session.bounds_check:
            c.check(b.icmp("ult", i, d), node, "index", i, d, 0)
        return view.element([i, *idx[rank:]])

    return L.Lazy(Array(base.type.elem, len(dims)), dims, element, [base, *ix.reads])


def masked_store(c: Compiling, dest: AVal, mask: Any, value: Any, op: Any,
                 node: ast.AST) -> None:
    """dest[mask] = value (op None) or dest[mask] op= value, for a number `value`."""
    if not isinstance(value, SVal):
        raise c.src.error(node, "only a number can be stored through a boolean mask",
                          "x[m] = 0.0, or np.where(m, new, x) for an array of new values")
    m = L.as_lazy(c, mask)
    _check_shape(c, m, dest.dims, node)
    elem = dest.type.elem

    def body(idx: list[Value]) -> None:
        def take() -> None:
            at = L.element_address(c, dest, idx)
            v = value
            if op is not None:
                v = c.binop(op, SVal(elem, c.b.load(elem.ir, at)), value, node)
            c.b.store(convert(c.b, v, elem).v, at)

        L.when(c, m.element(idx), take)

    loops.nest(c, dest.dims, body)
