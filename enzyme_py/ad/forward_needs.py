"""Does the forward sweep need a value for anything but the reverse sweep?

The tape recomputes a math call (`sin`, `exp`, ... of values it can rebuild) in a loop's
reverse instead of caching it only when the forward sweep then no longer needs to run it:
Σ w·sin(x)·x taped writes and reads three arrays of the length of x, and its forward loop
does nothing else (the sum is not asked for); recomputed, the forward loop is dead code and
the gradient is one loop. When the forward sweep needs the value anyway (a logsumexp's
`exp`, whose sum the reverse divides by), recomputing would only run it twice.

`needed(v)` answers for an instruction of the primal: some use of `v` must run in the
forward sweep — a store, a branch, a call that is not a pure math function, the result when
the gradient returns it — directly or through values computed from `v`, or a use whose
partial reads a value computed from `v` that the reverse cannot rebuild (a phi: it would be
cached, so computed forward). It is a cost question only: whatever it answers, every value
the reverse uses equals the forward one.

Invariants: pure (reads the primal's original instructions, changes nothing); memoized; on
a cycle through phis a value still being answered counts as not needed, so an answer found
inside a cycle may say "not needed" too early — which costs a second evaluation, never a
wrong value.
"""

from __future__ import annotations

from collections.abc import Iterable

from enzyme_py.ad.tape_facts import CHEAP
from enzyme_py.analysis.memory_effects import is_pure_call
from enzyme_py.ir import instructions as I
from enzyme_py.ir.values import Constant, Value

# uses whose partials do not read the used value (adjoints pass through or scale by others)
_PASS_THROUGH = frozenset({"fadd", "fsub", "fneg"})


class ForwardNeeds:
    def __init__(self, original: Iterable[I.Instruction], result_needed: bool) -> None:
        self._original = original
        self.result_needed = result_needed  # the gradient returns the primal's result
        self._users: dict[Value, list[I.Instruction]] | None = None
        self._memo: dict[Value, bool] = {}

    def needed(self, v: I.Instruction) -> bool:
        got = self._memo.get(v)
        if got is not None:
            return got
        self._memo[v] = False  # (on a cycle through phis: decided by the other uses)
        out = any(self._use_needs(u, v) for u in self._users_of(v))
        self._memo[v] = out
        return out

    def _use_needs(self, u: I.Instruction, v: Value) -> bool:
        if isinstance(u, I.Ret):
            return self.result_needed
        if not _rebuildable(u) and not isinstance(u, I.Phi):
            return True  # a store, a branch, a call with effects: runs forward
        if self._reads(u, v) and not _rebuildable(v):
            return True  # its partial reads v, which the reverse would take from the tape
        return self.needed(u)

    @staticmethod
    def _reads(u: I.Instruction, v: Value) -> bool:
        """Does the partial of `u` read its operand `v`?"""
        if isinstance(u, I.Phi) or u.opcode in _PASS_THROUGH:
            return False
        if u.opcode in ("fmul", "fdiv") and len(u.operands) == 2:
            other = u.operands[1] if u.operands[0] is v else u.operands[0]
            if isinstance(other, Constant) and (u.opcode == "fmul" or other is u.operands[1]):
                return False  # v * c, v / c: the partial is the constant
        return True

    def _users_of(self, v: Value) -> list[I.Instruction]:
        if self._users is None:
            self._users = {}
            for inst in self._original:
                for op in inst.operands:
                    self._users.setdefault(op, []).append(inst)
        return self._users.get(v, [])


def _rebuildable(v: Value) -> bool:
    """Could the reverse rebuild `v` from its operands (a cheap opcode or a pure call)?"""
    if not isinstance(v, I.Instruction):
        return True
    if isinstance(v, I.Call):
        return is_pure_call(v.callee_name or "")
    return v.opcode in CHEAP and not isinstance(v, I.Phi)
