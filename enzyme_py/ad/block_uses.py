"""How an instruction uses a pointer into a heap block, for the walks of `hoist-allocations`
(`hoist_allocations`, `carried_allocations`): each strategy adds its own rules on top.

Invariant: `escape` is the answer for anything that might let the pointer outlive what the
walk can see (stored as a value, passed to a call other than `free` and `llvm.mem*`, cast,
returned, used as a select's condition or a GEP index); `derive` marks a value that is itself
a pointer into the block (GEP, phi, select), to be walked in turn.
"""

from __future__ import annotations

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
