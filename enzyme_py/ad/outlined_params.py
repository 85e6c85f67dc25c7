"""The pointer parameters of an outlined loop: one per block of memory, `noalias` where sound.

`checkpoint-loops` passes what a loop uses from before it as parameters of its step
function. Inside `f`, LLVM's alias analysis and ours tell two `malloc`s apart; as parameters
of the step they are two pointers that may overlap, and the step's derivative then caches
what it need not and cannot keep a stencil's adjoint in registers (`load_windows.py`). So:

- a live-in that is a GEP with constant indices (`%p = gep %buf, 8`, which GVN makes before
  a loop) is not passed: the step computes it again from its base (`rebase_live_ins`), so
  that each block reaches the step through one parameter;
- a pointer parameter is `noalias` (`distinct_parameters`) when it points into one object
  that `f` made or was promised alone (an `alloca`, an allocation call's result, a `noalias`
  argument), whose address `f` never lets out (`escaped_objects`), and which no other
  parameter may point into. Then, during a call of the step, that object is reached only
  through the parameter, which is what `noalias` promises.

Invariants: the parameters reach the same memory as before (a rebased GEP is the same
address); a parameter the rules do not clear keeps no new attribute.
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.analysis.memory import ALLOCATION_FUNCTIONS, MemObject, may_alias, underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir.values import Argument, ConstantInt, Value


def rebase_live_ins(live_ins: Sequence[Value]) -> tuple[list[Value], list[I.GetElementPtr]]:
    """(the live-ins with each constant-index GEP replaced by its base, the GEPs to compute
    again in the step, each after the ones it is made from)."""
    params: list[Value] = []
    rebuilt: list[I.GetElementPtr] = []
    seen: set[int] = set()

    def add(v: Value) -> None:
        if id(v) in seen:
            return
        seen.add(id(v))
        if isinstance(v, I.GetElementPtr) and \
                all(isinstance(x, ConstantInt) for x in v.operands[1:]) and \
                isinstance(v.operands[0], (Argument, I.Instruction)):
            add(v.operands[0])
            rebuilt.append(v)
        else:
            params.append(v)

    for v in live_ins:
        add(v)
    return params, rebuilt


def distinct_parameters(params: Sequence[Value],
                        escaped: frozenset[MemObject]) -> list[int]:
    """The indices of the pointer `params` that may be `noalias` parameters of a function
    `f` calls with them (`escaped`: the objects whose address `f` lets out)."""
    objects = [underlying(p) if p.type.is_pointer else frozenset() for p in params]
    out: list[int] = []
    for k, objs in enumerate(objects):
        if len(objs) != 1:
            continue
        (o,) = objs
        if o in escaped or not _identified(o):
            continue
        if any(j != k and others and may_alias(objs, others)
               for j, others in enumerate(objects)):
            continue
        out.append(k)
    return out


def _identified(o: MemObject) -> bool:
    """An object nothing else may point into when it does not escape."""
    if isinstance(o, I.Alloca):
        return True
    if isinstance(o, I.Call):
        return (o.callee_name or "") in ALLOCATION_FUNCTIONS
    return isinstance(o, Argument) and "noalias" in o.attrs
