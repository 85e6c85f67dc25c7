"""Overwritten loads: the reverse of a loop that reads each element one trip before it
overwrites it, without a dependence through the shadow.

An in-place stencil step (`u[1:-1] = u[1:-1] + k * (u[:-2] - 2 * u[1:-1] + u[2:])` as the
NumPy front end compiles it, or C's `a[i] = f(a[i + 1], ...)`) is a single-block loop whose
trip t loads `u[t + 1]` (L) and stores `u[t]` (S): L reads the element S overwrites in the
next trip. Reversed naively, trip t reads and zeroes `du[t]` (S's adjoint) and adds into
`du[t + 1]` (L's), the element the previous reversed trip zeroed: a store-to-load dependence
at distance one that keeps the reversed loop scalar. Yet every element S writes, but the
first, is zeroed by S's adjoint just before L's adjoint adds into it, so its final adjoint is
L's contribution alone. Here L's adjoint *stores* its contribution (plus the element's old
adjoint in the first reversed trip, the one element S never writes), S's adjoint only reads,
and the one element nobody stores, S's in the last reversed trip, is zeroed when the
reversed loop ends. The reversed loop then only reads an element before it writes it.

A *pair* is one store S and one active load L of the same float type in an innermost
single-block loop (its header is its only latch, with one exit and a preheader), at
addresses `base + u * t + o` (`load_windows.affine_address`, u the element size, either
direction) with L one trip ahead of S (o_L = o_S + u). No other instruction of the loop may
read or write memory the base may reach, and the loop calls nothing that touches memory.
Host code only (plain adds).

Invariants: each element's final adjoint is the one the naive reversal leaves (S's adjoint
reads every element before anything in the reversed loop writes it; L's adjoint writes each
element once); a loop's `riv.start` slot holds its reversed loop's first trip number while it runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.ad.adjoint_values import add_values
from enzyme_py.ad.load_windows import affine_address, leaving_block, single_block_loops
from enzyme_py.analysis.loops import Loop, induction_variables
from enzyme_py.analysis.memory import may_alias, underlying
from enzyme_py.analysis.memory_effects import MemoryEffects, is_pure_call
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import store_size
from enzyme_py.ir.module import Block
from enzyme_py.ir.values import ConstantInt, zero


@dataclass(eq=False)
class Pair:
    """S (the store) and L (the load one trip ahead) of one loop."""

    loop: Loop
    store: I.Store
    load: I.Load
    last_at: I.Instruction | None = None  # slot: S's shadow address in the latest trip


class OverwrittenLoads:
    """The pairs of one reverse-mode derivation, and the code that reverses them."""

    def __init__(self, pairs: list[Pair]) -> None:
        self.pairs = pairs
        self._by_store = {p.store: p for p in pairs}
        self._by_load = {p.load: p for p in pairs}
        self._by_loop: dict[Loop, list[Pair]] = {}
        self._start: dict[Loop, I.Instruction] = {}  # slot: the first reversed trip's number
        for p in pairs:
            self._by_loop.setdefault(p.loop, []).append(p)

    def takes_store(self, inst: I.Store) -> bool:
        return inst in self._by_store

    def takes_load(self, inst: I.Load) -> bool:
        return inst in self._by_load

    def has(self, lp: Loop | None) -> bool:
        return lp is not None and lp in self._by_loop

    # --- emission (the reverse sweep calls these) -------------------------------------------

    def reverse_store(self, st, inst: I.Store) -> None:
        """S's adjoint: read the element's adjoint (L's adjoint of the next reversed trip
        replaces it), and remember where, for the zero when the loop ends."""
        pair = self._by_store[inst]
        self._slots(st, pair)
        value, ptr = inst.operands
        sp = st.reverse_shadow(ptr)
        assert pair.last_at is not None
        st.b.store(sp, pair.last_at)
        if st.is_active(value):
            st.add_adjoint(value, st.b.load(value.type, sp, inst.align))

    def end_trip(self, st, lp: Loop) -> None:
        """After a reversed trip's instructions, L's adjoint: the element gets this trip's
        contribution, added to what it held only in the first reversed trip (every later
        element was S's, so held zero). L's own reversal emits nothing: its adjoint is
        complete there, but stored here, after the adjoints the trip carries to the next one
        are computed, LLVM's vectorizer sees the carried values as recurrences."""
        b = st.b
        for pair in self._by_loop[lp]:
            self._slots(st, pair)
            ld = pair.load
            d = st.take_adjoint(ld)
            sp = st.reverse_shadow(ld.pointer)
            old = b.load(ld.type, sp, ld.align)
            riv = b.load(T.I64, st.cf.loop_states[lp].riv_slot, 8)
            first = b.icmp("eq", riv, b.load(T.I64, self._start_slot(st, lp), 8),
                           name="riv.entered")
            held = b.select(first, old, zero(ld.type))
            b.store(add_values(b, held, d), sp, ld.align)

    def enter(self, st, lp: Loop) -> None:
        """On an edge entering the reversed loop (after its counter is set)."""
        if lp in self._by_loop:
            riv = st.b.load(T.I64, st.cf.loop_states[lp].riv_slot, 8)
            st.b.store(riv, self._start_slot(st, lp), 8)

    def flush(self, st, lp: Loop, after: Block) -> Block:
        """A block zeroing S's element of the last reversed trip (no L adjoint stores it),
        then going to `after`."""
        b = Builder()
        blk = leaving_block(st, f"rev.{lp.header.name}.overwritten", b, after)
        for pair in self._by_loop[lp]:
            self._slots(st, pair)
            assert pair.last_at is not None
            value = pair.store.operands[0]
            b.store(zero(value.type), b.load(T.PTR, pair.last_at), pair.store.align)
        return blk

    def _slots(self, st, pair: Pair) -> None:
        if pair.last_at is None:
            pair.last_at = st.ctx.entry_alloca(T.PTR, "overwritten.at")

    def _start_slot(self, st, lp: Loop) -> I.Instruction:
        if lp not in self._start:
            self._start[lp] = st.ctx.entry_alloca(T.I64, "riv.start", ConstantInt(T.I64, 0))
        return self._start[lp]


# --- planning (pure: reads the function, changes nothing) -----------------------------------


def plan_overwrites(loops: list[Loop], effects: MemoryEffects, is_active, atomics: bool
                    ) -> OverwrittenLoads:
    """The pairs of the innermost single-block loops (`is_active` tells active values;
    `atomics`: shadow adds may need atomics, then there are none)."""
    return OverwrittenLoads([p for lp in single_block_loops(loops, effects, atomics)
                             for p in _loop_pairs(lp, is_active)])


def _loop_pairs(lp: Loop, is_active) -> list[Pair]:
    block = lp.header
    insts = block.instructions
    if any(isinstance(i, I.Call) and not is_pure_call(i.callee_name or "") or
           isinstance(i, (I.Invoke, I.AtomicRMW, I.CmpXchg)) for i in insts):
        return []
    ivs = induction_variables(lp)
    out = []
    for s in insts:
        if not (isinstance(s, I.Store) and _plain_float(s, s.operands[0].type)):
            continue
        objs = underlying(s.pointer)
        touching = [i for i in insts if isinstance(i, (I.Load, I.Store)) and i is not s and
                    may_alias(objs, underlying(i.pointer))]
        if len(touching) != 1 or not isinstance(touching[0], I.Load):
            continue
        ld = touching[0]
        if ld.type != s.operands[0].type or not _plain_float(ld, ld.type) or \
                not is_active(ld):
            continue
        size = store_size(ld.type)
        for iv in ivs:
            sa, la = affine_address(s.pointer, iv, lp), affine_address(ld.pointer, iv, lp)
            if sa is None or la is None or sa.base is not la.base or sa.terms != la.terms or \
                    sa.per_iv != la.per_iv or abs(sa.per_iv * iv.step) != size:
                continue
            if la.offset - sa.offset == sa.per_iv * iv.step:  # L is one trip ahead of S
                out.append(Pair(lp, s, ld))
            break
    return out


def _plain_float(inst: I.Load | I.Store, ty: T.Type) -> bool:
    return ty.is_float and not inst.flags and inst.ordering is None  # (flags: volatile)
