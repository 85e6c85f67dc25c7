"""Forward mode: from a canonicalized function `f`, build `@fwddiffe_f` (Enzyme's convention).

Arguments of `@fwddiffe_f`: each argument of `f`, followed, when it is `dup`/`dupnoneed`, by
`width` shadows: for a pointer, pointers to memory holding the *tangents* of the pointed-to
data (read for inputs, written where `f` writes); for a float scalar (or float vector or
aggregate), its tangents. The result: `{ primal, tangent }` when `f` returns a float and
`return_primal` is set, the tangent alone otherwise; `void` when `f` returns no float.
With `width = k > 1` the tangent of the result is a `[k x T]` array (Enzyme's `fwddiffe<k>f`
returns the same), one element per direction.

Structure: a copy of `f` where every instruction that carries a derivative is followed by the
code of its tangent (one single sweep, no tape). Tangents are kept per direction: internally a
tangent is a tuple of `width` SSA values (lane j is direction j), so each rule of the table is
applied lane by lane and no rule is written twice; arrays appear only at the function boundary.
Arrays rather than `<k x T>` vectors because a tangent of a `<4 x double>` value (vectorized
loops) would have to be a vector of vectors, which LLVM does not have; SROA turns the lanes
into registers either way.

Invariants: `f` is never modified; rules see primal values only (`operand(i)` is the primal
operand itself, `result()` the primal instruction); a tangent is built right after its primal
value, so it dominates every use the primal value has; an absent derivative (an inactive
operand, a `None` partial) builds nothing, and a value with no contribution at all gets a zero
constant; anything unsupported raises `DifferentiationError` naming function, block and
instruction.

This module drives the derivation; what it holds while it runs is a `ForwardState`
(`forward_state.py`), which the per-instruction rules (`forward_ops`) read and write.

Example::

    work = prepare(parse(text))
    fwd = forward_diff(work, work.get_function("f"), ["dup", "const"])
    # define { double, double } @fwddiffe_f(double %x, double %x.t, i64 %n)
"""

from __future__ import annotations

from enzyme_py.ad import names
from enzyme_py.ad.context import (
    DerivationContext,
    check_arity,
    check_body,
    open_derivation,
    split_invoke_edges,
)
from enzyme_py.ad.derived import Derived, DerivedFunctions, ForwardKey
from enzyme_py.ad.forward_ops import forward_instruction, prepare_returned_shadows
from enzyme_py.ad.forward_state import ForwardOptions, ForwardState, Lanes, tangent_type
from enzyme_py.ad.shadow import returned_pointer
from enzyme_py.ad.signature import derivative_parameters, install_signature, parameter_types
from enzyme_py.analysis.activities import FORWARD, Activity
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.dominance import dominators
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import Argument, ConstantInt, Value, zero
from enzyme_py.ir.verifier import verify_function

__all__ = ["FORWARD_ACTIVITIES", "ForwardOptions", "ForwardTransform", "forward_diff",
           "tangent_type"]

FORWARD_ACTIVITIES = FORWARD


def _forward_activities(fn: Function, words: list[str]) -> list[Activity]:
    """`words` as forward-mode activities (an error naming the argument for another word)."""
    out = []
    for arg, w in zip(fn.args, words, strict=True):
        if w not in FORWARD:
            hint = (" ('out' is a reverse-mode activity: in forward mode a float argument "
                    "is 'dup', its tangent following it)") if w == Activity.OUT else ""
            raise DifferentiationError(
                f"argument {arg.index} of @{fn.name} ({arg.type}): unknown forward-mode "
                f"activity {w!r}; use one of {', '.join(FORWARD)}{hint}")
        out.append(Activity(w))
    return out


def forward_diff(module: Module, fn: Function, arg_activity: list[str],
                 options: ForwardOptions | None = None) -> Function:
    """Add the forward-mode derivative `@fwddiffe_<fn>` of `fn` to `module` and return it.

    `arg_activity` holds one of `const`, `dup`, `dupnoneed` per argument of `fn` (`dup` on a
    pointer: a shadow pointer follows; on a float: its tangent follows).

    Example::

        fwd = forward_diff(m, m.get_function("f"), ["dup", "dup"], ForwardOptions(width=2))
    """
    return ForwardTransform(module, fn, list(arg_activity), options or ForwardOptions()).run()


