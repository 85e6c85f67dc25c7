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

This module drives the derivation; what it holds while it runs is a `ReverseState`
(`reverse_state.py`), which the helpers (`reverse_ops`, `calls`, `split`) read and write.
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.ad import names
from enzyme_py.ad.activity_arguments import transform_activities
from enzyme_py.ad.calls import finish_split_calls, rewrite_split_calls
from enzyme_py.ad.checkpoint import checkpoint_pair
from enzyme_py.ad.checkpoint_loops import checkpoint_plan
from enzyme_py.ad.context import (
    DerivationContext,
    analysis_errors,
    check_arity,
    check_body,
    open_derivation,
    split_invoke_edges,
)
from enzyme_py.ad.derived import Derived, DerivedFunctions, GradientKey, SplitKey, SplitPair
from enzyme_py.ad.device import DevicePolicy, device_policy
from enzyme_py.ad.devirtualize import trap_unchanged_global_fallbacks
from enzyme_py.ad.frees import DeferredFrees
from enzyme_py.ad.indirect_calls import finish_indirect_calls, rewrite_indirect_calls
from enzyme_py.ad.load_windows import plan_windows
from enzyme_py.ad.overwritten_loads import plan_overwrites
from enzyme_py.ad.realloc import expand_reallocs
from enzyme_py.ad.reverse_cfg import (
    ControlFlow,
    LoopState,
    instrument_loops,
    instrument_merges,
    reverse_ways,
    way_in,
)
from enzyme_py.ad.reverse_ops import reverse_instruction
from enzyme_py.ad.reverse_state import (
    ReverseArguments,
    ReverseOptions,
    ReverseState,
    ReverseSweep,
)
from enzyme_py.ad.shadow import mirror_pointer_copies, mirror_pointer_stores, returned_pointer
from enzyme_py.ad.signature import (
    derivative_parameters,
    install_signature,
    parameter_types,
    result_type,
)
from enzyme_py.ad.split import split_gradient
from enzyme_py.ad.warp_sum import add_per_warp
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.loops import find_loops
from enzyme_py.analysis.memory_effects import memory_effects
from enzyme_py.analysis.speculation import select_guards
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.dominance import dominators, predecessors
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.values import Argument, ConstantInt, Value, zero
from enzyme_py.ir.verifier import verify_function

__all__ = ["ReverseOptions", "ReverseTransform", "reverse_diff"]


def reverse_diff(module: Module, fn: Function, arg_activity: Sequence[str | Activity],
                 return_active: bool,
                 options: ReverseOptions | None = None) -> Function:
    """Add the reverse-mode gradient of `fn` to `module` and return it.

    Example::

        grad = reverse_diff(m, m.get_function("f"), ["out", "dup"], return_active=True)
    """
    return ReverseTransform(module, fn, list(arg_activity), return_active,
                            options or ReverseOptions()).run()


class _Callees:
    """The derivatives of callees in `module` (`reverse_state.ReverseCallees`): from the cache,
    built when missing (a recursive callee finds its own, registered before it is built)."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.derived = DerivedFunctions(module)

    def gradient(self, g: Function, acts: list[str], ret_active: bool) -> Derived:
        key = GradientKey(g.name, tuple(acts), ret_active, False)
        got = self.derived.get(key)
        if got is None:
            ReverseTransform(self.module, g, acts, ret_active, ReverseOptions()).run()
            got = self.derived.get(key)
        assert got is not None
        return got

    def split_pair(self, g: Function, acts: list[str], ret_active: bool, ret_shadow: bool,
                   shared_globals: tuple[str, ...],
                   float_types: tuple[str | None, ...]) -> SplitPair:
        # (the float types are hints for a callee that copies memory without touching it; not
        # part of the key, so that a recursion keeps calling one pair)
        key = SplitKey(g.name, tuple(acts), ret_active, ret_shadow, shared_globals)
        got = self.derived.get(key)
        plan = checkpoint_plan(g) if got is None else None
        if plan is not None:  # an outlined time loop: reversed by binomial checkpointing
            def block_derivative(block: Function, block_acts: list[str],
                                 stable: tuple[int, ...]) -> SplitPair:
                # (the halves run apart when the whole loop is one block; where the loop
                # shares globals with the function, with the caller's shadows)
                return self._split(block, block_acts, False, False, shared_globals,
                                   float_types, stable)

            got = checkpoint_pair(self.module, g, plan, acts, block_derivative)
            self.derived.add(key, got)
        return got if got is not None else self._split(g, acts, ret_active, ret_shadow,
                                                       shared_globals, float_types, ())

    def _split(self, g: Function, acts: list[str], ret_active: bool, ret_shadow: bool,
               shared_globals: tuple[str, ...], float_types: tuple[str | None, ...],
               stable: tuple[int, ...]) -> SplitPair:
        ReverseTransform(self.module, g, acts, ret_active,
                         ReverseOptions(split=True, return_shadow=ret_shadow,
                                        dup_globals=shared_globals,
                                        arg_float_types=float_types,
                                        stable_args=stable)).run()
        got = self.derived.get(SplitKey(g.name, tuple(acts), ret_active, ret_shadow,
                                        shared_globals))
        assert got is not None
        return got


def _follows_in(device: DevicePolicy):
    """What follows an argument in the gradient's signature: its shadow when dup (of the
    same pointer type: a shadow lives in its primal's address space); in a kernel, the
    pointer an `out` argument's adjoint is added to."""

    def follows(arg: Argument, act: Activity) -> list[Argument]:
        if act.shadowed:
            return [Argument(arg.type, names.shadow(arg) if arg.name else None)]
        if act is Activity.OUT and device.kernel:
            return [Argument(T.PTR, names.adjoint(arg) if arg.name else None)]
        return []

    return follows


