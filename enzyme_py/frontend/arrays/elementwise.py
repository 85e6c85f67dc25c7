"""Element-wise operators and functions on arrays: one scalar rule, lifted over elements.

`lift(c, args, elem, rule)` broadcasts the array arguments together and gives a `Lazy` whose
element applies `rule` (the scalar front end's own code for the operator or function) to the
arguments' elements; scalar arguments are computed once, before any loop. So an array
operator means exactly what the scalar one means, element by element (Python's `//` and `%`,
`**` by small integer constants as multiplications, NaN behaviour of comparisons).

Invariant: arithmetic operands are converted to the result's element type before the scalar
rule runs (NumPy computes `float32 * 2.0` in float32); a `**` exponent keeps its own type.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from enzyme_py.frontend.arrays.lazy import (
    Lazy,
    as_lazy,
    broadcast_dims,
    broadcast_to,
    is_array,
)
from enzyme_py.frontend.ftypes import BOOL, Array, Scalar
from enzyme_py.frontend.values import SVal, convert
from enzyme_py.ir.values import Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling


def lift(c: Compiling, args: list[Any], elem: Scalar,
         rule: Callable[[list[SVal]], SVal], node: ast.AST,
         operand_types: list[Scalar | None] | None = None) -> Lazy:
    """The element-wise application of `rule` to `args` (arrays broadcast together). A
    masked selection with only numbers beside it stays a masked selection."""
    arrays = [a for a in args if is_array(a)]
    if len(arrays) == 1 and isinstance(arrays[0], Lazy) and arrays[0].mask is not None:
        sel = arrays[0]
        inner = lift(c, [Lazy(sel.type, sel.dims, sel.element, sel.reads) if a is sel else a
                         for a in args], elem, rule, node, operand_types)
        return Lazy(inner.type, inner.dims, inner.element, inner.reads, sel.mask)
    lazies = [as_lazy(c, a, node) for a in args if is_array(a)]
    dims = broadcast_dims(c, [z.dims for z in lazies], node)
    parts: list[Any] = []
    reads = []
    for k, a in enumerate(args):
        want = operand_types[k] if operand_types is not None else None
        if is_array(a):
            z = broadcast_to(c, as_lazy(c, a, node), dims)
            reads.extend(z.reads)
            parts.append(z)
        else:
            assert isinstance(a, SVal)
            parts.append(convert(c.b, a, want) if want is not None else a)

    return _applied(c, parts, dims, elem, rule, operand_types, reads)


def _applied(c: Compiling, parts: list[Any], dims: list[Value], elem: Scalar,
             rule: Callable[[list[SVal]], SVal], operand_types: list[Scalar | None] | None,
             reads: list) -> Lazy:
    """The Lazy applying `rule` to `parts` (lazies already of shape `dims`, and numbers)."""

    def element(idx: list[Value]) -> Value:
        vals = []
        for k, p in enumerate(parts):
            if isinstance(p, Lazy):
                v = SVal(p.type.elem, p.element(idx))
                want = operand_types[k] if operand_types is not None else None
                vals.append(convert(c.b, v, want) if want is not None else v)
            else:
                vals.append(p)
        return convert(c.b, rule(vals), elem).v

    def rebroadcast(new_dims: list[Value]) -> Lazy:  # push the broadcast to the leaves
        moved = [broadcast_to(c, p, new_dims) if isinstance(p, Lazy) else p for p in parts]
        return _applied(c, moved, list(new_dims), elem, rule, operand_types, reads)

    joins = frozenset(range(len(dims) - 1))
    for p in parts:
        if isinstance(p, Lazy):
            joins &= p.joins
    out = Lazy(Array(elem, len(dims)), dims, element, reads, rebroadcast=rebroadcast,
               joins=joins)
    assume = tuple(a for p in parts if isinstance(p, Lazy) and p.fast is not None
                   for a in p.assume)
    if assume:  # the fast form: every operand in its fast form
        fast_parts = [p.fast if isinstance(p, Lazy) and p.fast is not None else p
                      for p in parts]
        out.fast = _applied(c, fast_parts, dims, elem, rule, operand_types, reads)
        out.assume = assume
    return out


def binop(c: Compiling, op: ast.operator, a: Any, b: Any, node: ast.AST) -> Lazy:
    t = c.typer.expr_type(node) if isinstance(node, ast.BinOp) else None
    elem = t.elem if isinstance(t, Array) else _binop_elem(op, a, b)
    if isinstance(op, ast.Pow):
        kinds: list[Scalar | None] = [elem, None]
    elif isinstance(op, (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)) or \
            elem == BOOL:
        kinds = [None, None]
    else:
        kinds = [elem, elem]
    if elem == BOOL and isinstance(op, (ast.Add, ast.Mult)):  # NumPy's logic: or, and
        logic = "or" if isinstance(op, ast.Add) else "and"
        return lift(c, [a, b], BOOL, lambda v: SVal(BOOL, c.b.binop(
            logic, convert(c.b, v[0], BOOL).v, convert(c.b, v[1], BOOL).v)), node, kinds)
    return lift(c, [a, b], elem, lambda v: c.binop(op, v[0], v[1], node), node, kinds)


def _binop_elem(op: ast.operator, a: Any, b: Any) -> Scalar:
    from enzyme_py.frontend.arrays.types import binop_elem

    return binop_elem(op, [x.type for x in (a, b)])


def compare(c: Compiling, op: ast.cmpop, a: Any, b: Any, node: ast.AST) -> Lazy:
    return lift(c, [a, b], BOOL, lambda v: SVal(BOOL, c.compare(op, v[0], v[1], node)), node)


def unary(c: Compiling, op: ast.unaryop, a: Any, node: ast.AST) -> Lazy:
    t = c.typer.expr_type(node)
    assert isinstance(t, Array)
    return lift(c, [a], t.elem, lambda v: c.unary(op, v[0], node), node)


def where(c: Compiling, cond: Any, x: Any, y: Any, elem: Scalar,
          node: ast.AST) -> Lazy:
    def rule(v: list[SVal]) -> SVal:
        test = convert(c.b, v[0], BOOL).v
        return SVal(elem, c.b.select(test, convert(c.b, v[1], elem).v,
                                     convert(c.b, v[2], elem).v))

    return lift(c, [cond, x, y], elem, rule, node)
