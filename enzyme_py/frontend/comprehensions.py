"""List comprehensions and generator expressions of numbers: lazy 1-D arrays.

`[e for i in range(a, b, s)]` and `(e for row in X)` are arrays whose element k is `e`
evaluated with the target bound to the k-th item (the range's value, the array's element or
row); nothing is stored unless a consumer needs the whole array: `sum(...)` and `np.sum(...)`
are one loop, `np.array([...])` fills a buffer. A filter (`if cond`) is allowed where the
length does not matter: in `sum(...)`, a filtered-out element counts as 0.

A comprehension of arrays (`[X[i] * i for i in range(n)]`, `[np.tanh(row) for row in X]`)
stacks them along a new first axis, as np.stack / np.array do: the first item gives the shape
every item must have (a recorded `ValueError` otherwise, and for no item at all).

Invariants: one `for` clause; a number element is evaluated exactly once per element, in
order, and only when the filter holds, so it may index what the filter guards (an array
element is evaluated for each of its elements read, and cannot be filtered); temporaries an
element makes are freed right after it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import views
from enzyme_py.frontend.ftypes import BOOL, I64, Array, FType, Scalar
from enzyme_py.frontend.values import SVal, add_i64, const, convert, mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling, TypeContext

Comprehension = ast.ListComp | ast.GeneratorExp


def _clause(src: Any, e: Comprehension, allow_filter: bool) -> ast.comprehension:
    if len(e.generators) != 1:
        raise src.error(e, "a comprehension with more than one 'for' is not supported",
                        "one 'for' clause; nest loops as statements")
    g = e.generators[0]
    if g.is_async:
        raise src.error(e, "async comprehensions are not supported")
    if g.ifs and not allow_filter:
        raise src.error(g.ifs[0], "a filtered comprehension has a length known only at run "
                        "time; it is supported inside sum(...)",
                        "sum(e for i in range(n) if cond), or np.where(cond, e, 0)")
    if not isinstance(g.target, ast.Name):
        raise src.error(g.target, "the comprehension variable must be a plain name")
    return g


def _is_range(typer: TypeContext, e: ast.expr) -> bool:
    import builtins

    return isinstance(e, ast.Call) and typer.resolve_global(e.func) is builtins.range


def element_type(typer: TypeContext, e: Comprehension, allow_filter: bool = False,
                 lenient: bool = True) -> FType | None:
    """The type of the comprehension's elements (binding its variable's type first)."""
    g = _clause(typer.src, e, allow_filter)
    assert isinstance(g.target, ast.Name)
    if _is_range(typer, g.iter):
        assert isinstance(g.iter, ast.Call)
        if not 1 <= len(g.iter.args) <= 3 or g.iter.keywords:
            raise typer.src.error(g.iter, "range() takes 1 to 3 integers")
        typer._assign_name(g.target.id, I64, g.target)
    else:
        t = typer.expr_type(g.iter, lenient)
        if t is None:
            return None
        if not isinstance(t, Array):
            raise typer.src.error(g.iter, "a comprehension runs over range(...) or an array",
                                  "[e for i in range(n)], (e for row in X)")
        item = t.elem if t.ndim == 1 else Array(t.elem, t.ndim - 1)
        typer._assign_name(g.target.id, item, g.target)
        if isinstance(item, Array):
            typer._not_contiguous.add(g.target.id)
            typer._may_view.add(g.target.id)
            root = typer.view_root(g.iter)
            if root is not None and root not in typer.fixed_params:
                typer.shared.add(root)
    for cond in g.ifs:
        typer.expr_type(cond, lenient)
    t = typer.expr_type(e.elt, lenient)
    if isinstance(t, Array) and g.ifs:
        raise typer.src.error(g.ifs[0], "a filtered comprehension of arrays is not supported",
                              "np.where(cond, e, 0) inside an unfiltered comprehension")
    if isinstance(t, Array):
        return t.value
    if t is not None and not isinstance(t, Scalar):
        raise typer.src.error(e.elt, f"a comprehension of {t} is not supported")
    return t


def comprehension_type(typer: TypeContext, e: Comprehension, lenient: bool = True) -> FType | None:
    """The comprehension's array type (a filter is refused where the code is generated:
    only `sum(...)` accepts one)."""
    t = element_type(typer, e, True, lenient)
    if isinstance(t, Array):  # arrays of one shape, stacked along a new first axis
        return Array(t.elem, t.ndim + 1)
    return None if t is None else Array(t, 1)  # type: ignore[arg-type]


def lazy(c: Compiling, e: Comprehension, allow_filter: bool = False) -> L.Lazy:
    """The comprehension as a lazy 1-D array (filtered-out elements read as 0)."""
    g = _clause(c.src, e, allow_filter)
    assert isinstance(g.target, ast.Name)
    elem_t = element_type(c.typer, e, allow_filter, lenient=False)
    if isinstance(elem_t, Array):
        return _stacked(c, e, g, elem_t)
    elem = elem_t
    assert isinstance(elem, Scalar)
    elem = I64 if elem == BOOL else elem
    target = g.target.id
    b = c.b
    if _is_range(c.typer, g.iter):
        assert isinstance(g.iter, ast.Call)
        vals = [c.int_value(a) for a in g.iter.args]
        one = ConstantInt(T.I64, 1)
        start, stop, step = (ConstantInt(T.I64, 0), vals[0], one) if len(vals) == 1 else \
            (vals[0], vals[1], vals[2] if len(vals) == 3 else one)
        count = _range_length(c, start, stop, step, g.iter)

        def bind(k: Value) -> None:
            c.store_var(target, SVal(I64, add_i64(c.b, start, mul_i64(c.b, k, step))), g)
    else:
        arr = c.view(c.expr(g.iter), g.iter)
        count = arr.dims[0]

        def bind(k: Value) -> None:
            c.store_var(target, views.item(c, arr, k), g)

    def element(idx: list[Value]) -> Value:
        bind(idx[0])
        if not g.ifs:
            return _evaluate(c, e.elt, elem)
        slot = c.alloca_at.alloca(elem.ir, name="comp.elt")
        c.b.store(const(elem, 0).v, slot)
        take, done = c.new_block("comp.take"), c.new_block("comp.next")
        test: Value = ConstantInt(T.I1, 1)
        for cond in g.ifs:
            test = c.b.binop("and", test, c.condition(cond))
        c.b.condbr(test, take, done)
        c.b.position_at_end(take)
        c.b.store(_evaluate(c, e.elt, elem), slot)
        c.b.br(done)
        c.b.position_at_end(done)
        return c.b.load(elem.ir, slot)

    del b
    return L.Lazy(Array(elem, 1), [count], element)


def _binder(c: Compiling, g: ast.comprehension) -> tuple[Value, Any]:
    """(the number of items, bind(k): the target bound to item k)."""
    assert isinstance(g.target, ast.Name)
    target = g.target.id
    if _is_range(c.typer, g.iter):
        assert isinstance(g.iter, ast.Call)
        vals = [c.int_value(a) for a in g.iter.args]
        one = ConstantInt(T.I64, 1)
        start, stop, step = (ConstantInt(T.I64, 0), vals[0], one) if len(vals) == 1 else \
            (vals[0], vals[1], vals[2] if len(vals) == 3 else one)
        count = _range_length(c, start, stop, step, g.iter)
        return count, lambda k: c.store_var(
            target, SVal(I64, add_i64(c.b, start, mul_i64(c.b, k, step))), g)
    arr = c.view(c.expr(g.iter), g.iter)
    return arr.dims[0], lambda k: c.store_var(target, views.item(c, arr, k), g)


def _stacked(c: Compiling, e: Comprehension, g: ast.comprehension, item: Array) -> L.Lazy:
    """`[a_i for i in ...]` of arrays: element (k, j...) is item k's element j (np.stack's
    layout). The first item, evaluated once, gives the shape every item must have; each
    element evaluates its item anew (its temporaries freed right after)."""
    count, bind = _binder(c, g)
    zero = ConstantInt(T.I64, 0)
    c.check(c.b.icmp("sgt", count, zero), e, "empty stack", count, zero, 0)
    bind(zero)
    first = L.as_lazy(c, c.expr(e.elt), e)
    dims = list(first.dims)

    def element(idx: list[Value]) -> Value:
        bind(idx[0])
        c.heap.begin_statement()
        try:
            it = L.as_lazy(c, c.expr(e.elt), e)
            for k, (d, want) in enumerate(zip(it.dims, dims, strict=True)):
                if not L.same_extent(d, want):
                    c.check(c.b.icmp("eq", d, want), e.elt, "shape mismatch", d, want, k + 1)
            return convert(c.b, SVal(it.type.elem, it.element(idx[1:])), item.elem).v
        finally:
            c.heap.end_statement()

    return L.Lazy(Array(item.elem, item.ndim + 1), [count, *dims], element)


def _evaluate(c: Compiling, e: ast.expr, elem: Scalar) -> Value:
    c.heap.begin_statement()  # what the element allocates is freed right after it
    try:
        return convert(c.b, c.scalar(e), elem).v
    finally:
        c.heap.end_statement()


def _range_length(c: Compiling, start: Value, stop: Value, step: Value,
                  node: ast.AST) -> Value:
    """len(range(start, stop, step)), as Python computes it (0 when empty)."""
    b = c.b
    zero, one = ConstantInt(T.I64, 0), ConstantInt(T.I64, 1)
    if isinstance(step, ConstantInt):
        if step.value == 0:
            raise c.src.error(node, "range() arg 3 must not be zero")
        mag = abs(step.value)
        span = b.sub(stop, start) if step.value > 0 else b.sub(start, stop)
        n = span if mag == 1 else b.binop("sdiv", b.add(span, ConstantInt(T.I64, mag - 1)),
                                          ConstantInt(T.I64, mag))
    else:
        c.check(b.icmp("ne", step, zero), node, "range step", step, zero, 2)
        up = b.icmp("sgt", step, zero)
        span = b.select(up, b.sub(stop, start), b.sub(start, stop))
        mag = b.select(up, step, b.sub(zero, step))
        n = b.binop("sdiv", b.add(span, b.sub(mag, one)), mag)
    return b.select(b.icmp("sgt", n, zero), n, zero)
