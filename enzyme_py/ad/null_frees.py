"""Calls of `free` that can only be given null, removed.

`carried_allocations` makes a block before a loop nest and turns each `free` that may be
given it into `free(select(p == block, null, p))`. When every pointer such a free may be
given is one of those blocks (LLVM merged the frees of two temporaries into one free of a
phi, and both temporaries were moved out), what is left in the loop is `free(null)` in
disguise: a no-op, but a call that frees, which `checkpoint-loops` must refuse (a loop that
frees has no fixed set of blocks as its state).

The pointers a value may be (`_leaves`) are read through phis (the union over their incoming
values; a phi met again on its own cycle adds nothing, since a loop-carried value is always
one of the values that enter the cycle) and selects, where `select(p == B, null, p)` (and
`select(p == B | p == C, null, p)`) is p's pointers other than B (and C), or null: if p is
not B, it is one of those others; if it is B, the select gives null. A free whose pointers
are all null is removed.

Invariant: only a `free` that is given null on every execution is removed; a pointer whose
values take more than a small budget of phis and selects to follow is left alone.
"""

from __future__ import annotations

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import ConstantKeyword, Value

_UNKNOWN = None


def drop_null_frees(fn: Function) -> int:
    """Remove each `free` of `fn` that is always given null; returns how many."""
    dropped = 0
    for inst in list(fn.instructions()):
        if isinstance(inst, I.Call) and inst.callee_name == "free" and len(inst.args) == 1:
            leaves = _Leaves().of(inst.args[0])
            if leaves is not None and all(_is_null(v) for v in leaves.values()):
                assert inst.parent is not None
                inst.parent.remove(inst)
                dropped += 1
    return dropped


def _is_null(v: Value) -> bool:
    return isinstance(v, ConstantKeyword) and v.keyword == "null"


class _Leaves:
    """The values a pointer may be, by identity, or None (not known). Each question looks at
    no more than `BUDGET` phis and selects: the patterns it is for are a few of them, and
    the phis of a long function merge into webs whose paths are too many to follow."""

    BUDGET = 64

    def __init__(self) -> None:
        self.left = self.BUDGET
        self.on_path: set[int] = set()

    def of(self, v: Value) -> dict[int, Value] | None:
        if not isinstance(v, I.Phi | I.Select):
            return {id(v): v}
        self.left -= 1
        if self.left < 0:
            return _UNKNOWN
        if isinstance(v, I.Phi):
            if id(v) in self.on_path:
                return {}
            self.on_path.add(id(v))
            out: dict[int, Value] = {}
            for x, _ in v.incoming():
                got = self.of(x)
                if got is None:
                    return _UNKNOWN
                out.update(got)
            self.on_path.discard(id(v))
            return out
        cond, when_true, when_false = v.operands
        excluded = _excluded(cond, when_false)
        if excluded is not None and _is_null(when_true):
            got = self.of(when_false)
            if got is None:
                return _UNKNOWN
            out = {k: x for k, x in got.items() if k not in excluded}
            out[id(when_true)] = when_true
            return out
        a, b = self.of(when_true), self.of(when_false)
        return _UNKNOWN if a is None or b is None else {**a, **b}


def _excluded(cond: Value, p: Value) -> set[int] | None:
    """The values B with `cond` exactly `p == B` (or an `or` of such tests), else None."""
    if isinstance(cond, I.BinaryOp) and cond.opcode == "or":
        a, b = _excluded(cond.lhs, p), _excluded(cond.rhs, p)
        return None if a is None or b is None else a | b
    if isinstance(cond, I.Compare) and cond.opcode == "icmp" and cond.predicate == "eq":
        x, y = cond.operands
        if x is p:
            return {id(y)}
        if y is p:
            return {id(x)}
    return None
