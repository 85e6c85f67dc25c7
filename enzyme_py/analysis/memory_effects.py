"""Memory effects: which instructions and calls write memory, which memory, and through which
arguments a function writes. The one home of the lists of memory intrinsics and of the calls
that write no user memory; the transforms, the activity analysis and the API ask here.

Invariants: every answer errs toward "may write" (a write missed would give a wrong gradient or
let a read-only array be written; one too many only costs a shadow, a cached value or an
error): a call is a write unless the rule table, the inactive table, `NON_WRITING_CALLS`, the
harmless intrinsics or a `memory(none)`/`memory(read)` attribute say otherwise. A call of a
function the module does not define writes `EXTERNAL` (globals, arguments that are not
`noalias`, what they lead to), the memory behind its pointer arguments, and every object
whose address the function lets out (`escaped_objects`): it cannot reach a local or a
`noalias` argument it is not handed, as LLVM's own alias analysis assumes. Nothing here
changes the IR.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.analysis.gpu import is_barrier
from enzyme_py.analysis.memory import (
    ALLOCATION_FUNCTIONS,
    DEALLOCATION_FUNCTIONS,
    EXTERNAL,
    UNKNOWN,
    MemObject,
    is_unnamed,
    may_alias,
    underlying,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function, GlobalVariable
from enzyme_py.ir.printer import FunctionPrinter
from enzyme_py.ir.values import Argument, Value
from enzyme_py.rules.inactive import is_known_inactive
from enzyme_py.rules.matrix_kernel import OUTPUT_ARGUMENT, is_matrix_kernel
from enzyme_py.rules.registry import lookup

MEMORY_INTRINSICS = ("llvm.memcpy", "llvm.memmove", "llvm.memset")
# Masked vector loads and stores (the loop vectorizer's conditional and tail accesses), which
# both transforms differentiate (`ad/masked_memory.py`).
MASKED_MEMORY = ("llvm.masked.load.", "llvm.masked.store.")  # (load, store)
# Vector memory intrinsics the transforms do not differentiate yet (one clear error).
UNSUPPORTED_MEMORY = (
    "llvm.masked.gather.", "llvm.masked.scatter.", "llvm.masked.expandload.",
    "llvm.masked.compressstore.", "llvm.vp.load.", "llvm.vp.store.", "llvm.vp.gather.",
    "llvm.vp.scatter.", "llvm.experimental.vp.strided.", "llvm.matrix.column.major.",
)
# Intrinsics that touch no user memory (markers and hints).
HARMLESS_INTRINSICS = ("llvm.lifetime.", "llvm.dbg.", "llvm.assume",
                       "llvm.experimental.noalias")
# Calls that never write user-visible memory (besides what the rule table knows is pure).
NON_WRITING_CALLS = frozenset({
    "printf", "puts", "putchar", "fflush", "strlen", "strcmp", "memcmp", "abort", "exit",
    "__assert_fail", "malloc_usable_size",
    # the reverse transform's own list of deferred frees: it writes only that list
    "enzyme_py.defer_free",
})
# Parameter attributes that promise a callee keeps no copy of the pointer after it returns
NO_CAPTURE = ("captures(none)", "nocapture")


def memory_intrinsic(name: str) -> str | None:
    """`memcpy`, `memmove` or `memset` for `llvm.memcpy.*` and the others, else None."""
    for prefix in MEMORY_INTRINSICS:
        if name.startswith(prefix):
            return prefix.removeprefix("llvm.")
    return None


def is_pure_call(name: str) -> bool:
    """Callees that write no user memory: math functions with derivative rules (libm may set
    errno, which no derivative depends on) and the known-inactive table."""
    return lookup(name) is not None or is_known_inactive(name)


def writes_no_memory(name: str) -> bool:
    """A call of `name` writes no user memory (pure, known not to write, or a marker)."""
    return is_pure_call(name) or name in NON_WRITING_CALLS or \
        name.startswith(HARMLESS_INTRINSICS) or name.startswith(MASKED_MEMORY[0]) or \
        is_barrier(name)  # (what other threads write meanwhile: `ad/tape_facts.py`)


ADDITIVE_ATOMICS = ("fadd", "fsub")


def stored(inst: I.Instruction) -> tuple[Value, Value] | None:
    """(value, pointer) of a `store`, an `llvm.masked.store` (which writes some lanes), or an
    `atomicrmw fadd`/`fsub` (which adds the value to what is there)."""
    if isinstance(inst, I.Store):
        return inst.value, inst.pointer
    if isinstance(inst, I.AtomicRMW) and inst.operation in ADDITIVE_ATOMICS:
        return inst.operands[1], inst.operands[0]
    if isinstance(inst, I.Call) and (inst.callee_name or "").startswith(MASKED_MEMORY[1]):
        return inst.args[0], inst.args[1]
    return None


def written_pointer(inst: I.Instruction) -> Value | None:
    """The pointer a store, atomic, masked store or memory intrinsic writes through."""
    got = stored(inst)
    if got is not None:
        return got[1]
    if isinstance(inst, (I.AtomicRMW, I.CmpXchg)):
        return inst.operands[0]
    if isinstance(inst, I.Call) and memory_intrinsic(inst.callee_name or ""):
        return inst.args[0]
    return None


@dataclass(frozen=True)
class MemoryEffects:
    """Which objects each writing instruction of a function may write (`writes`), and whether
    it calls something that may write memory we cannot name.

    Invariant: every instruction in `writes` belongs to `function` — a defined callee's writes
    are recorded at the call that makes them, so "is this write after that point" is a
    question about `function`'s own control flow."""

    function: Function
    writes: tuple[tuple[I.Instruction, frozenset[MemObject]], ...]
    writes_unknown_call: bool  # (its writes are in `writes` too, bounded as the invariant says)

    def may_be_written(self, objs: frozenset[MemObject]) -> bool:
        """True if any instruction of the function may write memory in `objs`."""
        if self.writes_unknown_call:
            return True
        return any(may_alias(objs, w) for _, w in self.writes)

    @property
    def writes_nothing(self) -> bool:
        return not self.writes and not self.writes_unknown_call

    def __str__(self) -> str:
        """`; writes of @f`, then one line per writing instruction: what it may write."""
        p = FunctionPrinter(self.function)

        def name(o: MemObject) -> str:
            if o is EXTERNAL:
                return "memory outside code may reach"
            return "unknown memory" if o is UNKNOWN else p.ref(o)  # type: ignore[arg-type]

        lines = [f"; writes of @{self.function.name}"]
        if self.writes_unknown_call:
            lines.append(";   a call writes memory that cannot be named")
        for inst, objs in self.writes:
            what = p.instruction(inst).split("\n")[0].strip()
            lines.append(f";   {what}: {', '.join(sorted(map(name, objs))) or 'nothing'}")
        return "\n".join(lines) + "\n"


