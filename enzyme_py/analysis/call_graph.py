"""The functions a function reaches by direct calls.

Invariant: `called_functions(fn)` holds `fn` and every defined function its calls (and theirs)
name directly; declarations and indirect targets are not in it. Nothing here changes the IR.
"""

from __future__ import annotations

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function


def called_functions(fn: Function) -> set[Function]:
    """`fn` and the defined functions it calls directly, transitively."""
    seen = {fn}
    todo = [fn]
    while todo:
        for inst in todo.pop().instructions():
            callee = inst.callee if isinstance(inst, I.Call) else None
            if isinstance(callee, Function) and callee not in seen and not callee.is_declaration:
                seen.add(callee)
                todo.append(callee)
    return seen
