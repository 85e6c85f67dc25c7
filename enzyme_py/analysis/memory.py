"""Memory objects behind pointers, and which objects a function may write.

Invariants: `underlying(p)` is the set of objects `p` may point into — arguments, allocas,
globals, allocation calls, and for a pointer loaded from memory the load itself ("derived"
memory: what that pointer leads to) — found through GEPs, casts, phis and selects; `UNKNOWN`
stands for memory we cannot name (returned by an unknown call, made from an integer). Two
objects may alias unless they are distinct allocas/globals/allocations, or one is local
(alloca, allocation) and the other an argument or global, or either is a `noalias` argument;
derived memory may alias anything. This is deliberately conservative: a wrong "cannot alias"
would give a wrong gradient, a wrong "may alias" only costs a cached value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function, GlobalVariable
from enzyme_py.ir.values import Argument, ConstantExpr, ConstantKeyword, GlobalValue, Value


class _Unknown:
    """Memory that cannot be named."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
MemObject = Value | _Unknown

ALLOCATION_FUNCTIONS = frozenset({
    "malloc", "calloc", "realloc", "aligned_alloc", "_Znwm", "_Znam", "_ZnwmSt11align_val_t",
    "_ZnamSt11align_val_t",
})
DEALLOCATION_FUNCTIONS = frozenset({
    "free", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZdlPvSt11align_val_t",
    "_ZdaPvSt11align_val_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
})
# Calls that never write user-visible memory (besides what the rule table knows is pure).
NON_WRITING_CALLS = frozenset({
    "printf", "puts", "putchar", "fflush", "strlen", "strcmp", "memcmp", "abort", "exit",
    "__assert_fail",
})


def underlying(p: Value, _seen: set[Value] | None = None) -> frozenset[MemObject]:
    """The objects pointer `p` may point into."""
    seen = _seen if _seen is not None else set()
    if p in seen:
        return frozenset()
    seen.add(p)
    if isinstance(p, (Argument, I.Alloca, GlobalValue)):
        return frozenset({p})
    if isinstance(p, ConstantKeyword):  # null / undef / poison point nowhere
        return frozenset()
    if isinstance(p, I.GetElementPtr):
        return underlying(p.operands[0], seen)
    if isinstance(p, ConstantExpr) and p.opcode in ("getelementptr", "bitcast",
                                                    "addrspacecast"):
        return underlying(p.ops[0], seen)
    if isinstance(p, I.Cast) and p.opcode in ("bitcast", "addrspacecast"):
        return underlying(p.operands[0], seen)
    if isinstance(p, I.Phi):
        out: frozenset[MemObject] = frozenset()
        for v in p.operands:
            out |= underlying(v, seen)
        return out
    if isinstance(p, I.Select):
        return underlying(p.operands[1], seen) | underlying(p.operands[2], seen)
    if isinstance(p, I.Call) and p.callee_name in ALLOCATION_FUNCTIONS:
        return frozenset({p})
    if isinstance(p, I.Load) and p.type.is_pointer:
        return frozenset({p})  # the memory this loaded pointer leads to (a "derived" object)
    return frozenset({UNKNOWN})


def is_derived(o: MemObject) -> bool:
    """Memory reached through a pointer loaded from memory."""
    return isinstance(o, I.Load)


def _is_local(o: MemObject) -> bool:
    return isinstance(o, (I.Alloca, I.Call))


def _noalias(o: MemObject) -> bool:
    return isinstance(o, Argument) and "noalias" in o.attrs


def may_alias_objects(a: MemObject, b: MemObject) -> bool:
    if a is b:
        return True
    if is_derived(a) or is_derived(b):
        return True  # a loaded pointer may lead anywhere, even to a local that escaped
    if a is UNKNOWN or b is UNKNOWN:
        return not (_is_local(a) or _is_local(b))
    if _is_local(a) or _is_local(b):
        return False  # distinct allocas/allocations never overlap; locals never alias args
    if _noalias(a) or _noalias(b):
        return False
    if isinstance(a, GlobalVariable) and isinstance(b, GlobalVariable):
        return False
    return True  # two arguments, or an argument and a global


def may_alias(xs: frozenset[MemObject], ys: frozenset[MemObject]) -> bool:
    return any(may_alias_objects(x, y) for x in xs for y in ys)


@dataclass
class MemoryEffects:
    """Which objects each writing instruction of a function may write."""

    writes: list[tuple[I.Instruction, frozenset[MemObject]]] = field(default_factory=list)
    writes_unknown_call: bool = False

    def may_be_written(self, objs: frozenset[MemObject]) -> bool:
        """True if any instruction of the function may write memory in `objs`."""
        if self.writes_unknown_call:
            return True
        return any(may_alias(objs, w) for _, w in self.writes)


def memory_effects(fn: Function, pure_calls: frozenset[str] = frozenset()) -> MemoryEffects:
    """Writes of `fn`: stores, atomics, mem intrinsics, and calls not known to be pure."""
    eff = MemoryEffects()
    for inst in fn.instructions():
        if isinstance(inst, I.Store):
            eff.writes.append((inst, underlying(inst.pointer)))
        elif isinstance(inst, (I.AtomicRMW, I.CmpXchg)):
            eff.writes.append((inst, underlying(inst.operands[0])))
        elif isinstance(inst, I.Call):
            name = inst.callee_name or ""
            if name.startswith(("llvm.memcpy", "llvm.memmove", "llvm.memset")):
                eff.writes.append((inst, underlying(inst.args[0])))
            elif name in pure_calls or name in NON_WRITING_CALLS or name.startswith(
                    ("llvm.lifetime", "llvm.assume", "llvm.dbg", "llvm.experimental.noalias")):
                continue
            elif name in ALLOCATION_FUNCTIONS:
                continue
            elif name in DEALLOCATION_FUNCTIONS:  # freeing ends the memory: count as a write
                eff.writes.append((inst, underlying(inst.args[0])))
            elif _readonly_call(inst):
                continue
            else:
                eff.writes_unknown_call = True
    return eff


def _readonly_call(call: I.Call) -> bool:
    """The call site or the callee is marked `memory(none)`/`memory(read)`/`readnone`."""
    callee = call.callee
    words = list(call.fn_attrs)
    if isinstance(callee, Function):
        words += callee.suffix
    fn = call.function
    groups = fn.parent.attribute_groups if fn is not None and fn.parent is not None else {}
    text = " ".join(groups.get(w, w) if w.startswith("#") else w for w in words)
    return "memory(none)" in text or "memory(read)" in text or "readnone" in text
