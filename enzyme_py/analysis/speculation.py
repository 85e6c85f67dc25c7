"""Values that matter only under a condition: code a `select` chooses between.

The optimizer speculates cheap code out of branches: `if x > 0: s += sqrt(x)` becomes
`s = select(x > 0, s + sqrt(x), s)`, and `sqrt` then runs for every x. A reverse sweep that
gives the unselected operand a zero adjoint still multiplies it by the operand's partials —
`0 * 1/(2 sqrt(-2))` is NaN — so the speculated code would poison the gradient. A value whose
every use is a select's one operand (or a value guarded so, in the same block) has a *guard*:
the condition under which it matters. Its adjoint contributions are zero when the guard
fails, exactly (changing the value then changes nothing), and the reverse sweep makes them so.

Invariant: a guard (condition, polarity) is only given when every use of the value lies in
its own block and leads to the same select operand, and the condition is an argument, a
constant or defined in that block too, so the reverse sweep of the block can read it.
"""

from __future__ import annotations

from collections import defaultdict

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import Value

Guard = tuple[Value, bool]  # (i1 condition, the polarity under which the value matters)


def select_guards(fn: Function) -> dict[I.Instruction, Guard]:
    users: dict[I.Instruction, list[I.Instruction]] = defaultdict(list)
    insts = list(fn.instructions())
    for inst in insts:
        for op in inst.operands:
            if isinstance(op, I.Instruction):
                users[op].append(inst)
    guards: dict[I.Instruction, Guard] = {}
    for block in fn.blocks:
        for inst in reversed(block.instructions):
            if isinstance(inst, I.Phi) or inst.type.is_void or not users.get(inst):
                continue
            found: set[Guard | None] = set()
            for u in users[inst]:
                found.add(_guard_through(u, inst, block, guards))
            if len(found) == 1 and None not in found:
                g = found.pop()
                assert g is not None
                guards[inst] = g
    return guards


def _guard_through(u: I.Instruction, v: I.Instruction, block: object,
                   guards: dict[I.Instruction, Guard]) -> Guard | None:
    if u.parent is not block:
        return None
    if isinstance(u, I.Select):
        cond, a, b = u.operands
        if a is v and b is not v and _readable(cond, block):
            return (cond, True)
        if b is v and a is not v and _readable(cond, block):
            return (cond, False)
        return None
    return guards.get(u)


def _readable(cond: Value, block: object) -> bool:
    return not isinstance(cond, I.Instruction) or cond.parent is block
