"""Bounds checks proven once per loop: innermost `for` loops run a version without them.

An index check inside a loop is a conditional exit on every iteration: it keeps LLVM from
vectorizing the loop, and in a gradient it gives the reversed loop a second entry. For an
innermost `for i in range(start, stop)` loop (step 1), the subscripts whose every index is
`i + c`, a constant, or a name the loop does not assign are in bounds on every iteration iff
they are at the first and the last one (the index is monotone in `i`). So the loop is compiled
twice: a test before it picks the version without those checks when they all hold, else the
checked original, which raises the same `IndexError` at the same place as before.

A *counter* — an int the body changes only by one top-level `v += c` (or `v -= c`), c a
constant, in a body without `continue` — is affine in `i` too: a subscript in a statement
before the increment sees `v0 + c (i - start)`, one after it `v0 + c (i - start + 1)` (v0 its
value before the loop). Packed-triangle code (`icf[k, li]` with `li += 1`) is the case in point.

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
    kind: str  # "iv" (loop variable + offset), "const", "name" (loop-invariant variable) or
    #            "counter" (name + step * (iterations done + phase) + offset)
    offset: int = 0
    name: str = ""
    step: int = 0
    phase: int = 0  # 1 when the subscript comes after the counter's increment


@dataclass(frozen=True)
class Counter:
    step: int  # the constant added once per iteration
    at: int  # the index of the top-level statement that adds it


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
    counters = _counters(loop.body, typer_env)
    out: list[Access] = []
    for at, stmt in enumerate(loop.body):
        for n in ast.walk(stmt):
            if not isinstance(n, ast.Subscript) or not isinstance(n.value, ast.Name):
                continue
            name = n.value.id
            if name in assigned or not isinstance(typer_env.get(name), Array):
                continue
            parts = n.slice.elts if isinstance(n.slice, ast.Tuple) else [n.slice]
            if len(parts) != typer_env[name].ndim:
                continue
            indexes = [_index(p, iv, assigned, typer_env, counters, at) for p in parts]
            if all(i is not None for i in indexes):
                out.append(Access(n, name, tuple(indexes)))  # type: ignore[arg-type]
    return out


def _counters(body: list[ast.stmt], env: dict) -> dict[str, Counter]:
    """The body's counters (see the module docstring): ints whose one store is a top-level
    `v += c` / `v -= c`; none when the body may `continue` (an iteration would skip it)."""
    if any(isinstance(n, ast.Continue) for st in body for n in ast.walk(st)):
        return {}
    found: dict[str, Counter] = {}
    for at, st in enumerate(body):
        if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and \
                isinstance(st.op, (ast.Add, ast.Sub)) and \
                isinstance(st.value, ast.Constant) and type(st.value.value) is int:
            t = env.get(st.target.id)
            c = st.value.value if isinstance(st.op, ast.Add) else -st.value.value
            if isinstance(t, Scalar) and t.is_int and st.target.id not in found and \
                    abs(c) < _STEP_LIMIT:
                found[st.target.id] = Counter(c, at)
    stores: dict[str, int] = {}
    for st in body:
        for n in ast.walk(st):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                stores[n.id] = stores.get(n.id, 0) + 1
    return {v: k for v, k in found.items() if stores.get(v) == 1}


def _index(e: ast.expr, iv: str, assigned: set[str], env: dict,
           counters: dict[str, Counter], at: int) -> Index | None:
    if isinstance(e, ast.Constant) and type(e.value) is int:
        return Index("const", e.value)
    if isinstance(e, ast.Name):
        if e.id == iv:
            return Index("iv", 0)
        counter = counters.get(e.id)
        if counter is not None and at != counter.at:
            return Index("counter", 0, e.id, counter.step, int(at > counter.at))
        t = env.get(e.id)
        if e.id not in assigned and isinstance(t, Scalar) and t.is_int:
            return Index("name", 0, e.id)
        return None
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub)) and \
            isinstance(e.right, ast.Constant) and type(e.right.value) is int:
        inner = _index(e.left, iv, assigned, env, counters, at)
        if inner is None or inner.kind not in ("iv", "counter"):
            return None
        c = e.right.value if isinstance(e.op, ast.Add) else -e.right.value
        return Index(inner.kind, inner.offset + c, inner.name, inner.step, inner.phase)
    return None


def all_in_bounds(c: Compiling, accesses: list[Access], start: Value,
                  stop: Value) -> Value:
    """An i1 that holds iff every index of `accesses` is in bounds on every iteration of a
    loop from `start` to `stop` (step 1); true when the loop runs no iteration."""
    b = c.b
    last = b.sub(stop, ConstantInt(T.I64, 1))
    ok: Value = b.icmp("sge", start, stop)  # no iteration
    conds: list[Value] = []
    if any(i.kind == "counter" for acc in accesses for i in acc.indexes):
        # (bounds that keep `v0 + step * iterations` far from overflowing)
        conds.append(b.icmp("sgt", start, ConstantInt(T.I64, -_VALUE_LIMIT)))
        conds.append(b.icmp("slt", stop, ConstantInt(T.I64, _VALUE_LIMIT)))
        conds.append(b.icmp("slt", b.sub(stop, start), ConstantInt(T.I64, _TRIP_LIMIT)))
    for acc in accesses:
        arr = c.load_var(acc.array)
        assert isinstance(arr, AVal)
        for idx, dim in zip(acc.indexes, arr.dims, strict=True):
            if idx.kind == "iv":
                lo = b.add(start, ConstantInt(T.I64, idx.offset))
                hi = b.add(last, ConstantInt(T.I64, idx.offset))
            elif idx.kind == "counter":
                v0 = _int_var(c, idx.name)
                conds.append(b.icmp("slt", v0, ConstantInt(T.I64, _VALUE_LIMIT)))
                conds.append(b.icmp("sgt", v0, ConstantInt(T.I64, -_VALUE_LIMIT)))
                first = b.add(v0, ConstantInt(T.I64, idx.step * idx.phase + idx.offset))
                steps = b.sub(last, start)  # iterations before the last one
                at_last = b.add(first, b.mul(steps, ConstantInt(T.I64, idx.step)))
                lo, hi = (first, at_last) if idx.step >= 0 else (at_last, first)
            else:
                lo = hi = ConstantInt(T.I64, idx.offset) if idx.kind == "const" else \
                    _int_var(c, idx.name)
            conds.append(b.icmp("sge", lo, ConstantInt(T.I64, 0)))
            conds.append(b.icmp("slt", hi, dim))
    every: Value = ConstantInt(T.I1, 1)
    for cond in conds:
        every = b.binop("and", every, cond)
    return b.binop("or", ok, every)


_STEP_LIMIT = 1 << 20  # |step| of a counter
_TRIP_LIMIT = 1 << 40  # iterations of a loop with counter subscripts
_VALUE_LIMIT = 1 << 61  # |v0| of a counter (so v0 + step * trips never overflows)


def _int_var(c: Compiling, name: str) -> Value:
    from enzyme_py.frontend.ftypes import I64
    from enzyme_py.frontend.values import convert

    v = c.load_var(name)
    return convert(c.b, v, I64).v  # type: ignore[arg-type]