def memory_effects(fn: Function) -> MemoryEffects:
    """Writes of `fn`: stores, atomics, masked stores, memory intrinsics, the writes of
    defined callees (followed transitively; a recursive call adds nothing new), and calls not
    known to write nothing (`writes_no_memory`). A callee's writes through its parameters are
    counted as writes to the objects passed at the call, and all its writes are recorded at
    the call (its own instructions never appear). A write of memory `fn` cannot name
    (`EXTERNAL`, `UNKNOWN`) also writes the objects that escaped from `fn`."""
    writes: list[tuple[I.Instruction, frozenset[MemObject]]] = []
    unknown = _collect(fn, writes, set())
    return MemoryEffects(fn, tuple(writes), unknown)


def _collect(fn: Function, writes: list[tuple[I.Instruction, frozenset[MemObject]]],
             visiting: set[str]) -> bool:
    """Append `fn`'s writes; True when it calls something that may write anything."""
    unknown = False
    visiting.add(fn.name or "")
    first = len(writes)
    for inst in fn.instructions():
        ptr = written_pointer(inst)
        if ptr is not None:
            writes.append((inst, underlying(ptr)))
            continue
        if not isinstance(inst, I.Call):
            continue
        name = inst.callee_name or ""
        if writes_no_memory(name):
            continue
        if name == "realloc":  # ends the old block, like a free
            writes.append((inst, underlying(inst.args[0])))
        elif name in ALLOCATION_FUNCTIONS:
            continue
        elif name in DEALLOCATION_FUNCTIONS:  # freeing ends the memory: count as a write
            writes.append((inst, underlying(inst.args[0])))
        elif _readonly_call(inst):
            continue
        elif (known := known_writes(name)) is not None:
            writes += [(inst, underlying(inst.args[k])) for k in sorted(known)]
        elif isinstance(inst.callee, Function) and not inst.callee.is_declaration:
            unknown |= _callee_writes(writes, inst, inst.callee, visiting)
        else:
            unknown = True
            writes.append((inst, frozenset({EXTERNAL}).union(
                *(underlying(a) for a in inst.args if a.type.is_pointer))))
    unnamed = [k for k in range(first, len(writes))
               if EXTERNAL in writes[k][1] or UNKNOWN in writes[k][1]]
    if unnamed:
        escaped = escaped_objects(fn)
        for k in unnamed:
            writes[k] = (writes[k][0], writes[k][1] | escaped)
    return unknown


