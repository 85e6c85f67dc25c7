"""The forward sweep's control flow as the reverse sweep retraces it: loop counters and the
`came-from` index of merge blocks, added to the working copy before the reverse sweep.

Invariants: every natural loop gets a canonical counter `%iv` (0, 1, 2 ... in its header),
its last value at each exit (`%iv.last`: a phi, or the trip count less one, built in the
preheader, at the exit where the counted test fails), and an entry-block slot for the reverse
iteration number (`%riv`); every block with several predecessors, loop headers excepted, gets
a `%came.from` index of its incoming edges in predecessor order (a phi, or a `select` of the
branch that decided, `_branch_index`). A reversed loop entered at several blocks is entered
through one (`Ways`). The analyses (dominators, loops, predecessors) are those of the function
before instrumentation, which adds no blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzyme_py.ad import names
from enzyme_py.ad.context import DerivationContext
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.loops import (
    InductionVariable,
    Loop,
    LoopInfo,
    TripCount,
    emit_trip_count,
    induction_variables,
    trip_count,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.dominance import Dominators
from enzyme_py.ir.module import Block
from enzyme_py.ir.values import ConstantInt, Value


@dataclass
class LoopState:
    """Per-loop forward instrumentation and reverse bookkeeping."""

    loop: Loop
    iv: I.Phi  # canonical 0, 1, 2, ... counter (forward)
    riv_slot: I.Instruction  # reverse iteration number (alloca)
    limits: dict[Block, Value] = field(default_factory=dict)  # exit block -> last iv
    trip: TripCount | None = None
    # tape root -> this loop's trip count, emitted at the end of the root's preheader
    trips: dict[Loop, Value] = field(default_factory=dict)
    # tape root -> flattened iteration number of the nest from the root down to this loop
    flat: dict[Loop, Value] = field(default_factory=dict)
    ivs: dict[Value, InductionVariable] = field(default_factory=dict)
    # (value, exit block -> forward value, reverse slot) of growable arrays
    grown: list[tuple[Value, dict[Block, Value], I.Instruction]] = field(default_factory=list)
    entry_edges: list[tuple[Block, Block]] = field(default_factory=list)  # (edge block, exit)
    # (value, slot) of values the reversed loop reads but does not change: fetched on entry
    fetched: list[tuple[Value, I.Instruction]] = field(default_factory=list)


@dataclass
class ControlFlow:
    """The working copy's control flow, analysed once before the sweeps."""

    original: set[I.Instruction]  # the instructions of the copy of f (not ones we add)
    dom: Dominators
    loops: LoopInfo
    preds: dict[Block, list[Block]]
    entry: Block
    exit_block: Block  # the block of the one `ret`
    ret: I.Ret
    loop_states: dict[Loop, LoopState] = field(default_factory=dict)
    came_from: dict[Block, Value] = field(default_factory=dict)
    ways: dict[Loop, Ways] = field(default_factory=dict)  # see `reverse_ways`


@dataclass
class Ways:
    """The one way into a reversed loop whose forward loop leaves from several blocks: each
    exit would enter the reversed cycle at a different block, and LLVM does not optimize such
    (irreducible) cycles. Every edge entering it, and its back edge, goes to `block`, which
    switches on `slot`: 0 (the back edge) to the reversed latch, k to the k-th target.

    The edges entering it (not the back edge) go through `enter` first, which then branches to
    `block`: what every way in does alike (the values the reversed loop fetches once, see
    `Tape.enter_loop`) is emitted there once instead of once per edge. A loop left from many
    blocks (every failed check inside it) would otherwise repeat that code at each."""

    block: Block
    slot: I.Instruction
    switch: I.Switch
    enter: Block
    targets: dict[Block, int] = field(default_factory=dict)

    def to(self, target: Block) -> int:
        k = self.targets.get(target)
        if k is None:
            k = self.targets[target] = len(self.targets) + 1
            self.switch.cases.append((ConstantInt(T.I32, k), target))
        return k


def edge_count(src: Block, dst: Block) -> int:
    return sum(1 for s in src.successors() if s is dst)


def instrument_loops(ctx: DerivationContext, cf: ControlFlow) -> None:
    for lp in cf.loops.loops:
        if not lp.is_simplified:
            raise DifferentiationError(
                f"a loop in @{ctx.primal.name} is not in canonical form (no preheader "
                "or several latches); run the preprocessing pipeline (loop-simplify)")
        pre, latch = lp.preheader, lp.latch
        assert pre is not None and latch is not None and latch.terminator is not None
        iv = I.Phi(T.I64, name="iv")
        lp.header.insert(0, iv)
        nxt = Builder().position_before(latch.terminator).add(
            iv, ConstantInt(T.I64, 1), name="iv.next", flags=("nuw", "nsw"))
        for _ in range(edge_count(pre, lp.header)):
            iv.add_incoming(ConstantInt(T.I64, 0), pre)
        for _ in range(edge_count(latch, lp.header)):
            iv.add_incoming(nxt, latch)
        state = LoopState(lp, iv, ctx.entry_alloca(T.I64, "riv"))
        state.trip = trip_count(lp, cf.dom)
        state.ivs = {v.phi: v for v in induction_variables(lp)}
        counted = state.trip.exiting if state.trip is not None else None
        for exit_block in lp.exits:
            if counted is not None and all(p is counted for p in cf.preds[exit_block]):
                # left where the counted test failed: the last iteration is the trip count
                # less one, recomputable in the reverse sweep where the count's inputs are
                assert state.trip is not None
                at = Builder().position_before(pre.terminator)
                tc = state.trips[lp] = emit_trip_count(at, state.trip)  # (the tape's too)
                state.limits[exit_block] = at.sub(tc, ConstantInt(T.I64, 1), name="iv.last")
                continue
            limit = I.Phi(T.I64, name="iv.last")
            exit_block.insert(0, limit)
            for p in cf.preds[exit_block]:
                for _ in range(edge_count(p, exit_block)):
                    limit.add_incoming(iv, p)
            state.limits[exit_block] = limit
        cf.loop_states[lp] = state