class _Callees:
    """The forward derivatives of callees (`forward_state.ForwardCallees`): from the cache,
    built when missing (a recursive callee finds its own, registered before it is built)."""

    def __init__(self, module: Module, width: int, shared_globals: tuple[str, ...]) -> None:
        self.module = module
        self.width = width
        self.shared_globals = shared_globals
        self.derived = DerivedFunctions(module)

    def derivative(self, g: Function, acts: list[str], return_shadow: bool = False) -> Derived:
        shared = self.shared_globals
        key = ForwardKey(g.name, tuple(acts), self.width, True, return_shadow, shared)
        got = self.derived.get(key)
        if got is None:
            ForwardTransform(self.module, g, acts,
                             ForwardOptions(return_primal=True, width=self.width,
                                            return_shadow=return_shadow, callee=True,
                                            dup_globals=shared)).run()
            got = self.derived.get(key)
        assert got is not None
        return got


class ForwardTransform:
    def __init__(self, module: Module, fn: Function, arg_activity: list[str],
                 options: ForwardOptions) -> None:
        check_body(fn)
        if options.width < 1:
            raise DifferentiationError(f"width must be at least 1, not {options.width}")
        check_arity(fn, arg_activity)
        self.module = module
        self.primal = fn
        self.arg_activity = _forward_activities(fn, arg_activity)
        self.options = options
        self.width = options.width
        self.return_active = carries_float(fn.return_type)

    # --- setup ------------------------------------------------------------------------------

    def run(self) -> Function:
        fn, options = self.primal, self.options
        derived = DerivedFunctions(self.module)
        key = ForwardKey(fn.name, tuple(self.arg_activity), self.width, options.return_primal,
                         options.return_shadow, options.dup_globals)
        existing = derived.get(key)
        if existing is not None:
            return existing.function
        final_type = self._derivative_type()
        ctx = open_derivation(self.module, fn, self.arg_activity)
        # Registered before it is built: a recursive call inside f calls this very derivative.
        derived.add(key, Derived(ctx.work, final_type))
        try:
            return self._build(ctx, final_type)
        except BaseException:
            derived.discard(key)
            raise

    def _build(self, ctx: DerivationContext, final_type: T.FunctionType) -> Function:
        work = ctx.work
        split_invoke_edges(work)  # where the results of an invoked derivative are read
        self._check_input(ctx)
        ctx.analyze(self._analysis_activities(ctx), self.return_active,
                    return_shadow=self.returns_shadow,
                    shared_globals=self.options.dup_globals if self.options.callee else None)
        params, shadow_args, arg_tangents = self._make_arguments(ctx)
        st = ForwardState(ctx, self.options,
                          _Callees(self.module, self.width, ctx.shared_global_names()),
                          shadow_args, arg_tangents)
        prepare_returned_shadows(st)
        self._sweep(st)
        for call, callee, ftype, args in st.pending_calls:  # see forward_ops._defined_call
            call.operands = [*args, callee]
            call.function_type = ftype
            call.arg_attrs = [[] for _ in args]
            call.ret_attrs, call.fn_attrs, call.tail, call.cconv = [], [], "", ""
        primal_args = set(work.args)
        # f's own argument attributes stay true of the derivative (`noalias` keeps loops
        # vectorizable); `returned` does not, and shadows get none.
        install_signature(work, final_type, params,
                          lambda a: [w for w in a.attrs if w != "returned"]
                          if a in primal_args else [])
        work.prefix = ctx.device.prefix()  # (a kernel's derivative is a kernel)
        # Named last: the derivatives of recursive callees, finished earlier, took theirs.
        work.name = self.module.unique_name(self.options.name or
                                            names.forward_function(self.primal.name or ""))
        self.module.add_function(work)
        problems = verify_function(work, raise_error=False)
        if problems:
            raise DifferentiationError(
                f"internal error: the forward derivative of @{self.primal.name} is malformed "
                "(a bug in enzyme_py):\n" + "\n".join(problems[:5]))
        return work

    def _check_input(self, ctx: DerivationContext) -> None:
        """`invoke`, `landingpad` and `resume` may stay: the exceptional paths carry no
        tangent code, and an invoke that needs some is refused by `forward_ops`."""
        for inst in ctx.work.instructions():
            if isinstance(inst, I.IndirectBr):
                raise ctx.error(inst, f"'{inst.opcode}' is not supported in forward mode yet")

    def _analysis_activities(self, ctx: DerivationContext) -> list[Activity]:
        """Our activities in the analysis' terms: a float `dup` is an active input (`out`)."""
        out = []
        for arg, act in zip(ctx.work.args, self.arg_activity, strict=True):
            if act is Activity.CONST or arg.type.is_pointer:
                out.append(act)
            elif carries_float(arg.type):
                out.append(Activity.OUT)
            else:
                raise DifferentiationError(
                    f"argument {arg.index} of @{self.primal.name} ({arg.type}) carries no "
                    f"derivative: it cannot be '{act}' (use 'const')")
        return out

    def _follows(self, arg: Argument, act: Activity) -> list[Argument]:
        """What follows an argument in the signature: `width` shadows (a pointer) or tangents
        (a float), unless it is const."""
        if act is Activity.CONST:
            return []
        k = self.width
        base = names.shadow(arg) if arg.type.is_pointer else names.tangent(arg)
        return [Argument(arg.type, base if k == 1 else f"{base}{j}") for j in range(k)]

    def _make_arguments(self, ctx: DerivationContext) -> tuple[
            list[Argument], dict[Argument, tuple[Argument, ...]], dict[Value, Lanes]]:
        params, extra = derivative_parameters(ctx.work.args, self.arg_activity, self._follows)
        shadow_args = {a: tuple(more) for a, more in extra.items() if a.type.is_pointer}
        arg_tangents: dict[Value, Lanes] = {a: tuple(more) for a, more in extra.items()
                                            if not a.type.is_pointer}
        if self.returns_shadow:
            self.shadow_out = Argument(T.PTR, "shadow.out")
            params.append(self.shadow_out)
        return params, shadow_args, arg_tangents

    @property
    def returns_shadow(self) -> bool:
        return self.options.return_shadow and self.primal.return_type.is_pointer

    def _result_type(self) -> T.Type:
        ret = self.primal.return_type
        if self.return_active:
            t = tangent_type(ret, self.width)
            return T.StructType((ret, t)) if self.options.return_primal else t
        return ret if self.options.return_primal else T.VOID

    def _derivative_type(self) -> T.FunctionType:
        """The derivative's type, known from the activities before anything is built."""
        params = parameter_types(self.primal.args, self.arg_activity, self._follows)
        if self.returns_shadow:
            params.append(T.PTR)
        return T.FunctionType(self._result_type(), tuple(params))

    # --- the sweep --------------------------------------------------------------------------

    def _sweep(self, st: ForwardState) -> None:
        rpo = dominators(st.ctx.work).rpo
        reachable = set(rpo)
        phis = [(p, self._tangent_phis(st, p)) for block in rpo for p in block.phis()
                if p in st.ctx.activity.active]
        rets = []
        for block in rpo:
            for inst in list(block.instructions):
                if isinstance(inst, I.Phi):
                    continue
                if isinstance(inst, I.Ret):
                    rets.append(inst)
                    continue
                forward_instruction(st, inst)
        for phi, lanes in phis:
            for v, blk in zip(phi.operands, phi.incoming_blocks, strict=True):
                ts = st.tangent_or_zero(v) if blk in reachable else \
                    (zero(phi.type),) * self.width
                for lane, t in zip(lanes, ts, strict=True):
                    lane.add_incoming(t, blk)
        for ret in rets:
            self._return(st, ret)

    def _tangent_phis(self, st: ForwardState, phi: I.Phi) -> Lanes:
        """All tangent phis exist before any tangent is built, so loops can refer to them."""
        assert phi.parent is not None
        block = phi.parent
        lanes = []
        for _ in range(self.width):
            t = I.Phi(phi.type)
            block.insert(block.first_non_phi_index(), t)
            lanes.append(t)
        st.set_tangent(phi, tuple(lanes))
        return tuple(lanes)

    def _return(self, st: ForwardState, ret: I.Ret) -> None:
        value = ret.value
        if self.returns_shadow:
            lanes = st.shadows(returned_pointer(st.ctx, ret))  # (may insert code)
            b = st.b.position_before(ret)
            for j, s in enumerate(lanes):
                at = self.shadow_out if j == 0 else b.getelementptr(
                    T.PTR, self.shadow_out, [ConstantInt(T.I64, j)])
                b.store(s, at, 8)
        b = st.b.position_before(ret)
        if self.return_active:
            assert value is not None
            lanes = st.tangent_or_zero(value)
            t: Value = lanes[0]
            if self.width > 1:
                t = zero(tangent_type(value.type, self.width))
                for j, lane in enumerate(lanes):
                    t = b.insertvalue(t, lane, [j])
            if self.options.return_primal:
                pair: Value = zero(self._result_type())
                pair = b.insertvalue(pair, value, [0])
                t = b.insertvalue(pair, t, [1])
            ret.operands = [t]
        elif not self.options.return_primal:
            ret.operands = []