def escaped_objects(fn: Function) -> frozenset[MemObject]:
    """The objects whose address `fn` lets out, where code it does not see may keep it: a
    pointer into them stored as a value, returned, converted to an integer, put in a vector or
    an aggregate, or passed to a call whose parameter is not marked `captures(none)` (memory
    intrinsics, frees, and the calls that write no memory keep nothing). GEPs, casts, phis and
    selects hand the address on to their own users (`underlying` sees through them); loads and
    stores through it and comparisons keep nothing."""
    out: set[MemObject] = set()
    for inst in fn.instructions():
        if isinstance(inst, (I.GetElementPtr, I.Phi, I.Select, I.Compare, I.Load)) or \
                isinstance(inst, I.Cast) and inst.opcode in ("bitcast", "addrspacecast"):
            continue
        if isinstance(inst, I.Store):
            kept: list[Value] = [inst.value]
        elif isinstance(inst, I.Call):
            kept = [a for k, a in enumerate(inst.args) if _keeps(inst, k)]
        elif isinstance(inst, (I.AtomicRMW, I.CmpXchg)):
            kept = inst.operands[1:]
        else:
            kept = inst.operands
        for v in kept:
            if T.carries_pointer(v.type):
                out |= underlying(v)
    return frozenset(out)


def _keeps(call: I.Call, k: int) -> bool:
    """May `call` keep a copy of its argument `k` after it returns?"""
    name = call.callee_name or ""
    if memory_intrinsic(name) or name in DEALLOCATION_FUNCTIONS or writes_no_memory(name) or \
            is_matrix_kernel(name):
        return False
    attrs = list(call.arg_attrs[k]) if k < len(call.arg_attrs) else []
    callee = call.callee
    if isinstance(callee, Function) and k < len(callee.args):
        attrs += callee.args[k].attrs
    return not any(a in NO_CAPTURE for a in attrs)


def _callee_writes(writes: list[tuple[I.Instruction, frozenset[MemObject]]], call: I.Call,
                   callee: Function, visiting: set[str]) -> bool:
    if callee.name in visiting:
        # recursion: its writes are being collected; pointer arguments may be written
        # through, as in any call
        if _callee_may_write(callee):
            for a in call.args:
                if a.type.is_pointer:
                    writes.append((call, underlying(a)))
            # and whatever else it writes (globals, memory it reaches)
            writes.append((call, frozenset({UNKNOWN})))
        return False
    sub: list[tuple[I.Instruction, frozenset[MemObject]]] = []
    unknown = _collect(callee, sub, visiting)
    if sub:
        # map callee writes to what this call passes: the pointer arguments it writes
        # through, or every one when it writes memory it may have reached from any of them
        # (through a loaded pointer, a call's result, memory that cannot be named); and
        # anything the callee writes besides its arguments
        through = _parameters_written(callee, sub)
        for k, a in enumerate(call.args):
            if a.type.is_pointer and (through is None or k in through):
                writes.append((call, underlying(a)))
        # (recorded at the call: that is when, in this function, the write happens)
        for _, objs in sub:
            if any(not isinstance(o, Argument) for o in objs):
                writes.append((call, frozenset(
                    o for o in objs if not isinstance(o, Argument))))
    return unknown


