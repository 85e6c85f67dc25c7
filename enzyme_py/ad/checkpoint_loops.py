"""Outline a function's time loops for binomial checkpointing (`checkpoint-loops{fn=f}`).

A long loop's tape grows with its trip count (every iteration's values are kept for the
reverse sweep). Checkpointing keeps a few copies of the loop's *state* instead and runs parts
of the loop again in the reverse sweep (`checkpoint.py`). To make that possible, this pass
moves each selected loop of `f` out of `f`:

    f:   preheader: store the header phis' start values into %state
                    call void @f.loop.1(live-ins..., region bases and sizes..., ptr %state)
                    switch on the exit code in %state to the loop's exit blocks
    @f.loop.1.step(same parameters) -> i32     one iteration: 0 to go on, k to leave by exit k
    @f.loop.1(same parameters)                 calls the step until it returns non-zero

The state of the loop is what one iteration hands the next: the header phis (kept in the
`%state` record, with the values leaving the loop and the exit code) and the memory the loop
writes — its *regions*: blocks whose extent is known before the loop (a `malloc`/`calloc`/
`aligned_alloc` of a size computed before it, an `alloca`, a global, an array argument whose
extents the front end names: `arrays=`, a phi or select before the loop that chooses between
allocations of one size). Memory the loop only
reads must not change after the loop, or it is a region too. Everything else is refused with
an error naming the instruction: memory written through an argument or a loaded pointer
(its extent is unknown), allocation or freeing inside the loop, calls that may write memory,
pointers stored to memory or carried by the loop's phis (their shadows would not follow the
kept states), `invoke`.

Which loops: those the source marked (`enzyme_py.checkpointed`, kept in the loop's metadata;
outermost loops only), and when asked for, every time loop: an outermost loop of `f` that
holds another loop or at least `MIN_BODY_INSTRUCTIONS` instructions (a step of real work) and,
if it writes memory, reads some of what it writes (a recurrence: a loop that fills or copies
arrays is not a time loop); a short loop (a copy, a dot product) is cheaper to tape than to
run again.

The loop function carries the plan in its attribute `"enzyme_py-checkpoint"="..."`
(`CheckpointPlan`), which the reverse transform reads to build its checkpointed
augmented/reverse pair instead of an ordinary one.

Invariants: `f` computes what it computed before (the same operations in the same order);
the new functions are canonical (one `ret`, inner loops still in loop-simplify/LCSSA form);
a loop that cannot be outlined leaves `f` unchanged and raises `DifferentiationError`.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.ad.outlined_params import distinct_parameters, rebase_live_ins
from enzyme_py.analysis.errors import AnalysisError, DifferentiationError
from enzyme_py.analysis.loops import Loop, emit_trip_count, find_loops, trip_count
from enzyme_py.analysis.memory import (
    ALLOCATION_FUNCTIONS,
    DEALLOCATION_FUNCTIONS,
    UNKNOWN,
    MemObject,
    is_unnamed,
    may_alias,
    underlying,
)
from enzyme_py.analysis.memory_effects import (
    escaped_objects,
    known_writes,
    memory_effects,
    memory_intrinsic,
    writes_no_memory,
    written_pointer,
)
from enzyme_py.checkpointing import LOOP_PROPERTY
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.dominance import Dominators, dominators, predecessors
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.loop_marks import loop_property
from enzyme_py.ir.module import Block, Function, GlobalVariable, Module
from enzyme_py.ir.printer import Slots
from enzyme_py.ir.values import Argument, Constant, ConstantInt, GlobalValue, Value
from enzyme_py.passes import Param, register_pass

CHECKPOINT_ATTRIBUTE = "enzyme_py-checkpoint"
MIN_BODY_INSTRUCTIONS = 24


@dataclass(frozen=True)
class CheckpointPlan:
    """What the reverse transform needs to checkpoint an outlined loop.

    `regions` are (base, size) parameter indices of the memory the loop's state holds; the
    `%state` record is the last parameter, `state_bytes` long. `snapshots` fixes how many
    states are kept (0: as many as `budget` bytes hold, or about the square root of the trip
    count without a budget)."""

    step: str
    state_bytes: int
    regions: tuple[tuple[int, int], ...]
    snapshots: int = 0
    budget: int = 0
    trips: int = -1  # the parameter holding a bound on the steps known at entry (-1: unknown)

    def attribute(self) -> str:
        regions = ",".join(f"{b}:{s}" for b, s in self.regions) or "-"
        return (f'"{CHECKPOINT_ATTRIBUTE}"="step={self.step} state={self.state_bytes} '
                f'regions={regions} snapshots={self.snapshots} budget={self.budget} '
                f'trips={self.trips}"')

    @staticmethod
    def parse(text: str) -> CheckpointPlan:
        fields = dict(w.split("=", 1) for w in text.split())
        regions = tuple((int(b), int(s)) for b, s in
                        (r.split(":") for r in fields["regions"].split(",") if r != "-"))
        return CheckpointPlan(fields["step"], int(fields["state"]), regions,
                              int(fields["snapshots"]), int(fields["budget"]),
                              int(fields.get("trips", -1)))


def checkpoint_plan(fn: Function) -> CheckpointPlan | None:
    """The plan of an outlined loop function, or None for any other function."""
    prefix = f'"{CHECKPOINT_ATTRIBUTE}"="'
    for word in fn.suffix:
        if word.startswith(prefix):
            return CheckpointPlan.parse(word[len(prefix):-1])
    return None


ArrayExtents = dict[int, tuple[tuple[int, ...], int]]
# a block's bytes: a constant times the product of values available before the loop
Extent = tuple[int, tuple[Value, ...]]


def parse_array_extents(words: list[str]) -> ArrayExtents:
    """`P:S1.S2:B` per array argument: its data pointer is parameter P, its extents the
    parameters S1, S2 ..., each element B bytes (a contiguous block of S1 * S2 * ... * B)."""
    out: ArrayExtents = {}
    for w in words:
        p, shape, size = w.split(":")
        out[int(p)] = (tuple(int(k) for k in shape.split(".") if k), int(size))
    return out


def checkpoint_loops(module: Module, fn: Function, snapshots: int = 0, budget: int = 0,
                     time_loops: bool = True,
                     arrays: ArrayExtents | None = None) -> list[Function]:
    """Outline the loops of `fn` marked `checkpointed` in the source, and with `time_loops`
    every time loop (see the module docstring); returns the loop functions. A marked loop
    keeps the number of states its mark gives, else `snapshots`. `arrays` gives the extent of
    the memory behind pointer arguments (a front end's contiguous arrays), so a loop may
    write them."""
    made: list[Function] = []
    while True:
        dom = dominators(fn)
        try:
            info = find_loops(fn, dom)
        except AnalysisError:
            return made  # (irreducible control flow: the reverse transform says so)
        for lp in info.loops:
            if lp.parent is not None and _mark(module, lp) is not None:
                raise DifferentiationError(
                    f"in @{fn.name}: a loop inside another loop is marked checkpointed "
                    f"(block %{Slots(fn).local(lp.header)}); only outermost loops are "
                    "checkpointed: mark the loop around it")
        todo = [lp for lp in info.loops if lp.parent is None and
                (_mark(module, lp) is not None or (time_loops and _is_time_loop(lp)))]
        if not todo:
            return made
        mark = _mark(module, todo[0])
        made.append(_Outliner(module, fn, todo[0], dom, len(made) + 1,
                              mark or snapshots, budget, arrays or {}).run())


def _mark(module: Module, lp: Loop) -> int | None:
    """The states a loop marked `checkpointed` keeps (0: the default); None: not marked."""
    term = lp.latch.terminator if lp.latch is not None else None
    return loop_property(module, term, LOOP_PROPERTY) if term is not None else None


def _is_time_loop(lp: Loop) -> bool:
    """A loop whose iterations advance a state: when it writes memory, memory it also reads
    (a recurrence through memory, `u = step(u)`; a loop that fills or copies arrays is not
    one), and a nested loop or a long body."""
    insts = [i for b in lp.blocks for i in b.instructions]
    written, read = _accesses(insts)
    if written and not (written.keys() & read.keys()):
        return False
    return bool(lp.children) or len(insts) >= MIN_BODY_INSTRUCTIONS


def _accesses(insts: list[I.Instruction]) -> tuple[dict[MemObject, I.Instruction],
                                                  dict[MemObject, I.Instruction]]:
    """The objects `insts` write and read, each with the first instruction that does."""
    written: dict[MemObject, I.Instruction] = {}
    read: dict[MemObject, I.Instruction] = {}
    for inst in insts:
        ptr, src = written_pointer(inst), _read_pointer(inst)
        for o in underlying(ptr) if ptr is not None else ():
            written.setdefault(o, inst)
        for o in underlying(src) if src is not None else ():
            read.setdefault(o, inst)
    return written, read


class _Outliner:
    def __init__(self, module: Module, fn: Function, lp: Loop, dom: Dominators, index: int,
                 snapshots: int, budget: int, arrays: ArrayExtents) -> None:
        self.module, self.fn, self.lp, self.dom = module, fn, lp, dom
        self.snapshots, self.budget, self.arrays = snapshots, budget, arrays
        self.base = module.unique_name(f"{fn.name}.loop.{index}")
        self.blocks = [b for b in fn.blocks if b in lp.blocks]
        self.insts = [i for b in self.blocks for i in b.instructions]

    def error(self, inst: I.Instruction, message: str) -> DifferentiationError:
        block = Slots(self.fn).local(inst.parent) if inst.parent else "?"
        text = str(inst).split("\n")[0].strip()
        return DifferentiationError(
            f"in @{self.fn.name}, block {block}, instruction `{text}`: cannot checkpoint "
            f"this loop: {message}")

    # --- reading the loop ------------------------------------------------------------------

    def run(self) -> Function:
        lp = self.lp
        header = lp.header
        if not lp.is_simplified:
            raise self.error(header.instructions[0], "it is not in loop-simplify form")
        self.pre, self.latch = lp.preheader, lp.latch
        assert self.pre is not None and self.latch is not None
        self._fold_trivial_phis()
        preds = predecessors(self.fn)
        for x in lp.exits:
            if any(p not in lp.blocks for p in preds[x]):
                raise self.error(x.instructions[0], "an exit block is entered from outside")
        self._check_instructions()
        self.header_phis = header.phis()
        self.exit_phis = [(x, phi) for x in lp.exits for phi in x.phis()]
        for phi in [*self.header_phis, *(p for _, p in self.exit_phis)]:
            if phi.type.scalar.is_pointer:  # (its shadow would not follow the kept states)
                raise self.error(phi, "the loop carries a pointer from one iteration to the "
                                      "next or out of the loop (swap the buffers' roles in "
                                      "the loop body instead: two half steps per iteration)")
        self._check_outside_uses()
        self.live_ins = self._live_ins()
        self.regions = self._regions()
        self.escaped = escaped_objects(self.fn)  # (before the loop's call hands them on)
        fields = [p.type for p in self.header_phis] + [p.type for _, p in self.exit_phis]
        self.state_type = T.StructType((*fields, T.I32))
        self.code_field = len(fields)
        return self._rewrite()

    def _fold_trivial_phis(self) -> None:
        """Replace each phi in the loop or at its exits that can only be one value defined
        before the loop by that value: phis whose incoming values, followed through the
        loop's phis, lead to that one value alone (the webs of phis SSA construction leaves
        for a block made once before the loop: `carried_allocations`; LCSSA's phis of it).
        They carry nothing from one iteration to the next or out of the loop, so the loop
        is checkpointed as one without them. (A value defined before the loop leaves no
        loop inside it either: every loop stays in LCSSA form.)"""
        blocks = {id(b) for b in [*self.blocks, *self.lp.exits]}
        phis = [phi for b in [*self.blocks, *self.lp.exits] for phi in b.phis()]
        inside = {id(i) for b in self.blocks for i in b.instructions}
        for phi in phis:
            origins: dict[int, Value] = {}
            seen: set[int] = set()
            stack: list[Value] = [phi]
            while stack and len(origins) <= 1:
                x = stack.pop()
                if isinstance(x, I.Phi) and x.parent is not None and id(x.parent) in blocks:
                    if id(x) not in seen:
                        seen.add(id(x))
                        stack.extend(v for v, _ in x.incoming())
                else:
                    origins[id(x)] = x
            if len(origins) != 1:
                continue
            (v,) = origins.values()
            if isinstance(v, I.Instruction) and id(v) in inside:
                continue
            self.fn.replace_all_uses(phi, v)
            assert phi.parent is not None
            phi.parent.remove(phi)
        self.insts = [i for b in self.blocks for i in b.instructions]

    def _check_instructions(self) -> None:
        for inst in self.insts:
            if isinstance(inst, (I.Invoke, I.LandingPad, I.IndirectBr)) or \
                    inst.opcode in ("callbr", "resume", "ret"):
                raise self.error(inst, f"`{inst.opcode}` in the loop is not supported")
            if isinstance(inst, I.Alloca):
                raise self.error(inst, "a stack allocation inside the loop")
            stored = inst.value if isinstance(inst, I.Store) else None
            if stored is not None and stored.type.scalar.is_pointer:
                raise self.error(inst, "the loop stores a pointer to memory")
            if not isinstance(inst, I.Call) or written_pointer(inst) is not None:
                continue
            name = inst.callee_name or ""
            if name in ALLOCATION_FUNCTIONS or name in DEALLOCATION_FUNCTIONS:
                raise self.error(inst, "the loop allocates or frees memory (its state would "
                                       "not be a fixed set of blocks)")
            if writes_no_memory(name):
                continue
            callee = inst.callee
            if isinstance(callee, Function) and not callee.is_declaration and \
                    memory_effects(callee).writes_nothing:
                continue
            raise self.error(inst, f"@{name or '(indirect)'} may write memory the loop's "
                                   "state would have to hold")

    def _check_outside_uses(self) -> None:
        inside = set(self.insts)
        allowed = {id(phi) for _, phi in self.exit_phis}
        for b in self.fn.blocks:
            if b in self.lp.blocks:
                continue
            for inst in b.instructions:
                if id(inst) in allowed:
                    continue
                for op in inst.operands:
                    if op in inside:
                        raise self.error(inst, "a value of the loop is used after it "
                                               "without an exit phi (not in LCSSA form)")

    def _live_ins(self) -> list[Value]:
        inside = set(self.insts)
        header_phis = set(self.header_phis)
        seen: set[Value] = set()
        out: list[Value] = []
        for inst in self.insts:
            ops = inst.operands
            if inst in header_phis:
                assert isinstance(inst, I.Phi)
                ops = [inst.value_for(self.latch)]
            for op in ops:
                if isinstance(op, (Argument, I.Instruction)) and op not in inside and \
                        op not in seen:
                    seen.add(op)
                    out.append(op)
        for _, phi in self.exit_phis:  # (values leaving the loop may be defined before it)
            for v, blk in phi.incoming():
                if blk in self.lp.blocks and isinstance(v, (Argument, I.Instruction)) and \
                        v not in inside and v not in seen:
                    seen.add(v)
                    out.append(v)
        return out

    # --- the memory of the state -------------------------------------------------------------

    def _regions(self) -> list[tuple[Value, Extent]]:
        """(base, size in bytes) of each block the loop writes, and of each block it reads
        that the code after it may write."""
        written, read = _accesses(self.insts)
        merged = self._merged_allocations()
        regions: dict[Value, tuple[Value, Extent]] = {}

        def add(o: MemObject, inst: I.Instruction, what: str) -> None:
            got = merged.get(o)  # (one of the blocks a phi before the loop chooses from)
            if got is not None:
                regions.setdefault(got[0], got)
            elif o not in regions:
                regions[o] = self._extent(o, inst, what)  # type: ignore[index]

        for o, inst in written.items():
            add(o, inst, "writes")
        after = _writes_after(self.fn, self.lp)
        for o, inst in read.items():
            if any(may_alias(frozenset({o}), objs) for objs in after):
                add(o, inst, "reads (and the code after it writes)")
        return list(regions.values())

    def _merged_allocations(self) -> dict[MemObject, tuple[Value, Extent]]:
        """The allocations that the loop reaches through a phi (or select) before it that
        chooses between allocations of one extent (LLVM makes such copies of an allocation
        on two paths): each with (that phi, the extent). The phi is then the base of one
        region: whichever block it chose, it has that extent."""
        out: dict[MemObject, tuple[Value, Extent]] = {}
        for inst in self.insts:
            for p in (written_pointer(inst), _read_pointer(inst)):
                while isinstance(p, I.GetElementPtr):
                    p = p.operands[0]
                if not isinstance(p, (I.Phi, I.Select)) or p.parent is None or \
                        p.parent in self.lp.blocks or \
                        not self.dom.dominates(p.parent, self.pre):
                    continue
                choices = [v for v, _ in p.incoming()] if isinstance(p, I.Phi) else \
                    list(p.operands[1:])
                extents = [_allocated_extent(c) if isinstance(c, I.Call) else None
                           for c in choices]
                first = extents[0]
                if first is None or any(e is None or not _same_extent(e, first)
                                        for e in extents):
                    continue
                for c in choices:
                    out[c] = (p, first)
        return out

    def _extent(self, o: MemObject, inst: I.Instruction, what: str) -> tuple[Value, Extent]:
        """`o` and its extent, described (the bytes are emitted only when rewriting, so a
        loop refused later leaves the function as it was)."""
        extent: Extent | None = None
        if isinstance(o, GlobalVariable) and o.value_type is not None:
            extent = (alloc_size(o.value_type), ())
        elif isinstance(o, I.Alloca) and (not o.operands or
                                          isinstance(o.operands[0], ConstantInt)):
            n = o.operands[0].value if o.operands else 1  # type: ignore[attr-defined]
            extent = (alloc_size(o.allocated_type) * n, ())
        elif isinstance(o, I.Call) and o.parent is not None and \
                o.parent not in self.lp.blocks and self.dom.dominates(o.parent, self.pre):
            extent = _allocated_extent(o)
        elif isinstance(o, Argument) and o.parent is self.fn and o.index in self.arrays:
            shape, elem = self.arrays[o.index]
            extent = (elem, tuple(self.fn.args[k] for k in shape))
        if extent is None:
            what_o = "unknown memory" if is_unnamed(o) else _describe(self.fn, o)
            raise self.error(inst, f"the loop {what} {what_o}, whose extent is not known "
                                   "before it (checkpointing copies the loop's state: pass "
                                   "contiguous arrays, or allocate that memory in the "
                                   "function with a size computed before the loop)")
        return o, extent  # type: ignore[return-value]

    def _before_branch(self) -> Builder:
        """A builder at the end of the preheader, before its branch."""
        b = Builder(self.pre)
        b.index = len(self.pre.instructions) - 1
        return b

    def _bytes(self, extent: Extent) -> Value:
        """The extent's bytes, computed at the end of the preheader."""
        scale, factors = extent
        if not factors:
            return ConstantInt(T.I64, scale)
        b = self._before_branch()
        size = factors[0] if scale == 1 else b.mul(ConstantInt(T.I64, scale), factors[0],
                                                   name="state.bytes")
        for f in factors[1:]:
            size = b.mul(size, f, name="state.bytes")
        return size

    # --- rewriting -------------------------------------------------------------------------

    def _rewrite(self) -> Function:
        # (one parameter per block of memory: `outlined_params.py`)
        params, self.rebuilt = rebase_live_ins(self.live_ins)
        region_params: list[tuple[int, int]] = []
        for base, extent in self.regions:
            at = next((k for k, p in enumerate(params) if p is base), None)
            if at is None:
                at = len(params)
                params.append(base)
            region_params.append((at, len(params)))
            params.append(self._bytes(extent))
        trips = self._trips()
        if trips is not None:
            params.append(trips)
        ptypes = tuple(p.type for p in params) + (T.PTR,)
        step = self._step_function(params, ptypes)
        plan = CheckpointPlan(step.name or "", alloc_size(self.state_type),
                              tuple(region_params), self.snapshots, self.budget,
                              len(params) - 1 if trips is not None else -1)
        loop_fn = self._loop_function(step, ptypes, plan)
        # (the state record is a fresh alloca that only the call reaches)
        for k in [*distinct_parameters(params, self.escaped), len(params)]:
            step.args[k].attrs.append("noalias")
            loop_fn.args[k].attrs.append("noalias")
        self._replace_loop(loop_fn, params)
        return loop_fn

    def _trips(self) -> Value | None:
        """A bound on the loop's steps computed at the end of the preheader (the forward
        sweep then knows whether every state fits before it keeps any); None if unknown."""
        tc = trip_count(self.lp, self.dom)
        if tc is None:
            return None
        return emit_trip_count(self._before_branch(), tc)

    def _field(self, b: Builder, state: Value, k: int, name: str | None = None) -> Value:
        return b.getelementptr(self.state_type, state,
                               [ConstantInt(T.I32, 0), ConstantInt(T.I32, k)], name=name)

    def _step_function(self, params: list[Value], ptypes: tuple[T.Type, ...]) -> Function:
        step = Function(self.module.unique_name(f"{self.base}.step"),
                        T.FunctionType(T.I32, ptypes),
                        [_param_name(p) for p in params] + ["state"])
        step.prefix = ["internal"]
        self.module.add_function(step)
        state = step.args[-1]
        vmap: dict[Value, Value] = {p: a for p, a in zip(params, step.args, strict=False)
                                    if not isinstance(p, Constant)}
        entry = step.append_block("entry")
        b = Builder(entry)
        for k, phi in enumerate(self.header_phis):
            vmap[phi] = b.load(phi.type, self._field(b, state, k), name=phi.name)
        for gep in self.rebuilt:  # (the addresses computed again from their bases)
            vmap[gep] = entry.append(clone_instruction(gep, vmap, {}))
        bmap = {blk: Block(blk.name, step) for blk in self.blocks}
        header_phis = set(self.header_phis)
        for blk in self.blocks:
            nb = bmap[blk]
            step.blocks.append(nb)
            for inst in blk.instructions:
                if inst in header_phis:
                    continue
                vmap[inst] = nb.append(clone_instruction(inst, vmap, bmap))
        originals = set(self.insts)
        for blk in self.blocks:
            for inst in bmap[blk].instructions:
                inst.operands = [vmap[o] if o in originals and o in vmap else o
                                 for o in inst.operands]
        b.br(bmap[self.lp.header])
        done = Block("step.done", step)
        codes: list[tuple[Value, Block]] = []
        nxt = Block("step.next", step)
        nb = Builder(nxt)
        for k, phi in enumerate(self.header_phis):
            nb.store(_mapped(vmap, phi.value_for(self.latch)), self._field(nb, state, k))
        nb.br(done)
        codes.append((ConstantInt(T.I32, 0), nxt))
        stubs = [nxt]
        for blk in self.blocks:
            term = bmap[blk].terminator
            assert term is not None
            if bmap[self.lp.header] in term.successors():  # (the latch: the back edge)
                term.replace_successor(bmap[self.lp.header], nxt)
                term.metadata = [(k, v) for k, v in term.metadata if k != "llvm.loop"]
            for k, x in enumerate(self.lp.exits, start=1):
                if x not in term.successors():
                    continue
                stub = Block(f"step.exit.{k}", step)
                sb = Builder(stub)
                for j, (ex, phi) in enumerate(self.exit_phis):
                    if ex is x:
                        v = _mapped(vmap, phi.value_for(blk))
                        sb.store(v, self._field(sb, state, len(self.header_phis) + j))
                sb.store(ConstantInt(T.I32, k), self._field(sb, state, self.code_field))
                sb.br(done)
                term.replace_successor(x, stub)
                codes.append((ConstantInt(T.I32, k), stub))
                stubs.append(stub)
        step.blocks += stubs + [done]
        db = Builder(done)
        code = db.phi(T.I32, codes, name="code")
        db.ret(code)
        return step

    def _loop_function(self, step: Function, ptypes: tuple[T.Type, ...],
                       plan: CheckpointPlan) -> Function:
        fn = Function(self.base, T.FunctionType(T.VOID, ptypes),
                      [a.name for a in step.args])
        fn.prefix = ["internal"]
        fn.suffix = [plan.attribute()]
        self.module.add_function(fn)
        entry, body, done = fn.append_block("entry"), fn.append_block("loop"), \
            fn.append_block("done")
        Builder(entry).br(body)
        b = Builder(body)
        code = b.call(step, list(fn.args), name="code")
        b.condbr(b.icmp("eq", code, ConstantInt(T.I32, 0), name="again"), body, done)
        Builder(done).ret()
        return fn

    def _replace_loop(self, loop_fn: Function, params: list[Value]) -> None:
        fn, pre = self.fn, self.pre
        at = Builder(fn.entry)
        at.index = 0
        state = at.alloca(self.state_type, name=f"{self.base}.state")
        term = pre.terminator
        assert term is not None
        pre.remove(term)
        b = Builder(pre)
        for k, phi in enumerate(self.header_phis):
            b.store(phi.value_for(pre), self._field(b, state, k))
        b.call(loop_fn, [*params, state])
        exits = self.lp.exits
        if len(exits) == 1:
            b.br(exits[0])
        else:
            code = b.load(T.I32, self._field(b, state, self.code_field), name="exit.code")
            b.switch(code, exits[-1], [(ConstantInt(T.I32, k), x)
                                       for k, x in enumerate(exits[:-1], start=1)])
        for j, (x, phi) in enumerate(self.exit_phis):
            xb = Builder(x)
            xb.index = x.first_non_phi_index()
            value = xb.load(phi.type, self._field(xb, state, len(self.header_phis) + j),
                            name=phi.name)
            x.remove(phi)
            fn.replace_all_uses(phi, value)
        fn.blocks = [blk for blk in fn.blocks if blk not in self.lp.blocks]


def _read_pointer(inst: I.Instruction) -> Value | None:
    if isinstance(inst, I.Load):
        return inst.pointer
    if isinstance(inst, I.Call) and memory_intrinsic(inst.callee_name or "") in \
            ("memcpy", "memmove"):
        return inst.args[1]
    if isinstance(inst, I.Call) and (inst.callee_name or "").startswith("llvm.masked.load"):
        return inst.args[0]
    return None


def _writes_after(fn: Function, lp: Loop) -> list[frozenset[MemObject]]:
    """What each write in a block reachable from the loop's exits may write (frees are not
    writes here: the gradient defers them to its reverse sweep)."""
    seen: set[Block] = set()
    todo = list(lp.exits)
    out: list[frozenset[MemObject]] = []
    while todo:
        blk = todo.pop()
        if blk in seen or blk in lp.blocks:
            continue
        seen.add(blk)
        todo += blk.successors()
        for inst in blk.instructions:
            ptr = written_pointer(inst)
            if ptr is not None:
                out.append(underlying(ptr))
                continue
            if not isinstance(inst, I.Call):
                continue
            name = inst.callee_name or ""
            if writes_no_memory(name) or name in ALLOCATION_FUNCTIONS or \
                    name in DEALLOCATION_FUNCTIONS:
                continue
            callee = inst.callee
            known = known_writes(name)
            if known is not None:
                out += [underlying(inst.args[k]) for k in sorted(known)]
            elif isinstance(callee, Function) and not callee.is_declaration:
                out += [objs for _, objs in memory_effects(callee).writes]
                if memory_effects(callee).writes_unknown_call:
                    out.append(frozenset({UNKNOWN}))
                for a in inst.args:
                    if a.type.is_pointer:
                        out.append(underlying(a))
            else:
                out.append(frozenset({UNKNOWN}))
    return out


def _same_extent(a: Extent, b: Extent) -> bool:
    """The two extents are the same number of bytes (the same values, or equal constants)."""
    if a[0] != b[0] or len(a[1]) != len(b[1]):
        return False
    return all(x is y or isinstance(x, ConstantInt) and isinstance(y, ConstantInt) and
               x.value == y.value for x, y in zip(a[1], b[1], strict=True))


def _allocated_extent(call: I.Call) -> Extent | None:
    """The extent of the block an allocation call returns (its size arguments)."""
    name = call.callee_name or ""
    args = call.args
    if name in ("malloc", "_Znwm", "_Znam") and len(args) == 1:
        return 1, (args[0],)
    if name == "aligned_alloc" and len(args) == 2:
        return 1, (args[1],)
    if name == "calloc" and len(args) == 2:
        return 1, (args[0], args[1])
    return None


def _describe(fn: Function, o: MemObject) -> str:
    if isinstance(o, Argument):
        return f"the memory argument %{o.name or o.index} points to"
    if isinstance(o, GlobalValue):
        return f"@{o.name}"
    if isinstance(o, I.Load):
        return "memory reached through a pointer loaded from memory"
    if isinstance(o, Value):
        return f"the block {Slots(fn).local(o)}"
    return "unknown memory"


def _param_name(v: Value) -> str | None:
    name = getattr(v, "name", None)
    return name if isinstance(name, str) and name else None


def _mapped(vmap: dict[Value, Value], v: Value) -> Value:
    return v if isinstance(v, Constant) else vmap.get(v, v)


class CheckpointLoops:
    """`checkpoint-loops{fn=f,snapshots=K,budget=B}`: outline `f`'s time loops (see above)."""

    name = "checkpoint-loops"

    def __init__(self, fn: str, snapshots: int, budget: int, time: bool,
                 arrays: list[str]) -> None:
        self.function, self.snapshots, self.budget, self.time = fn, snapshots, budget, time
        self.arrays = parse_array_extents(arrays)

    def run(self, module: Module) -> Module:
        fn = module.get_function(self.function)
        checkpoint_loops(module, fn, self.snapshots, self.budget, self.time, self.arrays)
        return module


register_pass("checkpoint-loops", "outline fn's time loops so that the reverse transform "
              "checkpoints them (binomial checkpointing, checkpoint.py)", (
                  Param("fn", "the function to differentiate", required=True),
                  Param("snapshots", "states kept per loop (0: from budget, or about the "
                        "square root of the trip count)", int, 0),
                  Param("budget", "bytes the kept states may take (0: no budget)", int, 0),
                  Param("time", "every time loop (0: only the loops marked checkpointed in "
                        "the source)", bool, True),
                  Param("arrays", "P:S1.S2:B per contiguous array argument: data pointer P, "
                        "extents S1, S2 ..., B bytes per element", list, ()),
              ))(CheckpointLoops)
