"""Primal values in the reverse sweep: use directly, recompute, or cache on the tape.

`Tape.lookup(v)` returns a value, usable at the builder's position in the reverse sweep, equal
to what `v` was in the forward iteration being reversed. Invariants:

- a value whose block dominates the return and lies in no loop is used directly (SSA);
- a cheap pure value whose operands are themselves available is recomputed; a load is
  recomputed only when no instruction of the function may write its memory;
- a basic induction variable is rebuilt from the reverse iteration counter;
- everything else is cached: an entry-block slot outside loops; inside loops an array indexed
  by the loop's canonical iteration number, allocated once in the preheader when the trip count
  is known at loop entry, or grown on demand (realloc) when it is not. Every array is freed when
  the reversed loop finishes, so all tape memory is released before the gradient returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from enzyme_py.ad import names
from enzyme_py.ad.runtime import grow_function
from enzyme_py.analysis.loops import InductionVariable, Loop, TripCount, emit_trip_count
from enzyme_py.analysis.memory import underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import Constant, ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.ad.reverse import ReverseTransform

_CHEAP = frozenset({
    "add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "udiv", "sdiv", "urem",
    "srem", "fadd", "fsub", "fmul", "fdiv", "fneg", "trunc", "zext", "sext", "fptrunc", "fpext",
    "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint", "inttoptr", "bitcast", "addrspacecast",
    "getelementptr", "icmp", "fcmp", "select", "extractvalue", "insertvalue", "extractelement",
    "insertelement", "shufflevector", "freeze",
})


@dataclass
class LoopState:
    """Per-loop forward instrumentation and reverse bookkeeping."""

    loop: Loop
    iv: I.Phi  # canonical 0, 1, 2, ... counter (forward)
    riv_slot: I.Instruction  # reverse iteration number (alloca)
    limits: dict[Block, I.Phi] = field(default_factory=dict)  # exit block -> last iv
    trip: TripCount | None = None
    trip_value: Value | None = None  # emitted lazily at the end of the preheader
    ivs: dict[Value, InductionVariable] = field(default_factory=dict)
    # (value, exit block -> forward value, reverse slot) of growable arrays
    grown: list[tuple[Value, dict[Block, Value], I.Instruction]] = field(default_factory=list)
    entry_edges: list[tuple[Block, Block]] = field(default_factory=list)  # (edge block, exit)


class Tape:
    def __init__(self, tr: ReverseTransform) -> None:
        self.tr = tr
        self.memo: dict[tuple[int, int], Value] = {}
        self.slot_of: dict[Value, I.Instruction] = {}
        self.array_of: dict[Value, Callable[[], Value]] = {}
        self._cheap: dict[Value, bool] = {}
        self.frees: dict[Block, list[Callable[[], Value]]] = {}

    # --- lookup -----------------------------------------------------------------------------

    def lookup(self, v: Value) -> Value:
        if not isinstance(v, I.Instruction):
            return v
        b = self.tr.b
        key = (id(v), id(b.block))
        got = self.memo.get(key)
        if got is not None:
            return got
        got = self._materialize(v)
        self.memo[key] = got
        return got

    def _materialize(self, v: I.Instruction) -> Value:
        tr = self.tr
        block = v.parent
        assert block is not None, f"value {v} is not in the function"
        lp = tr.loops.loop_of.get(block)
        if self.direct(block):
            return v
        if lp is not None:
            state = tr.loop_states[lp]
            if v is state.iv:
                return tr.b.load(T.I64, state.riv_slot, 8)
            iv = state.ivs.get(v)
            if iv is not None:
                return self._rebuild_iv(iv, state)
        if self.is_cheap(v):
            new = clone_instruction(v, {}, {})
            new.operands = [self.lookup(o) for o in new.operands]
            new.name = v.name
            return tr.b.insert(new)
        return self._load_cached(v, lp)

    def direct(self, block: Block) -> bool:
        """Values of `block` can be used as they are anywhere in the reverse sweep."""
        tr = self.tr
        if block is tr.alloca_block:
            return True
        return tr.loops.loop_of.get(block) is None and tr.dom.dominates(block, tr.exit_block)

    def _rebuild_iv(self, iv: InductionVariable, state: LoopState) -> Value:
        b = self.tr.b
        k = b.load(T.I64, state.riv_slot, 8)
        ty = iv.phi.type
        if ty != T.I64:
            k = b.trunc(k, ty)
        scaled = k if iv.step == 1 else b.mul(k, ConstantInt(ty, iv.step))
        start = self.lookup(iv.start)
        if isinstance(start, ConstantInt) and start.value == 0:
            return scaled
        return b.add(start, scaled, name=iv.phi.name)

    def is_cheap(self, v: Value) -> bool:
        """Recomputable from values that are available without the tape.

        The recursion ends: phis are never cheap, and every other cycle in SSA goes
        through a phi. (Memoized per value; the answer does not depend on the caller.)
        """
        if not isinstance(v, I.Instruction):
            return True
        got = self._cheap.get(v)
        if got is not None:
            return got
        self._cheap[v] = False  # in case of a cycle (only through unreachable code)
        ok = self._cheap_here(v)
        self._cheap[v] = ok
        return ok

    def _cheap_here(self, v: I.Instruction) -> bool:
        tr = self.tr
        if isinstance(v, I.Load):
            if v.flags or v.ordering or v not in tr.original:
                return False  # tape reads are never re-read: their slots change as we go
            if tr.effects.may_be_written(underlying(v.pointer)):
                return False
        elif v.opcode not in _CHEAP:
            return False
        assert v.parent is not None
        own_loop = tr.loops.loop_of.get(v.parent)
        for op in v.operands:
            if not isinstance(op, I.Instruction):
                continue
            blk = op.parent
            if blk is None:
                return False
            lp = tr.loops.loop_of.get(blk)
            if self.direct(blk):
                continue
            if lp is not None:
                st = tr.loop_states[lp]
                if op is st.iv or op in st.ivs:
                    continue
            if own_loop is not None and (lp is None or _strictly_encloses(lp, own_loop)):
                continue  # fetched once per outer iteration: invariant in v's reversed loop
            if not self.is_cheap(op):
                return False
        return True

    # --- caching ----------------------------------------------------------------------------

    def _load_cached(self, v: I.Instruction, lp: Loop | None) -> Value:
        b = self.tr.b
        if lp is None:
            return b.load(v.type, self._slot(v), name=v.name)
        array = self.array_of.get(v)
        if array is None:
            array = self._make_array(v, lp)
            self.array_of[v] = array
        state = self.tr.loop_states[lp]
        arr = array()
        idx = b.load(T.I64, state.riv_slot, 8)
        ptr = b.getelementptr(v.type, arr, [idx])
        return b.load(v.type, ptr, tape_align(v.type), name=v.name)

    def _slot(self, v: I.Instruction) -> I.Instruction:
        slot = self.slot_of.get(v)
        if slot is None:
            slot = self.tr.entry_alloca(v.type, names.cache(v))
            self.slot_of[v] = slot
            Builder().position_after_def(v).store(v, slot)
        return slot

    def _make_array(self, v: I.Instruction, lp: Loop) -> Callable[[], Value]:
        """Create the per-loop-entry array for `v`; return how reverse code reaches it."""
        tr = self.tr
        state = tr.loop_states[lp]
        pre = lp.preheader
        assert pre is not None and pre.terminator is not None
        size = alloc_size(v.type)
        fwd = Builder().position_before(pre.terminator)
        malloc = tr.runtime_decl("malloc", T.FunctionType(T.PTR, (T.I64,)))
        if state.trip is not None:
            if state.trip_value is None:
                state.trip_value = emit_trip_count(fwd, state.trip)
            nbytes = fwd.mul(state.trip_value, ConstantInt(T.I64, size))
            arr = fwd.call(malloc, [nbytes], name=names.cache(v))
            at = Builder().position_after_def(v)
            at.store(v, _gep(at, v.type, arr, state.iv), tape_align(v.type))
            self.frees.setdefault(pre, []).append(lambda: self.lookup(arr))
            return lambda: self.lookup(arr)
        # Unknown trip count: grow the array (realloc) as the loop runs.
        slot = tr.entry_alloca(T.PTR, names.cache(v) + ".ptr")
        cap = tr.entry_alloca(T.I64, names.cache(v) + ".cap")
        initial = 16
        fwd.store(ConstantInt(T.I64, initial), cap, 8)
        fwd.store(fwd.call(malloc, [ConstantInt(T.I64, initial * size)]), slot, 8)
        grow = grow_function(tr.module)
        after_phis = Builder().position_after_phis(lp.header)
        after_phis.call(grow, [slot, cap, state.iv, ConstantInt(T.I64, size)])
        store_at = Builder().position_after_def(v)
        arr = store_at.load(T.PTR, slot, 8)
        store_at.store(v, _gep(store_at, v.type, arr, state.iv), tape_align(v.type))
        finals: dict[Block, Value] = {}
        for exit_block in lp.exits:
            finals[exit_block] = Builder().position_after_phis(exit_block).load(T.PTR, slot, 8)
        rev_slot = tr.entry_alloca(T.PTR, names.cache(v) + ".rev")
        state.grown.append((v, finals, rev_slot))
        for edge, exit_block in state.entry_edges:  # edges already emitted: patch them
            self._store_final(edge, finals[exit_block], rev_slot)
        self.frees.setdefault(pre, []).append(lambda: tr.b.load(T.PTR, rev_slot, 8))
        return lambda: tr.b.load(T.PTR, rev_slot, 8)

    def _store_final(self, edge: Block, final: Value, rev_slot: I.Instruction) -> None:
        tr = self.tr
        saved = (tr.b.block, tr.b.index)
        assert edge.terminator is not None
        tr.b.position_before(edge.terminator)
        tr.b.store(self.lookup(final), rev_slot, 8)
        tr.b.block, tr.b.index = saved

    def enter_loop(self, state: LoopState, edge: Block, exit_block: Block) -> None:
        """Called on each reverse edge that enters the reversed loop from `exit_block`."""
        state.entry_edges.append((edge, exit_block))
        tr = self.tr
        tr.b.store(self.lookup(state.limits[exit_block]), state.riv_slot, 8)
        for _, finals, rev_slot in state.grown:
            tr.b.store(self.lookup(finals[exit_block]), rev_slot, 8)

    def emit_frees(self, rev_blocks: dict[Block, Block], free: Function) -> None:
        """Free each loop's arrays where its reversed loop has finished (reverse preheader)."""
        b = self.tr.b
        for pre, getters in self.frees.items():
            rb = rev_blocks[pre]
            assert rb.terminator is not None
            for get in getters:
                b.position_before(rb.terminator)
                b.call(free, [get()])


MALLOC_ALIGN = 16  # what malloc/realloc guarantee on the 64-bit targets we support


def tape_align(t: T.Type) -> int:
    """Alignment to promise for tape elements: never more than malloc gives (a `<4 x double>`
    has ABI alignment 32, and an aligned vector access to 16-byte memory faults)."""
    from enzyme_py.ir.layout import abi_align

    return min(abi_align(t), MALLOC_ALIGN)


def _strictly_encloses(outer: Loop, inner: Loop) -> bool:
    p = inner.parent
    while p is not None:
        if p is outer:
            return True
        p = p.parent
    return False


def _gep(b: Builder, ty: T.Type, arr: Value, index: Value) -> Value:
    return b.getelementptr(ty, arr, [index])


def is_constant(v: Value) -> bool:
    return isinstance(v, Constant)
