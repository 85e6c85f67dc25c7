"""The functions a function reaches by direct calls, or by naming them at all.

Invariants: `called_functions(fn)` holds `fn` and every defined function its calls (and theirs)
name directly; declarations and indirect targets are not in it. `referenced_functions(roots)`
holds every function a root names anywhere (a call, a stored function pointer, a constant, a
personality) and what those name, transitively: a function outside it can be removed without
changing what the roots do. Nothing here changes the IR.
"""

from __future__ import annotations

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import ConstantExpr, Value


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


def referenced_functions(roots: list[Value]) -> set[Function]:
    """The functions named by `roots` (functions, or constants that contain them) and,
    through their instructions' operands, by what those name, transitively."""
    reached: set[Function] = set()
    work = list(roots)
    seen: set[int] = set()
    while work:
        v = work.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, Function):
            reached.add(v)
            if v.personality is not None:
                work.append(v.personality)
            for inst in v.instructions():
                work.extend(op for op in inst.operands
                            if isinstance(op, (Function, ConstantExpr)) or
                            getattr(op, "elements", None))
        elif isinstance(v, ConstantExpr):
            work.extend(v.ops)
        else:
            work.extend(getattr(v, "elements", None) or ())
    return reached