class ReverseTransform:
    def __init__(self, module: Module, fn: Function, arg_activity: Sequence[str | Activity],
                 return_active: bool, options: ReverseOptions) -> None:
        check_body(fn)
        self.module = module
        self.primal = fn
        self.arg_activity = transform_activities(fn, arg_activity)
        self.return_active = return_active
        self.options = options
        self.device = device_policy(module, fn, options.atomics)
        self._follows = _follows_in(self.device)

    # --- setup ------------------------------------------------------------------------------

    def run(self) -> Function:
        fn, acts, options = self.primal, self.arg_activity, self.options
        check_arity(fn, acts)
        final_type = self._gradient_type()
        derived = DerivedFunctions(self.module)
        key = GradientKey(fn.name, tuple(acts), self.return_active, options.return_primal)
        if not options.split:
            existing = derived.get(key)
            if existing is not None:
                return existing.function
        ctx = open_derivation(self.module, fn, acts, atomics=options.atomics)
        work = ctx.work
        pair: SplitPair | None = None
        if options.split:
            name = ""
            pair = self._register_pair(final_type)
        else:
            name = self.module.unique_name(options.name or names.reverse_function(fn.name))
            # Registered before it is built: a recursive call inside f calls this gradient.
            derived.add(key, Derived(work, final_type))
            self.module.symbols[name] = work  # reserve the name while the body is built
        expand_reallocs(self.module, work)  # malloc + memcpy + free: no special case below
        trap_unchanged_global_fallbacks(self.module, work)  # pointers from unwritten globals
        split_invoke_edges(work)  # where a split callee's tape is read after an invoke
        original = set(work.instructions())
        # before the forward sweep adds uses (tape stores)
        guards = {i: g for i, g in select_guards(work).items() if i in original}
        ret = self._check_input(ctx)
        dom = dominators(work)
        with analysis_errors():
            loops = find_loops(work, dom)
        ctx.analyze(acts, self.return_active, return_shadow=options.return_shadow,
                    shared_globals=options.dup_globals if options.split else None)
        assert ret.parent is not None
        cf = ControlFlow(original, dom, loops, predecessors(work), ctx.entry, ret.parent, ret)
        ctx.make_alloca_block()  # now: the instrumentation puts slots at its end
        args = self._make_arguments(ctx)
        frees = DeferredFrees(ctx, args.frees)
        frees.defer()
        # after the frees moved out: memory freed later in f stays readable for the reverse
        effects = memory_effects(work)
        st = ReverseState(ctx, options, cf, args, frees, effects, guards,
                          _Callees(self.module))
        st.windows = plan_windows(list(loops.loops), effects, st.is_active,
                                  self.device.atomics)
        st.overwrites = plan_overwrites(list(loops.loops), effects, st.is_active,
                                        self.device.atomics)
        st.pair = pair
        rewrite_split_calls(st)
        rewrite_indirect_calls(st)
        mirror_pointer_stores(st.shadows, [i for i in work.instructions() if i in original])
        mirror_pointer_copies(st.shadows, [i for i in work.instructions() if i in original],
                              st.memory_float_kind)
        if pair is not None and pair.shadow_return:
            st.ret_shadow = st.forward_shadow(returned_pointer(ctx, ret))
        instrument_loops(ctx, cf)
        instrument_merges(cf)
        _reverse_sweep(st)
        finish_split_calls(st)
        finish_indirect_calls(st)
        if pair is not None:
            split_gradient(st, pair)
            return pair.reverse
        install_signature(work, final_type, args.params)
        work.prefix = self.device.prefix()  # (a kernel's gradient is a kernel)
        work.name = name
        self.module.add_function(work)
        problems = verify_function(work, raise_error=False)
        if problems:
            raise DifferentiationError(
                f"internal error: the gradient of @{fn.name} is malformed (a bug in enzyme_py):\n"
                + "\n".join(problems[:5]))
        return work

    def _check_input(self, ctx: DerivationContext) -> I.Ret:
        rets = [i for i in ctx.work.instructions() if isinstance(i, I.Ret)]
        if len(rets) != 1:
            raise DifferentiationError(
                f"@{self.primal.name} has {len(rets)} return instructions; run the "
                "preprocessing pipeline (mergereturn) first")
        for inst in ctx.work.instructions():
            if isinstance(inst, I.Instruction) and inst.opcode == "callbr":
                raise ctx.error(inst, "'callbr' is not supported")
        return rets[0]

    def _make_arguments(self, ctx: DerivationContext) -> ReverseArguments:
        params, extra = derivative_parameters(ctx.work.args, self.arg_activity, self._follows)
        seed: Argument | None = None
        if self.return_active:
            seed = Argument(self.primal.return_type, "dret")
            params.append(seed)
        act_of = dict(zip(ctx.work.args, self.arg_activity, strict=True))
        shadows = {a: more[0] for a, more in extra.items() if act_of[a].shadowed}
        outs = {a: more[0] for a, more in extra.items() if not act_of[a].shadowed}
        args = ReverseArguments(params, shadows, seed, outs)
        if self.options.split:  # the augmented function's own parameters (`split.py`)
            args.frees = Argument(T.PTR, "frees")
            args.tape_out = Argument(T.PTR, "tape.out")
            args.shadow_out = Argument(T.PTR, "shadow.out")
        return args

    def _result_types(self) -> list[T.Type]:
        if self.device.kernel:
            return []  # a kernel returns nothing: adjoints go to memory (`out_pointers`)
        types = [a.type for a, act in zip(self.primal.args, self.arg_activity, strict=True)
                 if act is Activity.OUT]
        if self.options.return_primal and not self.primal.return_type.is_void:
            types.insert(0, self.primal.return_type)
        return types

    def _gradient_type(self) -> T.FunctionType:
        """The gradient's type, known from the activities before anything is built."""
        params = parameter_types(self.primal.args, self.arg_activity, self._follows)
        if self.return_active:
            params.append(self.primal.return_type)
        return T.FunctionType(result_type(self._result_types()), tuple(params))

    def _register_pair(self, final_type: T.FunctionType) -> SplitPair:
        """(split) The two functions, declared before they are built: a recursive call
        inside f calls them."""
        fn, options = self.primal, self.options
        key = SplitKey(fn.name, tuple(self.arg_activity), self.return_active,
                       options.return_shadow, options.dup_globals)
        shadow_return = options.return_shadow and fn.return_type.is_pointer
        params = parameter_types(fn.args, self.arg_activity, self._follows)
        extra = [T.PTR, T.PTR] + ([T.PTR] if shadow_return else [])
        aug = Function(self.module.unique_name(names.augmented_function(fn.name or "f")),
                       T.FunctionType(fn.return_type, tuple(params + extra)))
        self.module.add_function(aug)
        rev = Function(self.module.unique_name(names.reverse_function(fn.name or "f")),
                       T.FunctionType(final_type.ret, (*final_type.params, T.PTR)))
        self.module.add_function(rev)
        return DerivedFunctions(self.module).add(key, SplitPair(aug, rev, shadow_return))


