"""Bounds checks proven once per loop: innermost `for` loops run a version without them.

An index check inside a loop is a conditional exit on every iteration: it keeps LLVM from
vectorizing the loop, and in a gradient it gives the reversed loop a second entry. For an
innermost `for i in range(start, stop)` loop (step 1), the subscripts whose every index is
`i + c`, a constant, or a name the loop does not assign are in bounds on every iteration iff
they are at the first and the last one (the index is monotone in `i`). So the loop is compiled
twice: a test before it picks the version without those checks when they all hold, else the
checked original, which raises the same `IndexError` at the same place as before.

Invariant: a subscript is unchecked only when the test before the loop proved its indexes lie
in `[0, extent)` for every iteration; negative indexes (Python's wrap-around) take the checked
version.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from enzyme_py.frontend.ftypes import Array, Scalar
from enzyme_py.frontend.values import AVal
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling


@dataclass(frozen=True)
class Index:
    kind: str  # "iv" (loop variable + offset), "const", or "name" (loop-invariant variable)
    offset: int = 0
    name: str = ""


@dataclass(frozen=True)
class Access:
    node: ast.Subscript
    array: str
    indexes: tuple[Index, ...]


def plan(loop: ast.For, typer_env: dict) -> list[Access]:
    """The subscripts of an innermost loop whose checks can be proven before it (empty when
    the loop is not innermost or assigns its own variable)."""
    assert isinstance(loop.target, ast.Name)
    iv = loop.target.id
    body = ast.Module(body=loop.body, type_ignores=[])
    if any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(body)):
        return []
    assigned = {n.id for n in ast.walk(body) if isinstance(n, ast.Name) and
                isinstance(n.ctx, (ast.Store, ast.Del))}
    if iv in assigned:
        return []
    out: list[Access] = []
    for n in ast.walk(body):
        if not isinstance(n, ast.Subscript) or not isinstance(n.value, ast.Name):
            continue
        name = n.value.id
        if name in assigned or not isinstance(typer_env.get(name), Array):
            continue
        parts = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
        if len(parts) != typer_env[name].ndim:
            continue
        indexes = [_index(p, iv, assigned, typer_env) for p in parts]
        if all(i is not None for i in indexes):
            out.append(Access(n, name, tuple(indexes)))  # type: ignore[arg-type]
    return out


def _index(e: ast.expr, iv: str, assigned: set[str], env: dict) -> Index | None:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return Index("const", e.value)
    if isinstance(e, ast.Name):
        if e.id == iv:
            return Index("iv", 0)
        t = env.get(e.id)
        if e.id not in assigned and isinstance(t, Scalar) and t.is_int:
            return Index("name", 0, e.id)
        return None
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)) and \
            isinstance(e.left, ast.Name) and e.left.id == iv and \
            isinstance(e.right, ast.Constant) and type(e.right.value) is int:
        c = e.right.value
        return Index("iv", c if isinstance(e.op, ast.Add) else -c)
    return None


def all_in_bounds(c: Compiling, accesses: list[Access], start: Value,
                  stop: Value) -> Value:
    """An i1 that holds iff every index of `accesses` is in bounds on every iteration of a
    loop from `start` to `stop` (step 1); true when the loop runs no iteration."""
    b = c.b
    last = b.sub(stop, ConstantInt(T.I64, 1))
    ok: Value = b.icmp("sge", start, stop)  # no iteration
    conds: list[Value] = []
    for acc in accesses:
        arr = c.load_var(acc.array)
        assert isinstance(arr, AVal)
        for idx, dim in zip(acc.indexes, arr.dims, strict=True):
            if idx.kind == "iv":
                lo = b.add(start, ConstantInt(T.I64, idx.offset))
                hi = b.add(last, ConstantInt(T.I64, idx.offset))
            else:
                lo = hi = ConstantInt(T.I64, idx.offset) if idx.kind == "const" else \
                    _int_var(c, idx.name)
            conds.append(b.icmp("sge", lo, ConstantInt(T.I64, 0)))
            conds.append(b.icmp("slt", hi, dim))
    every: Value = ConstantInt(T.I1, 1)
    for cond in conds:
        every = b.binop("and", every, cond)
    return b.binop("or", ok, every)


def _int_var(c: Compiling, name: str) -> Value:
    from enzyme_py.frontend.ftypes import I64
    from enzyme_py.frontend.values import convert

    v = c.load_var(name)
    return convert(c.b, v, I64).v  # type: ignore[arg-type]
