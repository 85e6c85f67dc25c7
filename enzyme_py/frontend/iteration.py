"""`for` loops over arrays: `for row in X`, `for i, v in enumerate(x)`, `for a, b in zip(x, y)`
and `for i, (a, b) in enumerate(zip(x, y))`, as data both the typer and the code generator
read.

Invariants: a loop over arrays runs over their first axis (`zip` stops at the shortest, as
Python's does); an item of a 1-D array is its element, of an N-D array a view of one row
(never a copy: writes through it land in the array); the sequences are evaluated once,
before the loop.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass

from enzyme_py.checkpointing import check_snapshots, checkpointed
from enzyme_py.errors import ArgumentValueError


@dataclass(frozen=True)
class Sequences:
    index: ast.expr | None  # the enumerate counter's target
    items: list[tuple[ast.expr, ast.expr]]  # (target, sequence) pairs


def parse(s: ast.For, resolve: Callable[[ast.expr], object], error: Callable) -> Sequences:
    """The loop's sequences and targets; `error(node, message, supported)` builds errors."""
    it, target = s.iter, s.target
    index = None
    if _call_of(it, builtins.enumerate, resolve):
        assert isinstance(it, ast.Call)
        if len(it.args) != 1 or it.keywords:
            raise error(it, "enumerate() of one sequence is supported (no start=)",
                        "for i, row in enumerate(X)")
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            raise error(target, "unpack enumerate() into two names", "for i, v in "
                        "enumerate(x)")
        index, target = target.elts[0], target.elts[1]
        it = it.args[0]
    if _call_of(it, builtins.zip, resolve):
        assert isinstance(it, ast.Call)
        if it.keywords or not it.args:
            raise error(it, "zip() of arrays is supported (no strict=)", "for a, b in zip(x, y)")
        if not (isinstance(target, ast.Tuple) and len(target.elts) == len(it.args)):
            raise error(target, f"unpack zip() into {len(it.args)} names",
                        "for a, b in zip(x, y)")
        return Sequences(index, list(zip(target.elts, it.args, strict=True)))
    return Sequences(index, [(target, it)])


def _call_of(e: ast.expr, fn: object, resolve: Callable[[ast.expr], object]) -> bool:
    return isinstance(e, ast.Call) and resolve(e.func) is fn


def checkpoint_mark(s: ast.For, resolve: Callable[[ast.expr], object],
                    error: Callable[..., Exception]) -> tuple[ast.For, int] | None:
    """`for t in checkpointed(range(...), snapshots=K)`: the same loop over the range, and K
    (0 when not given); None for any other loop. The loop itself is a new node (the parsed
    definition is shared and never changed)."""
    it = s.iter
    if not (isinstance(it, ast.Call) and resolve(it.func) is checkpointed):
        return None
    hint = "for t in ez.checkpointed(range(steps), snapshots=20)"
    words = {k.arg: k.value for k in it.keywords}
    if len(it.args) not in (1, 2) or set(words) - {"snapshots"} or \
            (len(it.args) == 2 and "snapshots" in words):
        raise error(it, "checkpointed() takes the loop's range and snapshots=", hint)
    if range_call(it.args[0]) is None:
        raise error(it.args[0], "checkpointed() marks a loop over range(...)", hint)
    count = it.args[1] if len(it.args) == 2 else words.get("snapshots")
    snapshots = 0
    if count is not None:
        if not (isinstance(count, ast.Constant) and isinstance(count.value, int)):
            raise error(count, "snapshots= must be an integer literal", hint)
        try:
            snapshots = check_snapshots(count.value)
        except ArgumentValueError as e:
            raise error(count, str(e), hint) from None
    loop = ast.For(target=s.target, iter=it.args[0], body=s.body, orelse=s.orelse)
    return ast.copy_location(loop, s), snapshots


def range_call(it: ast.expr) -> tuple[ast.Call, bool] | None:
    """`(range(...) call, reversed)` of a loop over `range(...)` or `reversed(range(...))`."""
    backwards = isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and \
        it.func.id == "reversed" and len(it.args) == 1 and not it.keywords
    inner = it.args[0] if backwards else it  # type: ignore[attr-defined]
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and \
            inner.func.id == "range":
        return inner, backwards
    return None
