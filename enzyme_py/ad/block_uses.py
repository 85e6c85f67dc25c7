"""How an instruction uses a pointer into a heap block, for the walks of `hoist-allocations`
(`hoist_allocations`, `carried_allocations`): each strategy adds its own rules on top.

Invariant: `escape` is the answer for anything that might let the pointer outlive what the
walk can see (stored as a value, passed to a call other than `free` and `llvm.mem*`, cast,
returned, used as a select's condition or a GEP index); `derive` marks a value that is itself
a pointer into the block (GEP, phi, select), to be walked in turn.
"""

from __future__ import annotations

from collections.abc import Callable

from enzyme_py.ir import instructions as I
from enzyme_py.ir.values import Value

FREE, ACCESS, DERIVE, ESCAPE = "free", "access", "derive", "escape"
_MEMORY_INTRINSICS = ("llvm.memset.", "llvm.memcpy.", "llvm.memmove.")


def use_of(user: I.Instruction, v: Value) -> str:
    """What `user` does with the pointer `v` (one of its operands)."""
    if isinstance(user, I.Call):
        name = user.callee_name or ""
        if isinstance(user, I.Invoke) or user.callee is v:
            return ESCAPE
        if name == "free":
            return FREE
        return ACCESS if name.startswith(_MEMORY_INTRINSICS) else ESCAPE
    if isinstance(user, I.Load) or user.opcode == "icmp":
        return ACCESS
    if isinstance(user, I.Store):
        return ESCAPE if user.value is v else ACCESS
    if isinstance(user, I.GetElementPtr):
        return DERIVE if user.pointer is v else ESCAPE
    if isinstance(user, I.Select):
        return ESCAPE if user.operands[0] is v else DERIVE
    return DERIVE if isinstance(user, I.Phi) else ESCAPE


# judge(user, v, use, derived): None to give up, False for a use to accept, True for a
# pointer derived from the block, to walk in turn
Judge = Callable[[I.Instruction, Value, str, set[int]], bool | None]


def walk(call: I.Call, users: dict[int, list[I.Instruction]],
         judge: Judge) -> list[I.Call] | None:
    """Every use of the block `call` makes, through the pointers derived from it: the `free`
    calls of it, or None when a use escapes or `judge` gives up."""
    derived: set[int] = {id(call)}
    todo: list[Value] = [call]
    frees: list[I.Call] = []
    while todo:
        v = todo.pop()
        for user in users.get(id(v), []):
            use = use_of(user, v)
            if use == FREE:
                frees.append(user)  # type: ignore[arg-type]
                continue
            if use == ESCAPE:
                return None
            verdict = judge(user, v, use, derived)
            if verdict is None:
                return None
            if verdict and id(user) not in derived:
                derived.add(id(user))
                todo.append(user)
    return frees
