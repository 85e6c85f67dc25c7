"""Binomial checkpointing (Griewank's revolve) of an outlined loop: its augmented/reverse pair.

`checkpoint_loops.py` moved a time loop of `f` into `@L` (calls `@L.step` until it returns
non-zero) and described the loop's state in a `CheckpointPlan`. A call of `@L` in `f` then
gets this pair instead of an ordinary augmented/reverse pair (the split ABI of `split.py`):

The unit of the schedule is a *block*: B consecutive steps whose states take together about
`BLOCK_STATE_BYTES` (B >= 1; the last block of the loop may be shorter). A block is reversed
by the derivative of `@L.step.block` (`checkpoint_blocks.py`: B steps in one loop, one tape),
right after it ran forward with its tape, so the tape is written and read back while it is
in the cache, and only the states at block boundaries are kept.

- `@augmented_L(args and shadows..., ptr %frees, ptr %tape.out)` copies the state (the
  `%state` record and every region) into its tape, runs the loop as the primal does (no tape
  per iteration) and counts its steps N. Given a number of states or a budget, it also keeps
  the state before each block while they fit (none when a bound on N known at entry says
  they will not); when all blocks' states fit, the reverse sweep replays them (each block
  reversed from its kept state, no step run again but with its tape), else they are given up.
- `@diffe_L(args and shadows..., ptr %tape)` keeps the state it finds (restored at the end),
  puts back the state at the loop's start and reverses the M = ceil(N / B) blocks by revolve:
  with S states kept (the start one among them), the blocks between two kept states are run
  forward again, a kept state is taken at the point the binomial schedule chooses, and each
  block is reversed right after it runs forward once more, by the block's own derivative. It
  returns the sum over the blocks of the adjoints of the float arguments.

A loop that a bound known at entry (the plan's `trips`) says is one block runs as that
block's augmented half, and the reverse function runs its reverse half: no state is copied,
no step runs twice, and checkpointing costs what taping costs.

With S kept states and M blocks, every step runs forward at most r times more, for the least
r with C(S + r, S) >= M (`enzyme_py.revolve_split`), plus once with its tape; the memory is
S + 1 copies of the state and one block's tape. S is the plan's `snapshots`, or what three
quarters of `budget` bytes hold (a block's states take at most the last quarter), or about
sqrt(M) (`enzyme_py.checkpoint_snapshots`).

Invariants: the adjoints are those of the tape-everything gradient (the same step gradients
are applied to the same states, in the same order; only the adjoints of the float arguments
are summed per block first, so they agree to rounding); every block but the last has B steps;
the memory of the state is as the forward sweep left it when `@diffe_L` returns; every buffer
either function makes is freed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from enzyme_py.ad import names
from enzyme_py.ad.checkpoint_blocks import block_function
from enzyme_py.ad.checkpoint_loops import CheckpointPlan
from enzyme_py.ad.derived import SplitPair
from enzyme_py.ad.frees import FREES_TYPE
from enzyme_py.ad.libc import LibC
from enzyme_py.ad.runtime import (
    bytes_product,
    checkpoint_snapshots_function,
    free_deferred_function,
    revolve_split_function,
    tape_alloc_function,
)
from enzyme_py.ad.signature import result_type
from enzyme_py.analysis.activities import Activity
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.values import ConstantInt, Value, zero

# the derivative of a block: its augmented/reverse pair (`reverse.py`), given the block's
# activities and its stable arguments (`ReverseOptions.stable_args`)
BlockDerivative = Callable[[Function, list[str], tuple[int, ...]], SplitPair]
# the tape: { i64 N, ptr kept states or null, ptr the one block's tape or null }, then the
# start state
HEADER = 24
# a block's steps have this many bytes of states together: its tape, written and read back
# at once, then stays in the cache (measured: 1/4/8/16 MiB on the stencils; 4 MiB was best)
BLOCK_STATE_BYTES = 1 << 22
RUN_TO_THE_END = 1 << 62  # (a block of this many steps ends where the loop ends)


def checkpoint_pair(module: Module, loop: Function, plan: CheckpointPlan,
                    acts: Sequence[str], block_derivative: BlockDerivative) -> SplitPair:
    """The checkpointed augmented/reverse pair of a call of `loop` with activities `acts`;
    `block_derivative` makes the derivative of the block function (the caller's
    transform)."""
    step = module.get_function(plan.step)
    acts = [Activity.parse(a) for a in acts]
    block = block_function(module, step)
    # (a noalias pointer that is not a region's base reaches memory the loop only reads and
    # no code after it writes, else it would be a region: it keeps until the reverse sweep,
    # as the steps run forward again from kept states already assume)
    bases = {base for base, _ in plan.regions}
    stable = tuple(k for k, a in enumerate(step.args[:-1])
                   if "noalias" in a.attrs and k not in bases)
    inner = block_derivative(block, [str(a) for a in acts] + [str(Activity.CONST)], stable)
    return _Builder(module, loop, block, plan, acts, inner).build()


class _Builder:
    def __init__(self, module: Module, loop: Function, block: Function, plan: CheckpointPlan,
                 acts: list[Activity], inner: SplitPair) -> None:
        self.module, self.loop, self.block, self.plan = module, loop, block, plan
        self.acts, self.inner, self.libc = acts, inner, LibC(module)
        # the arguments with their shadows, as both functions of the pair take them first
        self.wide: list[tuple[T.Type, str | None]] = []
        self.primal_at: list[int] = []  # where each argument of `loop` sits in `wide`
        for a, act in zip(loop.args, acts, strict=True):
            self.primal_at.append(len(self.wide))
            self.wide.append((a.type, a.name))
            if act.shadowed:
                self.wide.append((a.type, names.shadow(a) if a.name else None))
        self.outs = [a.type for a, act in zip(loop.args, acts, strict=True)
                     if act is Activity.OUT]

    def build(self) -> SplitPair:
        base = self.loop.name or "loop"
        wide_types = tuple(t for t, _ in self.wide)
        aug = self._function(names.augmented_function(base),
                             T.FunctionType(T.VOID, wide_types + (T.PTR, T.PTR)),
                             ["frees", "tape.out"])
        rev = self._function(names.reverse_function(base),
                             T.FunctionType(result_type(self.outs), wide_types + (T.PTR,)),
                             ["tape"])
        self._augmented(aug)
        self._reverse(rev)
        return SplitPair(aug, rev, False)

    def _function(self, name: str, ftype: T.FunctionType, extra: list[str]) -> Function:
        fn = Function(self.module.unique_name(name), ftype,
                      [n for _, n in self.wide] + extra)
        fn.prefix = ["internal"]
        return self.module.add_function(fn)

    # --- pieces ----------------------------------------------------------------------------

    def _primal_args(self, wide: Sequence[Value]) -> list[Value]:
        return [wide[k] for k in self.primal_at]

    def _state_bytes(self, b: Builder, wide: Sequence[Value]) -> Value:
        args = self._primal_args(wide)
        total: Value = ConstantInt(T.I64, self.plan.state_bytes)
        for _, s in self.plan.regions:
            total = b.add(total, args[s], name="state.bytes")
        return total

    def _block_steps(self, b: Builder, size: Value) -> Value:
        """The steps of a block: as many states as `BLOCK_STATE_BYTES` hold (with a budget,
        a quarter of it at most: the kept states have the rest), at least one."""
        budget = self.plan.budget
        room = min(BLOCK_STATE_BYTES, budget // 4) if budget > 0 else BLOCK_STATE_BYTES
        fit = b.binop("udiv", ConstantInt(T.I64, room), size, name="block.fit")
        one = ConstantInt(T.I64, 1)
        return b.select(b.icmp("ugt", fit, one), fit, one, name="block.steps")

    def _blocks(self, b: Builder, steps: Value, block: Value) -> Value:
        """How many blocks `steps` (>= 0) steps make: the last one may be short."""
        more = b.add(steps, b.sub(block, ConstantInt(T.I64, 1)), name="blocks.up")
        return b.binop("udiv", more, block, name="blocks")

    def _states_budget(self) -> int:
        """The bytes of the budget that the kept states may take (the block has the rest)."""
        budget = self.plan.budget
        return budget - budget // 4 if budget > 0 else 0

    def _copy_state(self, b: Builder, wide: Sequence[Value], snapshot: Value,
                    save: bool) -> None:
        """Copy the state into `snapshot` (`save`) or back out of it."""
        args = self._primal_args(wide)
        pieces: list[tuple[Value, Value]] = [(args[-1],
                                              ConstantInt(T.I64, self.plan.state_bytes))]
        pieces += [(args[p], args[s]) for p, s in self.plan.regions]
        offset: Value = ConstantInt(T.I64, 0)
        for ptr, size in pieces:
            at = b.getelementptr(T.I8, snapshot, [offset], name="snapshot.at")
            self.libc.call_memcpy(b, at if save else ptr, ptr if save else at, size)
            offset = b.add(offset, size, name="snapshot.next")

    def _run_steps(self, b: Builder, wide: Sequence[Value], count: Value | None,
                   keep: tuple[Value, Value, Value, Value] | None = None) -> Value:
        """Run the loop's steps with the block function: `count` steps (None: until the loop
        ends); returns the number of steps run. `keep` = (buffer, state size, room, block
        steps): then the steps run a block at a time, and the state before block j is
        copied to the buffer's j-th place while j < room. The builder ends after them."""
        args = self._primal_args(wide)
        if keep is None:
            want = count if count is not None else ConstantInt(T.I64, RUN_TO_THE_END)
            return _magnitude(b, b.call(self.block, [*args, want], name="ran"))
        buf, size, room, block = keep
        fn = b.block.parent if b.block is not None else None
        assert fn is not None and b.block is not None
        start = b.block
        body, save, go, done = (fn.append_block(x) for x in ("blocks.run", "blocks.keep",
                                                              "blocks.step", "blocks.done"))
        b.br(body)
        lb = Builder(body)
        zero64 = ConstantInt(T.I64, 0)
        j = lb.phi(T.I64, [(zero64, start)], name="block.index")
        n = lb.phi(T.I64, [(zero64, start)], name="steps.before")
        lb.condbr(lb.icmp("slt", j, room, name="keep.state"), save, go)
        sb = Builder(save)
        at = sb.getelementptr(T.I8, buf, [sb.mul(j, size)], name="kept.at")
        self._copy_state(sb, wide, at, save=True)
        sb.br(go)
        gb = Builder(go)
        got = gb.call(self.block, [*args, block], name="ran")
        total = gb.add(n, _magnitude(gb, got), name="steps")
        j.add_incoming(gb.add(j, ConstantInt(T.I64, 1)), go)  # type: ignore[attr-defined]
        n.add_incoming(total, go)  # type: ignore[attr-defined]
        gb.condbr(gb.icmp("sgt", got, zero64, name="loop.goes.on"), body, done)
        b.position_at_end(done)
        return total

    def _alloc(self, b: Builder, factors: list[Value], name: str) -> Value:
        """Tape memory for the product of byte-count `factors` (saturated, as the tape's own:
        `bytes_mul`), allocated through `enzyme_py.tape_alloc`, which `tape-checks` checks:
        a snapshot that cannot be allocated stops the gradient with a message instead of
        being written through."""
        nbytes = bytes_product(b, self.module, factors)
        return b.call(tape_alloc_function(self.module), [nbytes], name=name)

    # --- the augmented function ------------------------------------------------------------

    def _augmented(self, aug: Function) -> None:
        """Keep the start state, run the loop; with a fixed number of states or a budget,
        also keep the state before each block while they fit (then the reverse sweep needs
        no step run again but each block's once with its tape), and give them up once the
        loop turns out longer. A loop known at entry to be one block runs as that block's
        augmented half instead (its tape kept, no state copied, no step run twice)."""
        wide = aug.args[:len(self.wide)]
        frees, tape_out = aug.args[-2], aug.args[-1]
        b = Builder(aug.append_block("entry"))
        size = self._state_bytes(b, wide)
        block = self._block_steps(b, size)
        if self.plan.trips >= 0:  # (a bound on the steps: the block stops where the loop ends)
            trips = self._primal_args(wide)[self.plan.trips]
            one, blocks = aug.append_block("one.block"), aug.append_block("blocks")
            b.condbr(b.icmp("sle", trips, block, name="one.block"), one, blocks)
            ob = Builder(one)
            header = self._alloc(ob, [ConstantInt(T.I64, HEADER)], "tape")  # (no state)
            slot = _block_tape_field(ob, header)
            ran = ob.call(self.inner.augmented, [*wide, trips, frees, slot], name="ran")
            ob.store(_magnitude(ob, ran), header, 8)
            ob.store(zero(T.PTR), _states_field(ob, header), 8)
            ob.store(header, tape_out, 8)
            ob.ret()
            b.position_at_end(blocks)
        tape = self._alloc(b, [b.add(size, ConstantInt(T.I64, HEADER))], "tape")
        b.store(zero(T.PTR), _block_tape_field(b, tape), 8)
        start = b.getelementptr(T.I8, tape, [ConstantInt(T.I64, HEADER)], name="start")
        self._copy_state(b, wide, start, save=True)
        room = self._room(b, size)
        if room is None:
            n = self._run_steps(b, wide, None)
            b.store(n, tape, 8)
            b.store(zero(T.PTR), _states_field(b, tape), 8)
        else:
            if self.plan.trips >= 0:  # (known not to fit: keep none)
                trips = self._primal_args(wide)[self.plan.trips]
                # (else one state per block: a fixed number may be far more than it needs)
                steps = b.select(b.icmp("slt", trips, ConstantInt(T.I64, 0)),
                                 ConstantInt(T.I64, 0), trips)
                blocks = self._blocks(b, steps, block)
                room = b.select(b.icmp("sgt", blocks, room), ConstantInt(T.I64, 0), blocks,
                                name="room.used")
            states = self._alloc(b, [room, size], "states")
            n = self._run_steps(b, wide, None, keep=(states, size, room, block))
            fits = b.icmp("sle", self._blocks(b, n, block), room, name="all.kept")
            here = b.block
            assert here is not None and here.parent is not None
            drop = here.parent.append_block("states.drop")
            kept = here.parent.append_block("states.kept")
            b.condbr(fits, kept, drop)
            db = Builder(drop)
            self.libc.call_free(db, states)
            db.br(kept)
            b.position_at_end(kept)
            held = b.phi(T.PTR, [(states, here), (zero(T.PTR), drop)], name="held")
            b.store(n, tape, 8)
            b.store(held, _states_field(b, tape), 8)
        b.store(tape, tape_out, 8)
        b.ret()

    def _room(self, b: Builder, size: Value) -> Value | None:
        """How many states the forward sweep may keep (None: none, without a fixed number
        or a budget the trip count decides, in the reverse sweep)."""
        if self.plan.snapshots > 0:
            return ConstantInt(T.I64, self.plan.snapshots)
        if self.plan.budget > 0:
            return b.call(checkpoint_snapshots_function(self.module),
                          [ConstantInt(T.I64, 2**62), size, ConstantInt(T.I64, 0),
                           ConstantInt(T.I64, self._states_budget())], name="room")
        return None

    # --- the reverse function --------------------------------------------------------------

    def _reverse(self, rev: Function) -> None:
        """Reverse the blocks by the binomial schedule, without recursion (a loop keeps the
        schedule's frames, one per kept state, in `frames`): frame k holds kept state k,
        taken before block `pos[k]`, and still has blocks `pos[k]` .. `end[k] - 1` to
        reverse; the memory holds the state before block `pos[k]` when the loop starts
        over. Every block but the last has `block` steps."""
        wide = rev.args[:len(self.wide)]
        tape = rev.args[-1]
        entry = rev.append_block("entry")
        b = Builder(entry)
        depth = b.alloca(T.I64, name="depth")
        sums = [b.alloca(t, name="sum") for t in self.outs]
        slots = (b.alloca(FREES_TYPE, name="frees"), b.alloca(T.PTR, name="block.tape.slot"))
        n = b.load(T.I64, tape, 8, name="n")
        if self.plan.trips >= 0:  # (the loop may have run as one block, with its tape)
            one_tape = b.load(T.PTR, _block_tape_field(b, tape), 8, name="one.tape")
            one, entry = rev.append_block("one.block"), rev.append_block("blocks")
            b.condbr(b.icmp("ne", one_tape, zero(T.PTR)), one, entry)
            ob = Builder(one)
            got = ob.call(self.inner.reverse, [*wide, n, one_tape], name="block.adjoints")
            self.libc.call_free(ob, tape)
            self._return(ob, self._adjoints(ob, got))
            b.position_at_end(entry)
        start = b.getelementptr(T.I8, tape, [ConstantInt(T.I64, HEADER)], name="start")
        size = self._state_bytes(b, wide)
        block = self._block_steps(b, size)
        blocks = self._blocks(b, n, block)
        steps = (n, block)
        final = self._alloc(b, [size], "final")
        self._copy_state(b, wide, final, save=True)
        for acc, t in zip(sums, self.outs, strict=True):
            b.store(zero(t), acc)
        held = b.load(T.PTR, _states_field(b, tape), 8, name="held")
        replay, schedule, finish = (rev.append_block(x) for x in ("replay", "schedule",
                                                                 "finish"))
        b.condbr(b.icmp("ne", held, zero(T.PTR)), replay, schedule)

        rb = Builder(replay)  # every state was kept: no block runs again but with its tape
        t = rb.phi(T.I64, [(blocks, entry)], name="t")
        t1 = rb.sub(t, ConstantInt(T.I64, 1), name="t.prev")
        self._copy_state(rb, wide, rb.getelementptr(T.I8, held, [rb.mul(t1, size)]),
                         save=False)
        self._reverse_block(rb, wide, sums, slots, steps, t1)
        t.add_incoming(t1, rb.block)  # type: ignore[attr-defined]
        replayed = rb.block
        assert replayed is not None
        replay_done = rev.append_block("replay.done")
        rb.condbr(rb.icmp("sgt", t1, ConstantInt(T.I64, 0)), replay, replay_done)
        Builder(replay_done).call(self.libc.free(), [held])
        Builder(replay_done).br(finish)

        b = Builder(schedule)
        count = b.call(checkpoint_snapshots_function(self.module),
                       [blocks, size, ConstantInt(T.I64, self.plan.snapshots),
                        ConstantInt(T.I64, self._states_budget())], name="snapshots")
        free_slots = b.sub(count, ConstantInt(T.I64, 1), name="free.slots")
        kept = self._alloc(b, [free_slots, size], "kept")
        frames = self._alloc(b, [count, ConstantInt(T.I64, 16)], "frames")
        zero64 = ConstantInt(T.I64, 0)
        b.store(zero64, depth)
        b.store(zero64, _frame(b, frames, zero64, 0))
        b.store(blocks, _frame(b, frames, zero64, 1))
        self._copy_state(b, wide, start, save=False)
        head, split, keep, last, leaf, pop, done = (
            rev.append_block(x) for x in ("frame", "split", "keep", "last", "leaf", "pop",
                                          "done"))
        b.br(head)
        one = ConstantInt(T.I64, 1)

        hb = Builder(head)
        k = hb.load(T.I64, depth, name="k")
        a = hb.load(T.I64, _frame(hb, frames, k, 0), name="a")
        end = hb.load(T.I64, _frame(hb, frames, k, 1), name="end")
        free = hb.sub(free_slots, k, name="s")
        length = hb.sub(end, a, name="length")
        hb.condbr(hb.icmp("sgt", length, one), split, leaf)

        sb = Builder(split)  # run ahead to the next state to keep
        ahead = sb.call(revolve_split_function(self.module), [length, free], name="ahead")
        mid = sb.add(a, ahead, name="mid")
        self._run_steps(sb, wide, sb.mul(ahead, block, name="ahead.steps"))  # (whole blocks)
        sb.condbr(sb.icmp("sgt", free, zero64), keep, last)

        kb = Builder(keep)  # keep it, and reverse the steps after it first (a new frame)
        k1 = kb.add(k, one, name="k.next")
        self._copy_state(kb, wide, self._slot(kb, start, kept, size, k1), save=True)
        kb.store(mid, _frame(kb, frames, k1, 0))
        kb.store(end, _frame(kb, frames, k1, 1))
        kb.store(mid, _frame(kb, frames, k, 1))
        kb.store(k1, depth)
        kb.br(head)

        lb = Builder(last)  # no state left to keep: mid is end - 1, reverse it now
        self._reverse_block(lb, wide, sums, slots, steps, mid)
        lb.store(mid, _frame(lb, frames, k, 1))
        self._copy_state(lb, wide, self._slot(lb, start, kept, size, k), save=False)
        lb.br(head)

        fb = Builder(leaf)  # one block left in this frame: reverse it, back to the frame before
        self._reverse_block(fb, wide, sums, slots, steps, a)
        fb.condbr(fb.icmp("eq", k, zero64), done, pop)

        pb = Builder(pop)
        up = pb.sub(k, one, name="k.up")
        pb.store(up, depth)
        self._copy_state(pb, wide, self._slot(pb, start, kept, size, up), save=False)
        pb.br(head)

        db = Builder(done)
        for p in (kept, frames):
            self.libc.call_free(db, p)
        db.br(finish)
        db = Builder(finish)
        self._copy_state(db, wide, final, save=False)
        for p in (final, tape):
            self.libc.call_free(db, p)
        self._return(db, [db.load(t, acc, name="sum")
                          for acc, t in zip(sums, self.outs, strict=True)])

    def _return(self, b: Builder, adjoints: list[Value]) -> None:
        """Return the adjoints of the float arguments (nothing, one, or a struct)."""
        if not adjoints:
            b.ret()
        elif len(adjoints) == 1:
            b.ret(adjoints[0])
        else:
            agg: Value = zero(result_type(self.outs))
            for j, v in enumerate(adjoints):
                agg = b.insertvalue(agg, v, [j])
            b.ret(agg)

    def _adjoints(self, b: Builder, got: Value) -> list[Value]:
        """The adjoints of the float arguments in a block's result."""
        if len(self.outs) == 1:
            return [got]
        return [b.extractvalue(got, [j]) for j in range(len(self.outs))]

    def _slot(self, b: Builder, start: Value, kept: Value, size: Value, k: Value) -> Value:
        """Kept state k: the tape's start state for 0, else the (k - 1)-th of `kept`."""
        prev = b.sub(k, ConstantInt(T.I64, 1))
        at = b.getelementptr(T.I8, kept, [b.mul(prev, size)], name="kept.at")
        return b.select(b.icmp("eq", k, ConstantInt(T.I64, 0)), start, at, name="slot")

    def _reverse_block(self, b: Builder, wide: Sequence[Value], sums: Sequence[Value],
                       slots: tuple[Value, Value], steps: tuple[Value, Value],
                       j: Value) -> None:
        """Block j forward with its tape, then its reverse; its adjoints added to `sums`
        (`slots`: the block's list of deferred frees and its tape pointer, on the stack;
        `steps`: the loop's steps and the steps of a whole block)."""
        n, block = steps
        left = b.sub(n, b.mul(j, block), name="steps.left")
        count = b.select(b.icmp("slt", left, block), left, block, name="block.count")
        args = [*wide, count]
        frees, tape_slot = slots
        b.store(zero(FREES_TYPE), frees, 8)
        b.call(self.inner.augmented, [*args, frees, tape_slot])
        tape = b.load(T.PTR, tape_slot, 8, name="block.tape")
        got = b.call(self.inner.reverse, [*args, tape], name="block.adjoints")
        listed = b.getelementptr(FREES_TYPE, frees, [ConstantInt(T.I32, 0),
                                                     ConstantInt(T.I32, 2)])
        b.call(free_deferred_function(self.module), [frees, listed])
        for acc, t, v in zip(sums, self.outs, self._adjoints(b, got), strict=True):
            b.store(b.fadd(b.load(t, acc), v), acc)


def _magnitude(b: Builder, ran: Value) -> Value:
    """The steps a call of the block function ran (it negates them when the loop ended)."""
    return b.select(b.icmp("slt", ran, ConstantInt(T.I64, 0)),
                    b.sub(ConstantInt(T.I64, 0), ran), ran, name="steps.ran")


def _block_tape_field(b: Builder, tape: Value) -> Value:
    """The tape's pointer to the tape of the one block the loop ran as (null: none)."""
    return b.getelementptr(T.I8, tape, [ConstantInt(T.I64, 16)], name="one.tape.at")


def _states_field(b: Builder, tape: Value) -> Value:
    """The tape's pointer to the states the forward sweep kept (null: none)."""
    return b.getelementptr(T.I8, tape, [ConstantInt(T.I64, 8)], name="states.at")


def _frame(b: Builder, frames: Value, k: Value, field: int) -> Value:
    """`pos[k]` (field 0) or `end[k]` (field 1) of the schedule's frames, { i64, i64 } each."""
    return b.getelementptr(T.StructType((T.I64, T.I64)), frames,
                           [k, ConstantInt(T.I32, field)])
