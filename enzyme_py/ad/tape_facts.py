"""What the tape asks of the forward sweep's memory and loops (`tape.py`): can the memory a
load read change before the reverse sweep runs, and is a value the same in every iteration of
a loop.

Invariants: every answer errs toward "may change" (a wrong "cannot" would let the reverse sweep
re-read overwritten memory, or share one cached value between iterations that differ): a call
of code the module does not define (what it may write: `memory_effects`), a write inside a
callee, or a lifetime marker counts as a write. On a GPU, in a kernel that waits at barriers,
memory other threads can reach that any thread writes (they all run the same code) may change
at every barrier, so a load of it is never re-read after a barrier and never taken as the same
in a loop that waits at one. Nothing here changes the IR.
"""

from __future__ import annotations

from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.reverse_cfg import ControlFlow
from enzyme_py.analysis.gpu import is_barrier, shared_object
from enzyme_py.analysis.loops import Loop
from enzyme_py.analysis.memory import may_alias, underlying
from enzyme_py.analysis.memory_effects import MemoryEffects
from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Block
from enzyme_py.ir.values import Value

# Opcodes the reverse sweep may recompute from their operands (pure, cheap)
CHEAP = frozenset({
    "add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "udiv", "sdiv", "urem",
    "srem", "fadd", "fsub", "fmul", "fdiv", "fneg", "trunc", "zext", "sext", "fptrunc", "fpext",
    "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast",
    "getelementptr", "icmp", "fcmp", "select", "extractvalue", "insertvalue", "extractelement",
    "insertelement", "shufflevector", "freeze",
})


class TapeFacts:
    """The questions, of the working copy `ctx.work` (its original instructions `cf.original`)
    with the memory effects `effects` (computed once its frees were deferred)."""

    def __init__(self, ctx: DerivationContext, cf: ControlFlow, effects: MemoryEffects) -> None:
        self.ctx = ctx
        self.cf = cf
        self.effects = effects
        self._reach: dict[Block, frozenset[Block]] = {}
        self._forward_blocks = frozenset(cf.dom.rpo)
        self._writes_memo: list[tuple[I.Instruction, frozenset]] | None = None

    def written_after(self, v: I.Load, objs: frozenset) -> bool:
        """May memory in `objs` change after `v` runs in the forward sweep: a write (or a
        lifetime marker) later in `v`'s block, in a block reachable from it, or in `v`'s own
        block when a cycle returns to it? If not, the memory still holds what `v` read when
        the reverse sweep runs (the reverse sweep writes only shadows; frees are deferred)."""
        block = v.parent
        assert block is not None
        if self._other_threads_write(objs):
            return True
        later = self._reachable(block)
        position: int | None = None
        for w, wobjs in self._writes():
            if not may_alias(objs, wobjs):
                continue
            wb = w.parent
            if wb is None or w.function is not self.ctx.work or wb in later:
                return True
            if wb is block:
                if position is None:
                    position = block.instructions.index(v)
                if block.instructions.index(w) > position:
                    return True
        return False

    def writes_to(self, objs: frozenset) -> list[tuple[I.Instruction, frozenset]]:
        """The writes of this thread (and lifetime markers) that may touch memory in `objs`
        (other threads' writes are `written_after`'s and `written_in`'s business)."""
        return [(w, wobjs) for w, wobjs in self._writes() if may_alias(objs, wobjs)]

    def _other_threads_write(self, objs: frozenset) -> bool:
        """(GPU, a kernel with barriers) other threads may write memory in `objs` while this
        one waits: it is reachable by them and some thread writes it."""
        if not self.ctx.device.synchronizes or not any(shared_object(o) for o in objs):
            return False
        return any(may_alias(objs, wobjs) for _, wobjs in self._writes())

    def _writes(self) -> list[tuple[I.Instruction, frozenset]]:
        """The writes of the memory effects, and lifetime markers (after `lifetime.end` the
        memory is gone, and a later `lifetime.start` makes its contents undefined)."""
        if self._writes_memo is None:
            markers = [(i, underlying(i.args[-1])) for i in self.cf.original
                       if isinstance(i, I.Call) and
                       (i.callee_name or "").startswith("llvm.lifetime.") and i.args]
            self._writes_memo = list(self.effects.writes) + markers
        return self._writes_memo

    def _reachable(self, block: Block) -> frozenset[Block]:
        """The forward blocks reachable from `block`'s successors (`block` itself when it
        lies on a cycle)."""
        got = self._reach.get(block)
        if got is None:
            forward = self._forward_blocks
            seen: set[Block] = set()
            work = [s for s in block.successors() if s in forward]
            while work:
                b = work.pop()
                if b in seen:
                    continue
                seen.add(b)
                work.extend(s for s in b.successors() if s in forward)
            got = self._reach[block] = frozenset(seen)
        return got

    def invariant_in(self, v: Value, lp: Loop) -> bool:
        """`v` has one value during each run of `lp` (every execution in it gives the same)."""
        if not isinstance(v, I.Instruction):
            return True
        if v.parent is None or v.parent not in lp.blocks:
            return v.parent is not None
        if v not in self.cf.original or isinstance(v, I.Phi):
            return False
        if isinstance(v, I.Load):
            return not (v.flags or v.ordering) and self.invariant_in(v.pointer, lp) and \
                not self.written_in(underlying(v.pointer), lp)
        if v.opcode not in CHEAP or v.opcode == "freeze":  # (a freeze may differ each time)
            return False
        return all(self.invariant_in(op, lp) for op in v.operands)

    def written_in(self, objs: frozenset, lp: Loop) -> bool:
        """May an instruction of `lp` (or a callee it calls) write memory in `objs`?"""
        if self._other_threads_write(objs) and any(
                isinstance(i, I.Call) and is_barrier(i.callee_name or "")
                for b in lp.blocks for i in b.instructions):
            return True
        return any(may_alias(objs, wobjs) and (w.parent is None or w.function is not self.ctx.work
                                               or w.parent in lp.blocks)
                   for w, wobjs in self._writes())
