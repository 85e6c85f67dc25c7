"""The forward sweep's control flow as the reverse sweep retraces it: loop counters and the
`came-from` index of merge blocks, added to the working copy before the reverse sweep.

Invariants: every natural loop gets a canonical counter `%iv` (0, 1, 2 ... in its header),
its last value at each exit (`%iv.last`), and an entry-block slot for the reverse iteration
number (`%riv`); every block with several predecessors, loop headers excepted, gets a
`%came.from` phi numbering its incoming edges in predecessor order. The analyses (dominators,
loops, predecessors) are those of the function before instrumentation, which adds no blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzyme_py.ad.context import DerivationContext
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.loops import (
    InductionVariable,
    Loop,
    LoopInfo,
    TripCount,
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
    limits: dict[Block, I.Phi] = field(default_factory=dict)  # exit block -> last iv
    trip: TripCount | None = None
    # tape root -> this loop's trip count, emitted at the end of the root's preheader
    trips: dict[Loop, Value] = field(default_factory=dict)
    # tape root -> flattened iteration number of the nest from the root down to this loop
    flat: dict[Loop, Value] = field(default_factory=dict)
    ivs: dict[Value, InductionVariable] = field(default_factory=dict)
    # (value, exit block -> forward value, reverse slot) of growable arrays
    grown: list[tuple[Value, dict[Block, Value], I.Instruction]] = field(default_factory=list)
    entry_edges: list[tuple[Block, Block]] = field(default_factory=list)  # (edge block, exit)


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
    came_from: dict[Block, I.Phi] = field(default_factory=dict)


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
        for exit_block in lp.exits:
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
        phi = I.Phi(T.I32, name="came.from")
        for k, p in enumerate(preds):
            for _ in range(edge_count(p, block)):
                phi.add_incoming(ConstantInt(T.I32, k), p)
        block.insert(0, phi)
        cf.came_from[block] = phi