def _parameters_written(callee: Function, sub: list[tuple[I.Instruction,
                                                         frozenset[MemObject]]]
                        ) -> set[int] | None:
    """The indices of `callee`'s parameters whose memory its writes `sub` reach; None when a
    write goes to memory that may be any parameter's (not an argument, a global, a stack
    slot or a block the callee allocated)."""
    out: set[int] = set()
    for _, objs in sub:
        for o in objs:
            if isinstance(o, Argument) and o.parent is callee:
                out.add(o.index)
            elif not (isinstance(o, (GlobalVariable, I.Alloca)) or _allocated_in(o, callee)):
                return None
    return out


def _allocated_in(o: MemObject, fn: Function) -> bool:
    return isinstance(o, I.Call) and o.function is fn and \
        (o.callee_name or "") in ALLOCATION_FUNCTIONS and o.callee_name != "realloc"


def _callee_may_write(fn: Function) -> bool:
    """Does `fn` itself contain a write (store, atomic, masked store, memory intrinsic)?"""
    return any(written_pointer(inst) is not None for inst in fn.instructions())


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


def known_writes(name: str | None) -> frozenset[int] | None:
    """The pointer arguments a declared runtime function is known to write through (the
    matrix kernel: its C, `C += A @ B`), or None for any other function: its body, if any,
    tells."""
    return frozenset({OUTPUT_ARGUMENT}) if is_matrix_kernel(name) else None


def written_arguments(fn: Function) -> frozenset[int]:
    """Indices of `fn`'s pointer parameters it (or its callees) may write through: all of
    them when it calls something unknown or writes memory reached through a loaded pointer or
    memory that cannot be named; a runtime function's `known_writes`."""
    known = known_writes(fn.name)
    if known is not None:
        return known
    eff = memory_effects(fn)
    pointers = frozenset(a.index for a in fn.args if a.type.is_pointer)
    if eff.writes_unknown_call:
        return pointers
    out: set[int] = set()
    for _, objs in eff.writes:
        for o in objs:
            if isinstance(o, Argument) and o.parent is fn:
                out.add(o.index)
            elif is_unnamed(o) or isinstance(o, I.Load):
                return pointers
    return frozenset(out)


def writes_through_argument(fn: Function, index: int,
                            _seen: set[tuple[str, int]] | None = None) -> bool:
    """May `fn` write the memory its pointer argument `index` points into (directly, or in
    the functions it passes the pointer to)? Per argument, unlike `written_arguments`: a call
    to something unknown counts only when the pointer is passed to it, and calls already being
    asked about count as no (a write has to happen somewhere, so recursion alone never
    writes)."""
    known = known_writes(fn.name)
    if known is not None:
        return index in known
    seen = _seen if _seen is not None else set()
    if (fn.name or "", index) in seen:
        return False
    seen.add((fn.name or "", index))
    arg = fn.args[index]

    def reaches(p: Value) -> bool:
        objs = underlying(p)
        return arg in objs or UNKNOWN in objs

    for inst in fn.instructions():
        ptr = written_pointer(inst)
        if ptr is not None:
            if reaches(ptr):
                return True
            continue
        if not isinstance(inst, I.Call):
            continue
        name = inst.callee_name or ""
        if name and writes_no_memory(name):
            continue
        for k, a in enumerate(inst.args):
            if not (a.type.is_pointer and reaches(a)):
                continue
            callee = inst.callee
            if not isinstance(callee, Function) or callee.is_declaration or \
                    k >= len(callee.args) or writes_through_argument(callee, k, seen):
                return True
    return False


def write_after(effects: MemoryEffects, call: I.Call, pointers: list[Value] | None = None
                ) -> I.Instruction | None:
    """A write (of the function `effects` describes) that may change memory the pointer
    arguments of `call` (or those of them in `pointers`) reach and that can run after the
    call (later in its block, in a block reachable from it, or the call itself again in a
    loop); None when there is none."""
    objs = [underlying(a) for a in (call.args if pointers is None else pointers)
            if a.type.is_pointer]
    if not objs:
        return None
    block = call.parent
    assert block is not None
    later: set[I.Instruction] = set(block.instructions[block.instructions.index(call) + 1:])
    seen: set = set()
    work = list(block.successors())
    while work:
        b = work.pop()
        if b in seen:
            continue
        seen.add(b)
        later.update(b.instructions)
        work.extend(b.successors())
    if effects.writes_unknown_call:
        return call  # some call writes memory we cannot name
    for w, wobjs in effects.writes:
        if w in later and any(may_alias(o, wobjs) for o in objs):
            return w
    return None