# --- the reverse sweep ----------------------------------------------------------------------


def _reverse_sweep(st: ReverseState) -> None:
    cf, work, b = st.cf, st.ctx.work, st.b
    forward_block_count = len(work.blocks)
    order = list(reversed(cf.dom.rpo))
    rev: dict[Block, Block] = {}
    for block in order:
        rev[block] = work.append_block(names.reverse_block(block.name))
    rev_return = work.append_block("rev.return")
    st.tape.reverse_of.update({r: f for f, r in rev.items()})  # (shared with `accumulation`)
    reverse_ways(st.ctx, cf, rev)
    ret_value = cf.ret.value
    st.sweep = ReverseSweep(rev, rev_return, forward_block_count, ret_value)
    exit_block = cf.exit_block
    exit_block.remove(cf.ret)
    exit_block.append(I.Br([rev[exit_block]]))
    seed = st.args.seed
    for block in order:
        b.position_at_end(rev[block])
        if block is exit_block and seed is not None and ret_value is not None:
            st.add_adjoint(ret_value, seed)
        _reverse_block(st, block)
    st.tape.emit_frees(rev, st.ctx.libc.free())
    _emit_return(st)


def _reverse_block(st: ReverseState, block: Block) -> None:
    cf, b = st.cf, st.b
    # (an invoke ends its block but is a call to reverse like any other)
    body = [i for i in block.instructions if i in cf.original and
            (not i.is_terminator or isinstance(i, I.Invoke))]
    phis = [i for i in body if isinstance(i, I.Phi)]
    for inst in reversed(body):
        if not isinstance(inst, I.Phi):
            reverse_instruction(st, inst)
    lp = cf.loops.loop_of.get(block)
    # the plans that rearrange this loop's reversed trips (`load_windows`, `overwritten_loads`)
    plans = [p for p in (st.windows, st.overwrites) if p.has(lp)] \
        if lp is not None and lp.header is block else []
    for plan in plans:
        assert lp is not None
        plan.end_trip(st, lp)
    phi_adjoints = {p: st.take_adjoint(p) for p in phis if st.is_active(p)}
    here = b.block
    assert here is not None and st.sweep is not None
    preds = cf.preds[block]
    if block is cf.entry:
        b.br(st.sweep.rev_return)
    elif lp is not None and lp.header is block:
        state = cf.loop_states[lp]
        riv = b.load(T.I64, state.riv_slot, 8, name="riv")
        first = b.icmp("eq", riv, ConstantInt(T.I64, 0), name="riv.first")
        assert lp.preheader is not None and lp.latch is not None
        leave = _edge(st, block, lp.preheader, phi_adjoints)
        for plan in plans:
            leave = plan.flush(st, lp, leave)
        back = _edge(st, block, lp.latch, phi_adjoints, decrement=(state, riv))
        b.position_at_end(here)
        b.condbr(first, leave, back)
    elif len(preds) == 1:
        target = _edge(st, block, preds[0], phi_adjoints)
        b.position_at_end(here)
        b.br(target)
    else:
        index = st.tape.lookup(cf.came_from[block])
        edges = [_edge(st, block, p, phi_adjoints) for p in preds]
        b.position_at_end(here)
        b.switch(index, edges[0],
                 [(ConstantInt(T.I32, k), e) for k, e in enumerate(edges) if k > 0])