def instrument_merges(cf: ControlFlow) -> None:
    """A `came-from` index for blocks with several predecessors (loop headers excepted)."""
    headers = {lp.header for lp in cf.loops.loops}
    for block in cf.dom.rpo:
        preds = cf.preds[block]
        if len(preds) < 2 or block in headers:
            continue
        index = _branch_index(cf, block, preds)
        if index is None:
            index = I.Phi(T.I32, name="came.from")
            for k, p in enumerate(preds):
                for _ in range(edge_count(p, block)):
                    index.add_incoming(ConstantInt(T.I32, k), p)
            block.insert(0, index)
        cf.came_from[block] = index


def _branch_index(cf: ControlFlow, block: Block, preds: list[Block]) -> Value | None:
    """The came-from index of a two-way merge as `select %c, k, 1 - k` of the branch that
    chose the way: that of `block`'s immediate dominator, when each of its two edges leads to
    one predecessor only. The reverse sweep recomputes it where `%c` is available, instead of
    keeping the index on the tape. (The dominator runs once per iteration of their common
    loop, so its last test is the one that led here.)"""
    dom = cf.dom.idom.get(block)
    if len(preds) != 2 or dom is None or any(edge_count(p, block) != 1 for p in preds):
        return None
    br = dom.terminator
    if not isinstance(br, I.Br) or not br.is_conditional or \
            cf.loops.loop_of.get(dom) is not cf.loops.loop_of.get(block):
        return None
    yes, no = br.targets
    if yes is no:
        return None

    def through(succ: Block, p: Block) -> bool:  # reaching `p` means leaving `dom` to `succ`
        if succ is block:
            return p is dom
        return p is not dom and cf.preds[succ] == [dom] and cf.dom.dominates(succ, p)

    if through(yes, preds[0]) and through(no, preds[1]):
        first = 0
    elif through(yes, preds[1]) and through(no, preds[0]):
        first = 1
    else:
        return None
    cond = br.condition
    assert cond is not None
    at = Builder().position_before(block.instructions[block.first_insertion_index()])
    return at.select(cond, ConstantInt(T.I32, first), ConstantInt(T.I32, 1 - first),
                     name="came.from")


def reverse_ways(ctx: DerivationContext, cf: ControlFlow, rev: dict[Block, Block]) -> None:
    """`Ways` for the loops whose reversal would be entered at more than one block (inner
    loops first: an exit from inside a child loop that has them enters the child's)."""
    landings: dict[Loop, set[object]] = {}
    for lp in reversed(cf.loops.loops):  # inner loops first
        landings[lp] = {_landing(cf, lp, x) for x in lp.exiting}
        assert lp.latch is not None
        if len(landings[lp]) < 2 or cf.loops.loop_of.get(lp.latch) is not lp:
            continue  # (a latch inside a child loop: its back edge enters the child's ways)
        block = ctx.work.append_block(names.reverse_block(lp.header.name) + ".ways")
        enter = ctx.work.append_block(names.reverse_block(lp.header.name) + ".enter")
        slot = ctx.entry_alloca(T.I32, "way")
        b = Builder().position_at_end(block)
        switch = b.switch(b.load(T.I32, slot, name="way"), rev[lp.latch])
        assert isinstance(switch, I.Switch)
        b.position_at_end(enter).br(block)
        cf.ways[lp] = Ways(block, slot, switch, enter)


def _landing(cf: ControlFlow, lp: Loop, x: Block) -> object:
    """Where the reversal of `lp` is entered from an exit of block `x`: `x`'s reverse block,
    or the ways of the child loop holding `x` (else where that child is entered)."""
    child = cf.loops.loop_of[x]
    if child is lp:
        return x
    while child.parent is not lp:
        assert child.parent is not None
        child = child.parent
    return child if child in cf.ways else _landing(cf, child, x)


def way_in(cf: ControlFlow, b: Builder, target: Block, entering: list[Loop],
           around: Loop | None) -> Block:
    """Where a reverse edge to `target` goes: to the ways of the loop it goes around again
    (`around`, its back edge), and of each reversed loop it enters (`entering`, outermost
    first; through the ways' `enter` block), recording which way to take there."""
    ways = cf.ways.get(around) if around is not None else None
    if ways is not None:
        b.store(ConstantInt(T.I32, 0), ways.slot)
        target = ways.block
    for lp in reversed(entering):
        ways = cf.ways.get(lp)
        if ways is not None:
            b.store(ConstantInt(T.I32, ways.to(target)), ways.slot)
            target = ways.enter
    return target
