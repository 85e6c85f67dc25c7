"""Reverse mode: from a canonicalized function `f`, build `@diffe_f` (Enzyme's convention).

Arguments of `@diffe_f`: each argument of `f`, followed by its shadow pointer when it is
`dup`/`dupnoneed`; then the seed of the result when the return is active. It returns the
adjoints of the `out` arguments (one value, or a struct in argument order; void when none).
Shadows accumulate: `@diffe_f` adds to them and never clears what the caller put there, except
that the shadow of memory the function overwrites is consumed (read and zeroed), as in Enzyme.

Structure of the generated function: an `alloca` block (adjoint slots, tape slots, counters),
the forward sweep (a copy of `f`, instrumented with loop counters, came-from indices and tape
stores), then one reverse block `rev.B` per forward block `B` in reverse order, and
`rev.return`. Adjoints live in entry-block slots (`%x.d`) so that SROA turns them into SSA.
Invariants: `f` is never modified; the input must be canonical (one `ret`, loops in
loop-simplify/LCSSA form); anything unsupported raises `DifferentiationError` naming the
function, block and instruction.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.ad import names
from enzyme_py.ad.calls import (
    SplitCall,
    finish_split_calls,
    rewrite_split_calls,
    split_invoke_edges,
    split_key,
)
from enzyme_py.ad.float_memory import rewrite_float_copies
from enzyme_py.ad.realloc import expand_reallocs
from enzyme_py.ad.registrations import find_registrations
from enzyme_py.ad.reverse_ops import reverse_instruction
from enzyme_py.ad.shadow import shadow_pointer_stores
from enzyme_py.ad.split import SplitPair, split_gradient
from enzyme_py.ad.tape import LoopState, Tape
from enzyme_py.analysis.activity import Activity, analyze_activity
from enzyme_py.analysis.errors import AnalysisError, DifferentiationError
from enzyme_py.analysis.globals import globals_shared_with_callees
from enzyme_py.analysis.loops import LoopInfo, find_loops, induction_variables, trip_count
from enzyme_py.analysis.memory import (
    ALLOCATION_FUNCTIONS,
    DEALLOCATION_FUNCTIONS,
    memory_effects,
    underlying,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_body
from enzyme_py.ir.dominance import dominators, predecessors
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.printer import Slots
from enzyme_py.ir.values import Argument, ConstantInt, Value, zero
from enzyme_py.ir.verifier import verify_function


@dataclass(frozen=True)
class ReverseOptions:
    name: str | None = None  # name of the gradient function (default `diffe_<f>`)
    # Also return f's result: `{ result, adjoints... }` (what value_and_grad needs).
    return_primal: bool = False
    # Build `f`'s augmented forward and reverse functions instead (`split.py`), for calls.
    split: bool = False
    # (split) f returns a pointer whose memory the caller differentiates through: the
    # augmented function also hands back that memory's shadow.
    return_shadow: bool = False
    # (split) names of the globals the outermost function shares with its callees
    dup_globals: tuple[str, ...] = ()
    # (split) per argument, the float type the caller knows its memory holds (or None): a
    # callee that only copies memory (memcpy) learns its element type from its caller
    arg_float_types: tuple[str | None, ...] = ()


def reverse_diff(module: Module, fn: Function, arg_activity: list[str], return_active: bool,
                 options: ReverseOptions | None = None) -> Function:
    """Add the reverse-mode gradient of `fn` to `module` and return it."""
    return ReverseTransform(module, fn, list(arg_activity), return_active,
                            options or ReverseOptions()).run()


def edge_count(src: Block, dst: Block) -> int:
    return sum(1 for s in src.successors() if s is dst)


class ReverseTransform:
    def __init__(self, module: Module, fn: Function, arg_activity: list[str],
                 return_active: bool, options: ReverseOptions) -> None:
        if fn.is_declaration:
            raise DifferentiationError(f"@{fn.name} has no body to differentiate")
        self.module = module
        self.primal = fn
        self.arg_activity = arg_activity
        self.return_active = return_active
        self.options = options
        self.b = Builder()

    # --- setup ------------------------------------------------------------------------------

    def run(self) -> Function:
        fn = self.primal
        if len(self.arg_activity) != len(fn.args):
            raise DifferentiationError(
                f"@{fn.name} takes {len(fn.args)} arguments, but {len(self.arg_activity)} "
                "activities were given")
        self.split = self.options.split
        self.final_type = self._gradient_type()
        # The copy keeps f's name while it is analysed, so messages name the user's function.
        work = Function(fn.name or "f", fn.function_type, [a.name for a in fn.args])
        if self.split:
            name = ""
            self.pair = self._register_pair()
        else:
            key = (fn.name, tuple(self.arg_activity), self.return_active,
                   self.options.return_primal)
            existing = self.module.derived.get(key)
            if existing is not None:
                return existing[0]
            name = self.module.unique_name(self.options.name or
                                           names.reverse_function(fn.name))
            # Registered before it is built: a recursive call inside f calls this gradient.
            self.module.derived[key] = (work, self.final_type)
            self.module.symbols[name] = work  # reserve the name while the body is built
        work.parent = self.module
        self.work = work
        for src_arg, arg in zip(fn.args, work.args, strict=True):
            arg.attrs = list(src_arg.attrs)  # noalias/readonly inform the alias analysis
        vmap: dict[Value, Value] = dict(zip(fn.args, work.args, strict=True))
        clone_body(fn, work, vmap)
        work.personality = fn.personality  # landing pads need the same personality
        _name_blocks(fn, work)
        rewrite_float_copies(work)
        expand_reallocs(self.module, work)  # malloc + memcpy + free: no special case below
        split_invoke_edges(work)  # where a split callee's tape is read after an invoke
        self.original = set(work.instructions())
        self.select_guards()  # before the forward sweep adds uses (tape stores)
        self._check_input()
        self.dom = dominators(work)
        try:
            self.loops: LoopInfo = find_loops(work, self.dom)
            self.registrations = find_registrations(self.module)
            self.shared_globals = self._shared_globals()
            self.activity: Activity = analyze_activity(
                work, self.arg_activity, self.return_active, self.registrations.inactive,
                return_shadow=self.options.return_shadow, dup_globals=self.shared_globals)
        except AnalysisError as exc:
            raise DifferentiationError(str(exc)) from None
        self.preds = predecessors(work)
        self._make_alloca_block()
        self._make_arguments()
        self.tape = Tape(self)
        self.shadows: dict[Value, Value] = {}
        self.heap_shadows: list[tuple[I.Call, Value]] = []
        self.deferred_list: tuple[Value, Value, Value] | None = None
        self.frees_base: Value | None = None
        self.deferred_frees = self._defer_frees()
        # after the frees moved out: memory freed later in f stays readable for the reverse
        self.effects = memory_effects(work, is_pure_call)
        self.adjoint_slots: dict[Value, I.Instruction] = {}
        self.split_calls: dict[I.Call, SplitCall] = {}
        rewrite_split_calls(self)
        shadow_pointer_stores(self)
        self.ret_shadow: Value | None = None
        if self.split and self.pair.shadow_return:
            self.ret_shadow = self._return_shadow()
        self._instrument_loops()
        self._instrument_merges()
        self._reverse_sweep()
        finish_split_calls(self)
        if self.split:
            split_gradient(self, self.pair)
            return self.pair.reverse
        self._finish_signature()
        work.name = name
        self.module.add_function(work)
        problems = verify_function(work, raise_error=False)
        if problems:
            raise DifferentiationError(
                f"internal error: the gradient of @{fn.name} is malformed (a bug in enzyme_py):\n"
                + "\n".join(problems[:5]))
        return work

    def _check_input(self) -> None:
        rets = [i for i in self.work.instructions() if isinstance(i, I.Ret)]
        if len(rets) != 1:
            raise DifferentiationError(
                f"@{self.primal.name} has {len(rets)} return instructions; run the "
                "preprocessing pipeline (mergereturn) first")
        self.ret = rets[0]
        assert self.ret.parent is not None
        self.exit_block = self.ret.parent
        for inst in self.work.instructions():
            if isinstance(inst, I.Instruction) and inst.opcode == "callbr":
                raise self.error(inst, "'callbr' is not supported")

    def error(self, inst: I.Instruction, message: str) -> DifferentiationError:
        slots = Slots(self.work)
        block = slots.local(inst.parent) if inst.parent else "?"
        text = str(inst).split("\n")[0].strip()
        return DifferentiationError(
            f"in @{self.primal.name}, block {block}, instruction `{text}`: {message}")

    def _make_alloca_block(self) -> None:
        """A new first block holds every slot, so SROA can promote them."""
        entry = self.work.blocks[0]
        alloca_block = Block("alloca", self.work)
        self.work.blocks.insert(0, alloca_block)
        for inst in list(entry.instructions):
            if isinstance(inst, I.Alloca) and not inst.operands:
                entry.remove(inst)
                alloca_block.append(inst)
        alloca_block.append(I.Br([entry]))
        self.alloca_block = alloca_block
        self.entry = entry

    def entry_alloca(self, ty: T.Type, name: str, init: Value | None = None) -> I.Instruction:
        at = Builder().position_before(self.alloca_block.instructions[-1])
        slot = at.alloca(ty, name=name)
        if init is not None:
            at.store(init, slot)
        return slot

    def _make_arguments(self) -> None:
        self.shadow_args: dict[Argument, Argument] = {}
        self.final_args: list[Argument] = []
        for arg, act in zip(self.work.args, self.arg_activity, strict=True):
            self.final_args.append(arg)
            if act in ("dup", "dupnoneed"):
                shadow = Argument(T.PTR, names.shadow(arg) if arg.name else None)
                self.shadow_args[arg] = shadow
                self.final_args.append(shadow)
        self.seed: Argument | None = None
        if self.return_active:
            self.seed = Argument(self.primal.return_type, "dret")
            self.final_args.append(self.seed)
        if self.split:  # the augmented function's own parameters (`split.py`)
            self.frees_arg = Argument(T.PTR, "frees")
            self.tape_out = Argument(T.PTR, "tape.out")
            self.shadow_out = Argument(T.PTR, "shadow.out")

    @property
    def is_callee(self) -> bool:
        """Shadow globals are cleared by the outermost derivative, not by callees'."""
        return self.split

    def _shared_globals(self) -> frozenset:
        if self.split:
            return frozenset(self.module.symbols[n] for n in self.options.dup_globals)
        return globals_shared_with_callees(self.work, self.registrations.keep_calls)

    def aug_params(self) -> list[Argument]:
        """(split) The arguments and their shadows, as both split functions take them."""
        return [a for a in self.final_args if a is not self.seed]

    def aug_extra_params(self) -> list[Argument]:
        extra = [self.frees_arg, self.tape_out]
        if self.pair.shadow_return:
            extra.append(self.shadow_out)
        return extra

    def _return_shadow(self) -> Value:
        """The shadow of the pointer `f` returns (null where it points nowhere)."""
        value = self.ret.value
        assert value is not None
        if not self.activity.has_shadow(value):
            raise self.error(self.ret, "returns a pointer the caller differentiates through, "
                                       "but the memory it points to has no shadow here")
        return self.forward_shadow(value)

    def _register_pair(self) -> SplitPair:
        """(split) The two functions, declared before they are built: a recursive call
        inside f calls them."""
        fn = self.primal
        key = split_key(fn, self.arg_activity, self.return_active, self.options.return_shadow,
                        self.options.dup_globals)
        shadow_return = self.options.return_shadow and fn.return_type.is_pointer
        params: list[T.Type] = []
        for arg, act in zip(fn.args, self.arg_activity, strict=True):
            params.append(arg.type)
            if act in ("dup", "dupnoneed"):
                params.append(T.PTR)
        extra = [T.PTR, T.PTR] + ([T.PTR] if shadow_return else [])
        aug = Function(self.module.unique_name(names.augmented_function(fn.name or "f")),
                       T.FunctionType(fn.return_type, tuple(params + extra)))
        self.module.add_function(aug)
        rt = self.final_type
        rev = Function(self.module.unique_name(names.reverse_function(fn.name or "f")),
                       T.FunctionType(rt.ret, (*rt.params, T.PTR)))
        self.module.add_function(rev)
        pair = SplitPair(aug, rev, shadow_return)
        self.module.derived[key] = pair
        return pair

    def frees_list(self) -> tuple[Value, Value, Value]:
        """The list of frees done when the outermost gradient's reverse sweep ends: `{ptr
        list, i64 capacity, i64 count}`, in this frame, or the caller's in split mode."""
        if self.deferred_list is None:
            if self.split:
                base: Value = self.frees_arg
            else:
                base = self.entry_alloca(FREES_TYPE, "frees", zero(FREES_TYPE))
            self.frees_base = base
            at = Builder().position_before(self.alloca_block.instructions[-1])
            self.deferred_list = tuple(  # type: ignore[assignment]
                at.getelementptr(FREES_TYPE, base, [ConstantInt(T.I32, 0),
                                                    ConstantInt(T.I32, k)])
                for k in range(3))
        assert self.deferred_list is not None
        return self.deferred_list

    def frees_pointer(self) -> Value:
        self.frees_list()
        assert self.frees_base is not None
        return self.frees_base

    def _result_types(self) -> list[T.Type]:
        types = [a.type for a, act in zip(self.work.args, self.arg_activity, strict=True)
                 if act == "out"]
        if self.options.return_primal and not self.primal.return_type.is_void:
            types.insert(0, self.primal.return_type)
        return types

    def _gradient_type(self) -> T.FunctionType:
        """The gradient's type, known from the activities before anything is built."""
        params: list[T.Type] = []
        for arg, act in zip(self.primal.args, self.arg_activity, strict=True):
            params.append(arg.type)
            if act in ("dup", "dupnoneed"):
                params.append(T.PTR)
        if self.return_active:
            params.append(self.primal.return_type)
        types = [a.type for a, act in zip(self.primal.args, self.arg_activity, strict=True)
                 if act == "out"]
        if self.options.return_primal and not self.primal.return_type.is_void:
            types.insert(0, self.primal.return_type)
        ret = T.VOID if not types else types[0] if len(types) == 1 else \
            T.StructType(tuple(types))
        return T.FunctionType(ret, tuple(params))

    def callee_gradient(self, g: Function, acts: list[str],
                        ret_active: bool) -> tuple[Function, T.FunctionType]:
        """The gradient of a callee and its type (this function's own gradient, still being
        built, when the call is recursive)."""
        key = (g.name, tuple(acts), ret_active, False)
        got = self.module.derived.get(key)
        if got is None:
            ReverseTransform(self.module, g, acts, ret_active, ReverseOptions()).run()
            got = self.module.derived[key]
        return got

    def _finish_signature(self) -> None:
        ftype = self.final_type
        for a in self.final_args:
            a.attrs = []
        self.work.set_type(ftype, self.final_args)
        self.work.prefix = []
        self.work.suffix = []

    def _defer_frees(self) -> dict[I.Call, I.Call]:
        """Frees of heap memory allocated here move to the reverse sweep (at the reverse of
        the allocation): the reverse sweep may still read that memory or its shadow."""
        deferred: dict[I.Call, I.Call] = {}
        for inst in list(self.work.instructions()):
            if not (isinstance(inst, I.Call) and inst.callee_name in DEALLOCATION_FUNCTIONS):
                continue
            objs = underlying(inst.args[0])  # nulls point nowhere: free(NULL) does nothing
            if not objs:
                assert inst.parent is not None
                inst.parent.remove(inst)
                continue
            if all(isinstance(o, I.Call) and o.callee_name in ALLOCATION_FUNCTIONS
                   for o in objs):
                assert inst.parent is not None
                inst.parent.remove(inst)
                for o in objs:
                    deferred[o] = inst  # type: ignore[index]
            elif inst.callee_name == "free":
                self._defer_to_end(inst)
        return deferred

    def _defer_to_end(self, free: I.Call) -> None:
        """A free of memory not known to be allocated here (a pointer loaded from a list
        node, say): the pointer goes on a list, freed when the reverse sweep ends."""
        from enzyme_py.ad.runtime import defer_free_function

        Builder().position_before(free).call(defer_free_function(self.module),
                                             [*self.frees_list(), free.args[0]])
        assert free.parent is not None
        free.parent.remove(free)

    def same_memory(self):
        """`objs(p)`: what `p` may point into, with pointers loaded from the same place
        leading to the same memory (`activity.alias_classes` of the original instructions,
        which do not change; computed once)."""
        got = getattr(self, "_same_memory", None)
        if got is None:
            from enzyme_py.analysis.activity import alias_classes

            got = self._same_memory = alias_classes(
                [i for i in self.work.instructions() if i in self.original])
        return got

    def select_guards(self) -> dict:
        """The original instructions that matter only under a select's condition
        (`analysis.speculation`), computed once."""
        got = getattr(self, "_select_guards", None)
        if got is None:
            from enzyme_py.analysis.speculation import select_guards

            got = self._select_guards = {i: g for i, g in select_guards(self.work).items()
                                         if i in self.original}
        return got

    def runtime_decl(self, name: str, ftype: T.FunctionType) -> Function:
        return self.module.declare_function(name, ftype)

    # --- forward instrumentation ------------------------------------------------------------

    def _instrument_loops(self) -> None:
        self.loop_states: dict = {}
        for lp in self.loops.loops:
            if not lp.is_simplified:
                raise DifferentiationError(
                    f"a loop in @{self.primal.name} is not in canonical form (no preheader "
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
            state = LoopState(lp, iv, self.entry_alloca(T.I64, "riv"))
            state.trip = trip_count(lp, self.dom)
            state.ivs = {v.phi: v for v in induction_variables(lp)}
            for exit_block in lp.exits:
                limit = I.Phi(T.I64, name="iv.last")
                exit_block.insert(0, limit)
                for p in self.preds[exit_block]:
                    for _ in range(edge_count(p, exit_block)):
                        limit.add_incoming(iv, p)
                state.limits[exit_block] = limit
            self.loop_states[lp] = state

    def _instrument_merges(self) -> None:
        """A `came-from` index for blocks with several predecessors (loop headers excepted)."""
        self.came_from: dict[Block, I.Phi] = {}
        headers = {lp.header for lp in self.loops.loops}
        for block in self.dom.rpo:
            preds = self.preds[block]
            if len(preds) < 2 or block in headers:
                continue
            phi = I.Phi(T.I32, name="came.from")
            for k, p in enumerate(preds):
                for _ in range(edge_count(p, block)):
                    phi.add_incoming(ConstantInt(T.I32, k), p)
            block.insert(0, phi)
            self.came_from[block] = phi

    # --- adjoints and shadows ---------------------------------------------------------------

    def adjoint_slot(self, v: Value) -> I.Instruction:
        slot = self.adjoint_slots.get(v)
        if slot is None:
            slot = self.entry_alloca(v.type, names.adjoint(v), adjoint_zero(v.type))
            self.adjoint_slots[v] = slot
        return slot

    def is_active(self, v: Value) -> bool:
        return self.activity.is_active(v)

    def add_adjoint(self, v: Value, contribution: Value) -> None:
        if not self.activity.is_active(v):
            return
        slot = self.adjoint_slot(v)
        cur = self.b.load(v.type, slot)
        self.b.store(add_values(self.b, cur, contribution), slot)

    def take_adjoint(self, v: Value) -> Value:
        """The adjoint of `v` so far, and reset it to zero (each use consumes it)."""
        slot = self.adjoint_slot(v)
        d = self.b.load(v.type, slot, name=names.adjoint(v))
        self.b.store(adjoint_zero(v.type), slot)
        return d

    def forward_shadow(self, p: Value) -> Value:
        """The shadow of pointer `p` in the forward sweep (built next to `p` on first use)."""
        from enzyme_py.ad.shadow import forward_shadow

        return forward_shadow(self, p)

    def reverse_shadow(self, p: Value) -> Value:
        return self.tape.lookup(self.forward_shadow(p))

    # --- reverse sweep ----------------------------------------------------------------------

    def _reverse_sweep(self) -> None:
        self.forward_block_count = len(self.work.blocks)
        order = list(reversed(self.dom.rpo))
        self.rev: dict[Block, Block] = {}
        for block in order:
            self.rev[block] = self.work.append_block(names.reverse_block(block.name))
        self.rev_return = self.work.append_block("rev.return")
        ret_value = self.ret.value
        self.ret_value = ret_value
        exit_block = self.exit_block
        exit_block.remove(self.ret)
        exit_block.append(I.Br([self.rev[exit_block]]))
        for block in order:
            self.b.position_at_end(self.rev[block])
            if block is exit_block and self.seed is not None and ret_value is not None:
                self.add_adjoint(ret_value, self.seed)
            self._reverse_block(block)
        free = self.runtime_decl("free", T.FunctionType(T.VOID, (T.PTR,)))
        self.tape.emit_frees(self.rev, free)
        self._emit_return()

    def _reverse_block(self, block: Block) -> None:
        # (an invoke ends its block but is a call to reverse like any other)
        body = [i for i in block.instructions if i in self.original and
                (not i.is_terminator or isinstance(i, I.Invoke))]
        phis = [i for i in body if isinstance(i, I.Phi)]
        for inst in reversed(body):
            if not isinstance(inst, I.Phi):
                reverse_instruction(self, inst)
        phi_adjoints = {p: self.take_adjoint(p) for p in phis if self.is_active(p)}
        here = self.b.block
        assert here is not None
        preds = self.preds[block]
        lp = self.loops.loop_of.get(block)
        if block is self.entry:
            self.b.br(self.rev_return)
        elif lp is not None and lp.header is block:
            state = self.loop_states[lp]
            riv = self.b.load(T.I64, state.riv_slot, 8, name="riv")
            first = self.b.icmp("eq", riv, ConstantInt(T.I64, 0), name="riv.first")
            assert lp.preheader is not None and lp.latch is not None
            leave = self._edge(block, lp.preheader, phi_adjoints)
            back = self._edge(block, lp.latch, phi_adjoints, decrement=(state, riv))
            self.b.position_at_end(here)
            self.b.condbr(first, leave, back)
        elif len(preds) == 1:
            target = self._edge(block, preds[0], phi_adjoints)
            self.b.position_at_end(here)
            self.b.br(target)
        else:
            index = self.tape.lookup(self.came_from[block])
            edges = [self._edge(block, p, phi_adjoints) for p in preds]
            self.b.position_at_end(here)
            self.b.switch(index, edges[0],
                          [(ConstantInt(T.I32, k), e) for k, e in enumerate(edges) if k > 0])

    def _edge(self, block: Block, pred: Block, phi_adjoints: dict[I.Phi, Value],
              decrement: tuple[LoopState, Value] | None = None) -> Block:
        """The reverse of edge pred -> block: phi adjoints flow to the incoming values, and
        loops entered backwards get their iteration counters."""
        entering = [lp for lp in self.loops.loops
                    if lp.contains(pred) and not lp.contains(block)]
        if not phi_adjoints and not entering and decrement is None:
            return self.rev[pred]
        edge = self.work.append_block(names.reverse_edge(block.name, pred.name))
        self.b.position_at_end(edge)
        for phi, d in phi_adjoints.items():
            self.add_adjoint(phi.value_for(pred), d)
        if decrement is not None:
            state, riv = decrement
            self.b.store(self.b.sub(riv, ConstantInt(T.I64, 1)), state.riv_slot, 8)
        term = self.b.br(self.rev[pred])
        for lp in entering:
            self.b.position_before(term)
            self.tape.enter_loop(self.loop_states[lp], edge, block)
        return edge

    def _emit_return(self) -> None:
        b = self.b.position_at_end(self.rev_return)
        if self.deferred_list is not None and not self.split:
            from enzyme_py.ad.runtime import free_deferred_function

            lst, _, count = self.deferred_list
            b.call(free_deferred_function(self.module), [lst, count])
        outs = [a for a, act in zip(self.work.args, self.arg_activity, strict=True)
                if act == "out"]
        values = [self.take_adjoint(a) if self.is_active(a) else zero(a.type) for a in outs]
        if self.options.return_primal and self.ret_value is not None:
            values.insert(0, self.ret_value)  # the exit block dominates the reverse sweep
        if not values:
            b.ret()
        elif len(values) == 1:
            b.ret(values[0])
        else:
            agg: Value = zero(T.StructType(tuple(self._result_types())))
            for k, v in enumerate(values):
                agg = b.insertvalue(agg, v, [k])
            b.ret(agg)


FREES_TYPE = T.StructType((T.PTR, T.I64, T.I64))


def adjoint_zero(t: T.Type) -> Value:
    """The empty adjoint: -0.0, the exact identity of fadd (+0.0 is not: -0.0 + 0.0 = +0.0),
    so LLVM folds the first accumulation `-0.0 + x` into `x`."""
    from enzyme_py.ir.values import ConstantAggregate, const_float

    if t.is_fp_or_fp_vector:
        return const_float(t, -0.0)
    if isinstance(t, T.ArrayType):
        return ConstantAggregate(t, tuple(adjoint_zero(t.element) for _ in range(t.count)))
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        return ConstantAggregate(t, tuple(adjoint_zero(e) for e in T.struct_elements(t)))
    return zero(t)


def is_pure_call(name: str) -> bool:
    """Callees that write no user memory: math functions with derivative rules (libm may set
    errno, which no derivative depends on) and the known-inactive table."""
    from enzyme_py.rules.inactive import is_known_inactive
    from enzyme_py.rules.registry import lookup

    return lookup(name) is not None or is_known_inactive(name)


def add_values(b: Builder, a: Value, x: Value) -> Value:
    """`a + x` for floats, float vectors, and aggregates of them (other fields keep `a`)."""
    t = a.type
    if t.is_fp_or_fp_vector:
        return b.fadd(a, x)
    if isinstance(t, (T.ArrayType, T.StructType, T.IdentifiedStructType)):
        count = t.count if isinstance(t, T.ArrayType) else len(T.struct_elements(t))
        out = a
        for k in range(count):
            et = T.element_type_at(t, k)
            from enzyme_py.analysis.activity import carries_float

            if not carries_float(et):
                continue
            s = add_values(b, b.extractvalue(a, [k]), b.extractvalue(x, [k]))
            out = b.insertvalue(out, s, [k])
        return out
    return a


def _name_blocks(src: Function, dst: Function) -> None:
    """Anonymous blocks get `bbN` names from the original's numbering (readable `rev.bbN`)."""
    slots = Slots(src)
    for s, d in zip(src.blocks, dst.blocks, strict=True):
        if not s.name:
            d.name = "bb" + slots.block_label(s)