def _edge(st: ReverseState, block: Block, pred: Block, phi_adjoints: dict[I.Phi, Value],
          decrement: tuple[LoopState, Value] | None = None) -> Block:
    """The reverse of edge pred -> block: phi adjoints flow to the incoming values, and
    loops entered backwards get their iteration counters."""
    cf, b = st.cf, st.b
    assert st.sweep is not None
    rev = st.sweep.rev
    entering = [lp for lp in cf.loops.loops if lp.contains(pred) and not lp.contains(block)]
    if not phi_adjoints and not entering and decrement is None:
        return rev[pred]
    edge = st.ctx.work.append_block(names.reverse_edge(block.name, pred.name))
    b.position_at_end(edge)
    for phi, d in phi_adjoints.items():
        st.add_adjoint(phi.value_for(pred), d)
    if decrement is not None:
        state, riv = decrement
        b.store(b.sub(riv, ConstantInt(T.I64, 1)), state.riv_slot, 8)
    term = b.br(way_in(cf, b, rev[pred], entering,
                       decrement[0].loop if decrement is not None else None))
    for lp in entering:
        b.position_before(term)
        st.tape.enter_loop(cf.loop_states[lp], edge, block)
        for plan in (st.windows, st.overwrites):
            plan.enter(st, lp)
    return edge


def _emit_return(st: ReverseState) -> None:
    assert st.sweep is not None
    work, acts = st.ctx.work, st.ctx.activities
    b = st.b.position_at_end(st.sweep.rev_return)
    st.frees.release(b)
    outs = [a for a, act in zip(work.args, acts, strict=True) if act is Activity.OUT]
    if st.args.out_pointers:  # a kernel: every thread adds its part, summed per warp
        for a in outs:
            if st.is_active(a):
                add_per_warp(b, st.ctx.module, st.args.out_pointers[a], st.take_adjoint(a))
        b.ret()
        return
    values = [st.take_adjoint(a) if st.is_active(a) else zero(a.type) for a in outs]
    ret_value = st.sweep.ret_value
    if st.options.return_primal and ret_value is not None:
        values.insert(0, ret_value)  # the exit block dominates the reverse sweep
    if not values:
        b.ret()
    elif len(values) == 1:
        b.ret(values[0])
    else:
        agg: Value = zero(result_type([v.type for v in values]))
        for k, v in enumerate(values):
            agg = b.insertvalue(agg, v, [k])
        b.ret(agg)
