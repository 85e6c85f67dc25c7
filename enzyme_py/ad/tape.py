"""Primal values in the reverse sweep: use directly, recompute, or cache on the tape.

`Tape.lookup(v)` returns a value, usable at the builder's position in the reverse sweep, equal
to what `v` was in the forward iteration being reversed (what may change memory or differ
between iterations is asked of `tape_facts.py`). Invariants:

- a value whose block dominates the return and lies in no loop is used directly (SSA);
- a cheap pure value whose operands are themselves available is recomputed (outside loops, up
  to `RECOMPUTE_LIMIT` instructions); a load is recomputed (re-read) only when no write to its
  memory can run after it in the forward sweep; so is a pure math call in a loop that the
  forward sweep needs for nothing but the reverse (`forward_needs`: its forward evaluation,
  and the tape it would fill, become dead code);
- a basic induction variable is rebuilt from the reverse iteration counter;
- a load of a scratch array that an earlier sibling loop filled, in the same iteration of
  the loops around both, is the stored value rebuilt at the reading loop's iteration number,
  where that value is recomputable (`forwarded_loads.py`);
- everything else is cached: an entry-block slot outside loops; inside loops an array indexed
  by the canonical iteration number of its home loop (`_home_loop`: the value's loop, or an
  enclosing one when the loops inside it repeat the value unchanged, as a load of memory they
  do not write at an address they do not change);
- inside a reversed loop, a value that does not change in it (or in loops around it) is
  fetched once where that reversed loop is entered and kept in a slot (`_hoist_loop`).

A loop's arrays belong to its tape root (`tape_root`): the outermost enclosing loop whose
entry already knows the trip counts of every loop below it down to this one. The array holds
all iterations of that nest, indexed row-major by the loops' iteration numbers. When the
root's trip count is known at its entry, all its arrays share one frame per entry: a `malloc`
for a root outside loops, freed where the reversed root finishes (its reverse preheader); a
segment of the tape stream for a root inside a loop (whose entries repeat), and the stream is
freed at the end of the reverse sweep. When it is not known, the array is grown by rows
(realloc) as the root runs, and freed like a malloc frame. So all tape memory is released
before the gradient returns.

On a GPU (`ctx.device.on_device`) there is no `malloc`: a root outside loops gets its frame
on the thread's stack (an `alloca`, in the first block when its size is a constant), and a tape
that would grow (an unknown trip count, a root inside a loop) is an error naming the loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from enzyme_py.ad import names, tape_scope
from enzyme_py.ad.accumulation import Accumulation
from enzyme_py.ad.adjoint_values import add_values, adjoint_zero
from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.forward_needs import ForwardNeeds
from enzyme_py.ad.forwarded_loads import ForwardedLoads
from enzyme_py.ad.reverse_cfg import ControlFlow, LoopState
from enzyme_py.ad.runtime import (
    bytes_product,
    reserve_function,
    tape_alloc_function,
    tape_grow_function,
)
from enzyme_py.ad.tape_facts import CHEAP as _CHEAP
from enzyme_py.ad.tape_facts import TapeFacts
from enzyme_py.analysis.loops import (
    InductionVariable,
    Loop,
    emit_trip_count,
    trip_count_invariant_in,
)
from enzyme_py.analysis.memory import underlying
from enzyme_py.analysis.memory_effects import MemoryEffects, is_pure_call
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import Argument, Constant, ConstantInt, Value, zero


@dataclass
class TapeFrame:
    """The one allocation, per entry of a tape root whose trip count is known at entry, that
    holds all its arrays back to back. Every size and offset is computed before `call` (in the
    root's preheader); `end`, the bytes used so far, becomes `call`'s size in `emit_frees`.
    `call` is a `malloc` for a root outside loops; a root inside a loop is entered once per
    iteration of it, so its frames are segments of the tape stream instead (`call` is
    `enzyme_py.reserve` and returns the segment's offset in the stream)."""

    call: I.Instruction  # (an `alloca` on a GPU)
    end: Value
    arrays: int = 0  # (fewer than MAX_FRAME_ARRAYS: their sum of sizes fits in 64 bits)

    @property
    def in_stream(self) -> bool:
        return isinstance(self.call, I.Call) and self.call.callee_name == "enzyme_py.reserve"


@dataclass
class TapeStream:
    """One buffer per gradient call for the frames of nested roots, grown by `reserve` during
    the forward sweep and freed at the end of the reverse sweep. The forward sweep reads the
    base from `slot` at each store (a later reserve may move it); the reverse sweep uses
    `final`, read at the end of the forward sweep."""

    slot: I.Instruction
    cap: I.Instruction
    used: I.Instruction
    final: I.Instruction


class Tape:
    """The primal values of a reverse sweep (see the module docstring). `in_split`: the
    gradient is split (`split.py`), so memory the caller may change is never re-read, but
    for the memory of the `stable` arguments (indices), which the caller keeps."""

    def __init__(self, ctx: DerivationContext, cf: ControlFlow, effects: MemoryEffects,
                 b: Builder, in_split: bool, stable: tuple[int, ...] = ()) -> None:
        self.ctx = ctx
        self.cf = cf
        self.effects = effects
        self.b = b  # the reverse sweep's builder
        self.in_split = in_split
        self.stable = frozenset(stable)
        self.memo: dict[tuple[int, int], Value] = {}
        self.slot_of: dict[Value, I.Instruction] = {}
        self.array_of: dict[Value, tuple[Callable[[], Value], Loop, Loop]] = {}
        self._cheap: dict[Value, bool] = {}
        self.frees: dict[Block, list[Callable[[], Value]]] = {}
        self.roots: dict[Loop, Loop] = {}
        self.frames: dict[Loop, TapeFrame] = {}
        self._sizes: dict[tuple[Loop, Loop, int], Value] = {}  # see `_array_bytes`
        self.stream: TapeStream | None = None
        self.facts = TapeFacts(ctx, cf, effects)
        # reverse block -> the forward block it reverses (set by the sweep once it made them)
        self.reverse_of: dict[Block, Block] = {}
        self.hoist_slots: dict[tuple[Value, Loop], I.Instruction] = {}
        self.accumulators: dict[tuple[Value, Loop], I.Instruction] = {}
        self._loaded_memo: dict[tuple[Value, Loop], T.Type | None] = {}
        self.accumulation: Accumulation | None = None  # (set by the state that owns the tape)
        # (preheader, pointer, its shadow, slot, type): summing slots to add to the shadows
        self.flushes: list[tuple[Block, Value, Value, I.Instruction, T.Type]] = []
        # the gradient returns the primal's result (set by the state that owns the tape)
        self.result_needed = True
        self._needs: ForwardNeeds | None = None
        self._forwarding: ForwardedLoads | None = None  # (made at the first load it is asked)
        # the tape's alias scope lists, for its stores and its loads (`tape_scope.py`)
        self._scope: tuple[str, str] | None = None

    # --- lookup -----------------------------------------------------------------------------

    def lookup(self, v: Value) -> Value:
        if not isinstance(v, I.Instruction):
            return v
        b = self.b
        key = (id(v), id(b.block))
        got = self.memo.get(key)
        if got is not None:
            return got
        outer = self._hoist_loop(v)
        got = self._materialize(v) if outer is None else self._hoisted(v, outer)
        self.memo[key] = got
        return got

    # --- values fetched once per reversed loop -------------------------------------------------

    def _hoist_loop(self, v: I.Instruction) -> Loop | None:
        """The outermost reversed loop around the builder in which `v` does not change, when
        `v` is read from the tape: it is then read once where that loop is entered and kept in
        a slot, not once per iteration (LLVM cannot know that the reverse sweep does not write
        tape memory, so it would not hoist the load)."""
        forward = self.reverse_of.get(self.b.block)  # the forward block being reversed
        here = self.cf.loops.loop_of.get(forward) if forward is not None else None
        block = v.parent
        if here is None or block is None or \
                (self.direct(block) and self._defined_on_every_path(v)):
            return None
        lp = self.cf.loops.loop_of.get(block)
        if lp is not None:
            state = self.cf.loop_states[lp]
            if v is state.iv or v in state.ivs:
                return None  # a counter (an SSA value once the slots are promoted)
        if self.is_cheap(v):
            return None  # pure arithmetic of SSA values: LLVM hoists what is invariant
        home = self._home_loop(v, lp) if lp is not None else None
        varying = home.nest() if home is not None else []
        for outer in here.nest():
            if outer not in varying:
                return outer
        return None

    def _hoisted(self, v: I.Instruction, outer: Loop) -> Value:
        slot = self.hoist_slots.get((v, outer))
        if slot is None:
            slot = self.ctx.entry_alloca(v.type, (v.name or "v") + ".fetched")
            self.hoist_slots[(v, outer)] = slot
            state = self.cf.loop_states[outer]
            state.fetched.append((v, slot))
            self._at_entries(state, lambda: self.b.store(self.lookup(v), slot))
        return self.b.load(v.type, slot, name=v.name)

    # --- adjoints of loop-invariant loads, summed in a slot -------------------------------------

    def reverse_shadow(self, p: Value, shadow: Value) -> Value:
        """Where the reverse sweep, at the builder, reads and writes the shadow of memory at
        `p` (whose forward shadow is `shadow`): the shadow itself, or, inside a reversed loop
        that only loads through `p` (an address it does not change, from memory it does not
        write), a slot that sums those loads' adjoints. The slot is reset where the reversed
        loop is entered and added to the shadow where it finishes (its reverse preheader), so
        the sum stays in a register instead of going through memory on every iteration (the
        other adjoints that reach that memory meanwhile are sums too: the order changes, not
        the total)."""
        forward = self.reverse_of.get(self.b.block)
        here = self.cf.loops.loop_of.get(forward) if forward is not None else None
        if here is not None:
            for lp in here.nest():
                ty = self._only_loaded_in(p, lp)
                if ty is not None and self._available_after(shadow, lp):
                    return self._accumulator(p, shadow, lp, ty)
        return self.lookup(shadow)

    def _available_after(self, shadow: Value, lp: Loop) -> bool:
        """`shadow` can be looked up where the reversed `lp` has finished: it is defined
        outside `lp`, or recomputed (then from values that do not change in `lp`, since the
        pointer it shadows does not)."""
        if not isinstance(shadow, I.Instruction) or shadow.parent not in lp.blocks:
            return True
        return self.is_cheap(shadow)

    def _only_loaded_in(self, p: Value, lp: Loop) -> T.Type | None:
        """The type `lp` loads through `p` when its only uses of `p` are loads of one float
        type, `p` does not change in it and nothing in it writes where `p` points."""
        key = (p, lp)
        if key in self._loaded_memo:
            return self._loaded_memo[key]
        ty: T.Type | None = None
        if p.type.is_pointer and self.facts.invariant_in(p, lp) and \
                not self.facts.written_in(underlying(p), lp):
            users = [i for blk in lp.blocks for i in blk.instructions
                     if i in self.cf.original and any(op is p for op in i.operands)]
            types = {u.type for u in users if isinstance(u, I.Load) and
                     not (u.flags or u.ordering) and u.pointer is p}
            if users and len(types) == 1 and len(users) == sum(
                    1 for u in users if isinstance(u, I.Load) and u.pointer is p):
                only = next(iter(types))
                ty = only if only.is_fp_or_fp_vector else None
        self._loaded_memo[key] = ty
        return ty

    def _accumulator(self, p: Value, shadow: Value, lp: Loop, ty: T.Type) -> I.Instruction:
        slot = self.accumulators.get((p, lp))
        if slot is None:
            slot = self.ctx.entry_alloca(ty, (shadow.name or "shadow") + ".sum")
            self.accumulators[(p, lp)] = slot
            state = self.cf.loop_states[lp]
            zero = adjoint_zero(ty)
            state.fetched.append((zero, slot))  # reset on every way in
            self._at_entries(state, lambda: self.b.store(zero, slot))
            assert lp.preheader is not None
            self.flushes.append((lp.preheader, p, shadow, slot, ty))
        return slot

    def emit_flushes(self, rev_blocks: dict[Block, Block]) -> None:
        """Add each summing slot to its shadow where its reversed loop finishes (first in the
        reverse preheader, before anything there reads the shadow)."""
        by_block: dict[Block, list[tuple[Value, Value, I.Instruction, T.Type]]] = {}
        for pre, p, shadow, slot, ty in self.flushes:
            by_block.setdefault(rev_blocks[pre], []).append((p, shadow, slot, ty))
        b = self.b
        for rb, sums in by_block.items():
            # what the block's own code looked up is defined below: not to be used above it
            self.memo = {k: got for k, got in self.memo.items() if k[1] != id(rb)}
            assert rb.terminator is not None
            b.position_before(rb.instructions[0])
            for p, shadow, slot, ty in sums:
                sp = self.lookup(shadow)
                if self.accumulation.is_plain(p, sp):
                    b.store(add_values(b, b.load(ty, sp), b.load(ty, slot)), sp)
                else:
                    self.accumulation.add(b, p, sp, b.load(ty, slot))

    def _at_entries(self, state: LoopState, emit: Callable[[], object]) -> None:
        """Emit what every way into the reversed loop of `state` does (a value it fetches):
        once in its ways' shared `enter` block where it has ways, else on each entry edge
        emitted so far (`enter_loop` emits it on the later ones)."""
        ways = self.cf.ways.get(state.loop)
        if ways is not None:
            self._at_edge(ways.enter, emit)
            return
        for edge, _ in state.entry_edges:
            self._at_edge(edge, emit)

    def _at_edge(self, edge: Block, emit: Callable[[], object]) -> None:
        """Emit at the end of `edge` (before its branch); in the edge being built, at the
        builder's place instead, so that what the builder emits next can use it (a value
        made while an edge is emitted, as the array of a loop it enters, is read right after
        on that edge)."""
        if self.b.block is edge:
            emit()
            return
        saved = (self.b.block, self.b.index)
        assert edge.terminator is not None
        self.b.position_before(edge.terminator)
        emit()
        self.b.block, self.b.index = saved

    def _materialize(self, v: I.Instruction) -> Value:
        block = v.parent
        assert block is not None, f"value {v} is not in the function"
        lp = self.cf.loops.loop_of.get(block)
        if self.direct(block) and self._defined_on_every_path(v):
            return v
        if lp is not None:
            state = self.cf.loop_states[lp]
            if v is state.iv:
                return self.b.load(T.I64, state.riv_slot, 8)
            iv = state.ivs.get(v)
            if iv is not None:
                return self._rebuild_iv(iv, state)
        if self.is_cheap(v) and (lp is not None or self.in_split or
                                 self._recompute_size(v) <= RECOMPUTE_LIMIT):
            new = clone_instruction(v, {}, {})
            new.operands = [self.lookup(o) for o in new.operands]
            new.name = v.name
            return self.b.insert(new)
        if isinstance(v, I.Load):
            forwarded = self._forwarded(v)
            if forwarded is not None:
                return forwarded
        return self._load_cached(v, lp)

    def _forwarded(self, v: I.Load) -> Value | None:
        """`v`'s value rebuilt from the store an earlier sibling loop filled its array with
        (`forwarded_loads.py`): the stored value, with the filling loop's induction variables
        taken at the reading loop's iteration number; None where that value is not
        recomputable here (then `v` is cached)."""
        if self.ctx.device.on_device:
            return None  # (other threads may write a shared scratch array)
        if self._forwarding is None:
            self._forwarding = ForwardedLoads(self.cf, self.facts)
        found = self._forwarding.find(v)
        if found is None:
            return None
        filler = found.filler
        value = found.store.value
        inside = filler.loop.blocks
        if isinstance(value, I.Instruction) and value.parent in inside and \
                not self.is_cheap(value):
            return None
        built: dict[Value, Value] = {}

        def rebuild(x: Value) -> Value:
            if not isinstance(x, I.Instruction) or x.parent not in inside:
                return self.lookup(x)
            got = built.get(x)
            if got is None:
                if x is filler.iv:
                    got = self.b.load(T.I64, found.reader.riv_slot, 8)
                elif x in filler.ivs:
                    got = self._rebuild_iv(filler.ivs[x], found.reader)
                else:
                    new = clone_instruction(x, {}, {})
                    new.operands = [rebuild(o) for o in new.operands]
                    new.name = x.name
                    got = self.b.insert(new)
                built[x] = got
            return got

        return rebuild(value)

    def _recompute_size(self, v: I.Instruction) -> int:
        """About how many instructions recomputing `v` takes in a block of the reverse sweep
        (its operands that are not available directly counted again each time they are used;
        stops counting past `RECOMPUTE_LIMIT`)."""
        size, work = 0, [v]
        while work and size <= RECOMPUTE_LIMIT:
            u = work.pop()
            size += 1
            for op in u.operands:
                if isinstance(op, I.Instruction) and op.parent is not None and \
                        not self.direct(op.parent) and self.cf.loops.loop_of.get(op.parent) is None:
                    work.append(op)
        return size

    def direct(self, block: Block) -> bool:
        """Values of `block` can be used as they are anywhere in the reverse sweep."""
        if block is self.ctx.alloca_block:
            return True
        cf = self.cf
        return cf.loops.loop_of.get(block) is None and cf.dom.dominates(block, cf.exit_block)

    def _defined_on_every_path(self, v: I.Instruction) -> bool:
        """An invoke's result exists only past its normal edge: on the unwind path to the
        return it has no value, unless its normal destination dominates the return too."""
        return not isinstance(v, I.Invoke) or self.cf.dom.dominates(v.normal,
                                                                    self.cf.exit_block)

    def _rebuild_iv(self, iv: InductionVariable, state: LoopState) -> Value:
        b = self.b
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

    def _recomputed_call(self, v: I.Instruction) -> bool:
        """A pure math call in a loop that the forward sweep needs only for the reverse
        (`forward_needs`): recomputed there, its forward evaluation is dead code."""
        if not (isinstance(v, I.Call) and is_pure_call(v.callee_name or "")) or \
                v.parent is None or self.cf.loops.loop_of.get(v.parent) is None or \
                self.ctx.device.on_device:
            return False
        if self._needs is None:
            self._needs = ForwardNeeds(self.cf.original, self.result_needed)
        return not self._needs.needed(v)

    def _cheap_here(self, v: I.Instruction) -> bool:
        if isinstance(v, I.Load):
            if v.flags or v.ordering or v not in self.cf.original:
                return False  # tape reads are never re-read: their slots change as we go
            objs = underlying(v.pointer)
            if self.facts.written_after(v, objs):
                return False
            if self.in_split and not all(isinstance(o, I.Alloca) or
                                         isinstance(o, Argument) and o.index in self.stable
                                         for o in objs):
                return False  # the caller may overwrite it before the reverse function runs
        elif v.opcode not in _CHEAP and not self._recomputed_call(v):
            return False
        assert v.parent is not None
        own_loop = self.cf.loops.loop_of.get(v.parent)
        for op in v.operands:
            if not isinstance(op, I.Instruction):
                continue
            blk = op.parent
            if blk is None:
                return False
            lp = self.cf.loops.loop_of.get(blk)
            if self.direct(blk) and self._defined_on_every_path(op):
                continue
            if lp is not None:
                st = self.cf.loop_states[lp]
                if op is st.iv or op in st.ivs:
                    continue
            if own_loop is not None and (lp is None or _strictly_encloses(lp, own_loop)):
                continue  # fetched once per outer iteration: invariant in v's reversed loop
            if not self.is_cheap(op):
                return False
        return True

    # --- caching ---------------------------------------------------------------------------

    def _in_scope(self, inst: I.Instruction, reads: bool = False) -> I.Instruction:
        """`inst`, an access of a tape array, put in the tape's alias scope (`tape_scope.py`):
        a store of the forward sweep in the scope the other accesses are marked `!noalias`
        with (the vectorized loop that stores a tape row needs no run-time overlap checks
        against the arrays it reads); a load of the reverse sweep (`reads`) in a scope no
        access is marked with, which keeps it out of the marking. (Loads in the first scope
        let LLVM vectorize GMM's short reversed loops instead of unrolling them: the gradient
        ran 10-15% slower.)"""
        if self._scope is None:
            self._scope = (tape_scope.scope_list(self.ctx.module),
                           tape_scope.scope_list(self.ctx.module, reads=True))
        return tape_scope.tag(inst, self._scope[reads])

    def _load_cached(self, v: I.Instruction, lp: Loop | None) -> Value:
        b = self.b
        home = self._home_loop(v, lp)
        if home is None:
            return b.load(v.type, self._slot(v), name=v.name)
        got = self.array_of.get(v)
        if got is None:
            got = self._make_array(v, home)
            self.array_of[v] = (*got, home)
        array, root, home = self.array_of[v]
        ptr = b.getelementptr(v.type, array(), [self._reverse_index(home, root)])
        return self._in_scope(b.load(v.type, ptr, tape_align(v.type), name=v.name),
                              reads=True)

    def _home_loop(self, v: I.Instruction, lp: Loop | None) -> Loop | None:
        """The innermost loop around `v` whose iterations may see different values of `v`:
        `v`'s own loop, or an enclosing one when `v` is the same in every iteration of the
        loops inside it (a load of memory they do not write, at an address they do not
        change). Its cache then holds one value per iteration of that loop, not per
        iteration of `v`'s."""
        while lp is not None and self.facts.invariant_in(v, lp):
            lp = lp.parent
        return lp

    def _slot(self, v: I.Instruction) -> I.Instruction:
        slot = self.slot_of.get(v)
        if slot is None:
            # a pointer's slot starts null, not undefined: LLVM's alias analysis sees through
            # null (a path that never stored it) to the objects the pointer may point into
            slot = self.ctx.entry_alloca(v.type, names.cache(v),
                                         zero(T.PTR) if v.type == T.PTR else None)
            self.slot_of[v] = slot
            Builder().position_after_def(v).store(v, slot)
        return slot

    def tape_root(self, lp: Loop) -> Loop:
        """The loop at whose entry the tapes of `lp`'s values are allocated: the outermost
        enclosing loop such that the trip count of every loop from it down to `lp`, itself
        excepted, is known at its entry (each is invariant in it). One array then holds every
        iteration of the nest, indexed by the flattened iteration number (`_forward_index`)."""
        root = self.roots.get(lp)
        if root is None:
            root, nest = lp, [lp]
            while root.parent is not None and all(self._known_at(m, root.parent) for m in nest):
                root = root.parent
                nest.append(root)
            self.roots[lp] = root
        return root

    def _known_at(self, lp: Loop, outer: Loop) -> bool:
        trip = self.cf.loop_states[lp].trip
        return trip is not None and trip_count_invariant_in(trip, outer)

    def _trip_at(self, lp: Loop, root: Loop) -> Value:
        """The trip count of `lp`, emitted once at the end of `root`'s preheader."""
        state = self.cf.loop_states[lp]
        got = state.trips.get(root)
        if got is None:
            assert state.trip is not None
            got = state.trips[root] = emit_trip_count(self._at_entry(root), state.trip)
        return got

    def _nest(self, lp: Loop, root: Loop) -> list[Loop]:
        """The loops from `root` (first) down to `lp` (last)."""
        nest = lp.nest()
        return nest[nest.index(root):]

    def _forward_index(self, lp: Loop, root: Loop) -> Value:
        """The current iteration of the nest from `root` down to `lp`, flattened row-major:
        `((iv_root * trip_1 + iv_1) * trip_2 + ...) + iv_lp`, built in `lp`'s header."""
        state = self.cf.loop_states[lp]
        if lp is root:
            return state.iv
        got = state.flat.get(root)
        if got is None:
            assert lp.parent is not None
            outer = self._forward_index(lp.parent, root)
            at = Builder().position_after_phis(lp.header)
            row = at.mul(outer, self._trip_at(lp, root))
            got = state.flat[root] = at.add(row, state.iv, name="tape.index")
        return got

    def _reverse_index(self, lp: Loop, root: Loop) -> Value:
        """`_forward_index` of the iteration being reversed, at the builder's position."""
        b = self.b
        k = b.load(T.I64, self.cf.loop_states[lp].riv_slot, 8)
        if lp is root:
            return k
        assert lp.parent is not None
        outer = self._reverse_index(lp.parent, root)
        return b.add(b.mul(outer, self.lookup(self._trip_at(lp, root))), k)

    def _make_array(self, v: I.Instruction,
                    lp: Loop) -> tuple[Callable[[], Value], Loop]:
        """Create the array of `v` (a value of loop `lp`), allocated at each entry of its tape
        root; return how reverse code reaches it, and the root."""
        root = self.tape_root(lp)
        if self.cf.loop_states[root].trip is None:
            return self._make_grown_array(v, lp, root), root
        frame = self._frame(root)
        rounded = self._array_bytes(lp, root, alloc_size(v.type))
        frame.arrays += 1
        if frame.arrays >= MAX_FRAME_ARRAYS:
            raise self.ctx.error(v, f"the reverse sweep needs more than {MAX_FRAME_ARRAYS} "
                                    "values of one loop nest, which enzyme_py does not tape")
        offset = frame.end
        fwd = self._at_entry(root)
        # (each array is at most BYTES_CAP rounded up: the sum cannot overflow, see
        # MAX_FRAME_ARRAYS)
        frame.end = rounded if is_constant(offset) else fwd.add(offset, rounded, name="tape.end")
        index = self._forward_index(lp, root)  # first: it may insert where `at` would point
        if frame.in_stream:
            at = self._store_position(v)
            arr = self._array_at(at, at.load(T.PTR, self._stream().slot, 8), frame.call, offset)
        else:
            arr = self._array_at(Builder().position_after_def(frame.call), frame.call, None,
                                 offset, names.cache(v))
            at = self._store_position(v)
        self._in_scope(at.store(v, _gep(at, v.type, arr, index), tape_align(v.type)))
        return (lambda: self._reverse_array(frame, offset, v)), root

    def _array_bytes(self, lp: Loop, root: Loop, size: int) -> Value:
        """The bytes of an array of `size`-byte elements for the nest from `root` down to
        `lp`, rounded up to `MALLOC_ALIGN`: computed once per (nest, size) at the root's
        entry, however many of the frame's arrays have that shape."""
        key = (lp, root, size)
        got = self._sizes.get(key)
        if got is None:
            trips = [self._trip_at(m, root) for m in self._nest(lp, root)]
            fwd = self._at_entry(root)  # (after the trips: they may insert where it points)
            nbytes = bytes_product(fwd, self.ctx.module, [*trips, ConstantInt(T.I64, size)],
                                   "tape.bytes")
            padded = fwd.add(nbytes, ConstantInt(T.I64, MALLOC_ALIGN - 1))  # (<= 2^48 + 15)
            got = self._sizes[key] = fwd.binop("and", padded, ConstantInt(T.I64, -MALLOC_ALIGN))
        return got

    def _array_at(self, b: Builder, base: Value, segment: Value | None, offset: Value,
                  name: str | None = None) -> Value:
        """`base + segment + offset` (bytes), skipping what is absent or zero."""
        if segment is not None:
            base = b.getelementptr(T.I8, base, [segment])
        if is_constant(offset):  # the first array starts the frame
            return base
        return b.getelementptr(T.I8, base, [offset], name=name)

    def _reverse_array(self, frame: TapeFrame, offset: Value, v: I.Instruction) -> Value:
        b = self.b
        off = offset if is_constant(offset) else self.lookup(offset)
        if frame.in_stream:
            return self._array_at(b, self._stream().final, self.lookup(frame.call), off,
                                  names.cache(v))
        return self._array_at(b, self.lookup(frame.call), None, off, names.cache(v))

    def _frame(self, root: Loop) -> TapeFrame:
        frame = self.frames.get(root)
        if frame is None:
            pre = root.preheader
            assert pre is not None and pre.terminator is not None
            at = Builder().position_before(pre.terminator)
            zero = ConstantInt(T.I64, 0)
            if root.parent is None and self.ctx.device.on_device:
                call = at.insert(I.Alloca(T.I8, zero, MALLOC_ALIGN, name="tape"))  # (sized later)
            elif root.parent is None:
                call = at.call(self._malloc(), [zero], name="tape")
                self.frees.setdefault(pre, []).append(lambda: self.lookup(call))
            else:
                self._check_host(root, "it runs inside another loop whose trip count the "
                                       "tape would have to grow with")
                st = self._stream()
                call = at.call(reserve_function(self.ctx.module), [st.slot, st.cap, st.used, zero],
                               name="tape.segment")
            frame = self.frames[root] = TapeFrame(call, zero)
        return frame

    def _stream(self) -> TapeStream:
        """The tape stream, created on first use: allocated in the first block, its final
        base read where the forward sweep ends, freed where the reverse sweep ends."""
        if self.stream is None:
            initial = 4096
            slot = self.ctx.entry_alloca(T.PTR, "tape.stream")
            cap = self.ctx.entry_alloca(T.I64, "tape.stream.cap", ConstantInt(T.I64, initial))
            used = self.ctx.entry_alloca(T.I64, "tape.stream.used", ConstantInt(T.I64, 0))
            at = Builder().position_before(self.ctx.alloca_block.instructions[-1])
            at.store(at.call(self._malloc(), [ConstantInt(T.I64, initial)]), slot, 8)
            end = self.cf.exit_block.terminator
            assert end is not None
            final = Builder().position_before(end).load(T.PTR, slot, 8, name="tape.stream")
            assert isinstance(final, I.Instruction)
            self.stream = TapeStream(slot, cap, used, final)
            self.frees.setdefault(self.cf.entry, []).append(lambda: final)
        return self.stream

    def _at_entry(self, root: Loop) -> Builder:
        """Where code computing sizes at `root`'s entry goes: before its frame's allocation,
        which must see them, else at the end of its preheader."""
        frame = self.frames.get(root)
        if frame is not None:
            return Builder().position_before(frame.call)
        assert root.preheader is not None and root.preheader.terminator is not None
        return Builder().position_before(root.preheader.terminator)

    def _make_grown_array(self, v: I.Instruction, lp: Loop, root: Loop) -> Callable[[], Value]:
        """The root's trip count is unknown: grow the array (realloc) as the root runs, by
        rows of the inner loops' known trip counts (one element when `lp` is the root)."""
        self._check_host(root, "its trip count is not known when it starts")
        state = self.cf.loop_states[root]
        pre = root.preheader
        assert pre is not None and pre.terminator is not None
        trips = [self._trip_at(m, root) for m in self._nest(lp, root)[1:]]
        fwd = Builder().position_before(pre.terminator)  # after the trip counts
        row_bytes: Value = ConstantInt(T.I64, alloc_size(v.type))
        if trips:
            row_bytes = bytes_product(fwd, self.ctx.module, [*trips, row_bytes], "tape.bytes")
        slot = self.ctx.entry_alloca(T.PTR, names.cache(v) + ".ptr")
        cap = self.ctx.entry_alloca(T.I64, names.cache(v) + ".cap")
        fwd.store(ConstantInt(T.I64, 0), cap, 8)  # (empty: the first growth allocates it)
        fwd.store(zero(T.PTR), slot, 8)
        grow = tape_grow_function(self.ctx.module)
        Builder().position_after_phis(root.header).call(grow, [slot, cap, state.iv, row_bytes])
        index = self._forward_index(lp, root)
        store_at = self._store_position(v)
        arr = store_at.load(T.PTR, slot, 8)
        self._in_scope(store_at.store(v, _gep(store_at, v.type, arr, index),
                                      tape_align(v.type)))
        finals: dict[Block, Value] = {}
        for exit_block in root.exits:
            finals[exit_block] = Builder().position_after_phis(exit_block).load(T.PTR, slot, 8)
        rev_slot = self.ctx.entry_alloca(T.PTR, names.cache(v) + ".rev")
        state.grown.append((v, finals, rev_slot))
        for edge, exit_block in state.entry_edges:  # edges already emitted: patch them
            self._store_final(edge, finals[exit_block], rev_slot)
        self.frees.setdefault(pre, []).append(lambda: self.b.load(T.PTR, rev_slot, 8))
        return lambda: self.b.load(T.PTR, rev_slot, 8)

    def _store_position(self, v: I.Instruction) -> Builder:
        """Where the forward sweep stores `v` on the tape: right after it, or for a phi after
        the tape code already placed after the phis (indices, growth), which it may read."""
        if not isinstance(v, I.Phi):
            return Builder().position_after_def(v)
        assert v.parent is not None
        first = next(i for i in v.parent.instructions
                     if not isinstance(i, (I.Phi, I.LandingPad)) and i in self.cf.original)
        return Builder().position_before(first)

    def _malloc(self) -> Function:
        """Tape memory (`malloc` under the name `tape_checks` finds)."""
        return tape_alloc_function(self.ctx.module)

    def _check_host(self, root: Loop, why: str) -> None:
        """A tape that grows (`malloc`/`realloc`) as `root` runs: an error on a GPU."""
        if self.ctx.device.on_device:
            first = root.header.instructions[0]
            raise self.ctx.error(first, f"the reverse sweep needs values of this loop, and "
                                        f"{why}: on a GPU their tape cannot be allocated (no "
                                        "malloc on the device); give the loop a trip count "
                                        "known at its start, outside other loops")

    def _store_final(self, edge: Block, final: Value, rev_slot: I.Instruction) -> None:
        self._at_edge(edge, lambda: self.b.store(self.lookup(final), rev_slot, 8))

    def enter_loop(self, state: LoopState, edge: Block, exit_block: Block) -> None:
        """Called on each reverse edge that enters the reversed loop from `exit_block`."""
        state.entry_edges.append((edge, exit_block))
        self.b.store(self.lookup(state.limits[exit_block]), state.riv_slot, 8)
        for _, finals, rev_slot in state.grown:
            self.b.store(self.lookup(finals[exit_block]), rev_slot, 8)
        if state.loop in self.cf.ways:
            return  # the fetches are in the ways' `enter` block, which the edge goes through
        for v, slot in state.fetched:  # (after the counters and arrays they may read)
            self.b.store(self.lookup(v), slot)

    def emit_frees(self, rev_blocks: dict[Block, Block], free: Function) -> None:
        """Size each frame, and free each root's arrays where its reversed loop has finished
        (reverse preheader)."""
        self.emit_flushes(rev_blocks)
        for frame in self.frames.values():
            frame.call.operands[3 if frame.in_stream else 0] = frame.end
            if isinstance(frame.call, I.Alloca) and isinstance(frame.end, Constant):
                # a fixed size: a static slot of the first block (no dynamic stack allocation)
                assert frame.call.parent is not None
                frame.call.parent.remove(frame.call)
                self.ctx.at_start().insert(frame.call)
        b = self.b
        for pre, getters in self.frees.items():
            rb = rev_blocks[pre]
            assert rb.terminator is not None
            for get in getters:
                b.position_before(rb.terminator)
                b.call(free, [get()])


#: A cheap value outside loops whose block does not dominate the return (a check that fails
#: before it leaves early) is recomputed where the reverse sweep needs it, from operands that
#: may need recomputing too; each reverse block and each edge entering a reversed loop does it
#: again. Past this many instructions it is kept in an entry-block slot instead (one store;
#: LLVM promotes the slot back to SSA): a tape layout's running offsets (`tape.end`, each the
#: previous one plus an array's size) would otherwise grow quadratically at every way in.
RECOMPUTE_LIMIT = 8


#: Arrays of one frame: each at most `BYTES_CAP` bytes (2^48), so their sum stays below 2^62.
MAX_FRAME_ARRAYS = 2 ** 14
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
