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

Example::

    work = prepare(parse(text))
    fwd = forward_diff(work, work.get_function("f"), ["dup", "const"])
    # define { double, double } @fwddiffe_f(double %x, double %x.t, i64 %n)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from enzyme_py.ad import names
from enzyme_py.ad.calls import split_invoke_edges
from enzyme_py.ad.float_memory import rewrite_float_copies
from enzyme_py.ad.forward_ops import forward_instruction, prepare_returned_shadows
from enzyme_py.ad.forward_state import Lanes
from enzyme_py.ad.registrations import find_registrations
from enzyme_py.analysis.activity import Activity, analyze_activity, carries_float
from enzyme_py.analysis.errors import AnalysisError, DifferentiationError
from enzyme_py.analysis.globals import globals_shared_with_callees
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_body
from enzyme_py.ir.dominance import dominators
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.printer import Slots
from enzyme_py.ir.values import Argument, Constant, ConstantInt, Value, zero
from enzyme_py.ir.verifier import verify_function

FORWARD_ACTIVITIES = ("const", "dup", "dupnoneed")


@dataclass(frozen=True)
class ForwardOptions:
    name: str | None = None  # name of the generated function (default `fwddiffe_<f>`)
    # Return `{ primal, tangent }` (True) or the tangent alone, as Enzyme's `__enzyme_fwddiff`.
    return_primal: bool = True
    width: int = 1  # directions propagated in one sweep (Enzyme's `enzyme_width`)
    # f returns a pointer whose memory the caller differentiates through: a last parameter
    # `ptr %shadow.out` receives that memory's shadow, one pointer per direction.
    return_shadow: bool = False
    # Derivative of a callee: shadows of pointer arguments were made by the caller's
    # derivative alongside the memory, so freeing that memory frees them too. (Not part of
    # the cache key: a recursive function's inner calls reuse its own derivative.)
    callee: bool = False
    # names of the globals the outermost function shares with its callees (`globals.py`)
    dup_globals: tuple[str, ...] = ()


def forward_diff(module: Module, fn: Function, arg_activity: list[str],
                 options: ForwardOptions | None = None) -> Function:
    """Add the forward-mode derivative `@fwddiffe_<fn>` of `fn` to `module` and return it.

    `arg_activity` holds one of `const`, `dup`, `dupnoneed` per argument of `fn` (`dup` on a
    pointer: a shadow pointer follows; on a float: its tangent follows).

    Example::

        fwd = forward_diff(m, m.get_function("f"), ["dup", "dup"], ForwardOptions(width=2))
    """
    return ForwardTransform(module, fn, list(arg_activity), options or ForwardOptions()).run()


def forward_module(module: Module, function: str, activities: list[str], *,
                   width: int = 1, opt_level: int = 2, name: str | None = None,
                   return_primal: bool = True, inline: bool = True,
                   on_stage: Callable[[str, object], None] | None = None
                   ) -> tuple[Module, str]:
    """Canonicalize a copy of `module`, add the forward derivative of `function`, optimize;
    returns (module, name of the derivative). The forward twin of `driver.gradient_module`.

    Example::

        out, name = forward_module(parse(text), "f", ["dup", "const"])
    """
    from enzyme_py.ad.driver import prepare
    from enzyme_py.passes import OptLevel

    work = prepare(module, on_stage, targets=[function],  # type: ignore[arg-type]
                   inline=inline)
    try:
        fn = work.get_function(function)
    except KeyError as exc:
        raise DifferentiationError(str(exc.args[0])) from None
    fwd = forward_diff(work, fn, activities,
                       ForwardOptions(name=name, return_primal=return_primal, width=width))
    if on_stage is not None:
        on_stage("forward", work)
    if opt_level > 0:
        work = OptLevel(opt_level).run(work)
        if on_stage is not None:
            on_stage(f"O{opt_level}", work)
    assert fwd.name is not None
    return work, fwd.name


def tangent_type(t: T.Type, width: int) -> T.Type:
    """The type a tangent of a `t` value has at the function boundary."""
    return t if width == 1 else T.ArrayType(width, t)


class _LaneShadows:
    """The view of the transform that `shadow.forward_shadow` builds one direction's shadow
    pointers from (its own cache and shadow arguments; everything else is shared)."""

    def __init__(self, tr: ForwardTransform, lane: int) -> None:
        self.tr = tr
        self.lane = lane
        self.is_callee = tr.options.callee  # shadow globals are cleared by the outermost
        self.realloc_shadows = True  # a realloc's shadow is the realloc of the old shadow
        self.shadows: dict[Value, Value] = {}
        self.shadow_args: dict[Argument, Argument] = {
            a: s[lane] for a, s in tr.shadow_args.items()}
        self.activity = tr.activity
        self.primal = tr.primal
        self.heap_shadows: list[tuple[I.Call, Value]] = []  # what shadow.py records
        self.module = tr.module
        self.work = tr.work

    @property
    def alloca_block(self) -> Block:
        return self.tr.alloca_block

    def error(self, inst: I.Instruction, message: str) -> DifferentiationError:
        return self.tr.error(inst, message)

    def runtime_decl(self, name: str, ftype: T.FunctionType) -> Function:
        return self.tr.module.declare_function(name, ftype)


class ForwardTransform:
    def __init__(self, module: Module, fn: Function, arg_activity: list[str],
                 options: ForwardOptions) -> None:
        if fn.is_declaration:
            raise DifferentiationError(f"@{fn.name} has no body to differentiate")
        if options.width < 1:
            raise DifferentiationError(f"width must be at least 1, not {options.width}")
        if len(arg_activity) != len(fn.args):
            raise DifferentiationError(f"@{fn.name} takes {len(fn.args)} arguments, but "
                                       f"{len(arg_activity)} activities were given")
        self.module = module
        self.primal = fn
        self.arg_activity = arg_activity
        self.options = options
        self.width = options.width
        self.b = Builder()

    # --- setup ------------------------------------------------------------------------------

    def run(self) -> Function:
        fn = self.primal
        self.return_active = carries_float(fn.return_type)
        key = ("forward", fn.name, tuple(self.arg_activity), self.width,
               self.options.return_primal, self.options.return_shadow,
               self.options.dup_globals)
        existing = self.module.derived.get(key)
        if existing is not None:
            return existing[0]
        work = Function(fn.name or "", fn.function_type, [a.name for a in fn.args])
        # Registered before it is built: a recursive call inside f calls this very derivative.
        self.final_type = self._derivative_type()
        self.module.derived[key] = (work, self.final_type)
        try:
            return self._build(work)
        except BaseException:
            del self.module.derived[key]
            raise

    def _build(self, work: Function) -> Function:
        fn = self.primal
        work.parent = self.module
        self.work = work
        for src_arg, arg in zip(fn.args, work.args, strict=True):
            arg.attrs = list(src_arg.attrs)
        clone_body(fn, work, dict(zip(fn.args, work.args, strict=True)))
        work.personality = fn.personality  # landing pads need it
        _name_blocks(fn, work)
        rewrite_float_copies(work)
        split_invoke_edges(work)  # where the results of an invoked derivative are read
        self._check_input()
        try:
            self.registrations = find_registrations(self.module)
            if self.options.callee:
                self.shared_globals = frozenset(self.module.symbols[n]
                                                for n in self.options.dup_globals)
            else:
                self.shared_globals = globals_shared_with_callees(
                    work, self.registrations.keep_calls)
            self.activity: Activity = analyze_activity(
                work, self._analysis_activities(), self.return_active,
                self.registrations.inactive, return_shadow=self.returns_shadow,
                dup_globals=self.shared_globals)
        except AnalysisError as exc:
            raise DifferentiationError(str(exc)) from None
        self._make_arguments()
        self._alloca_block: Block | None = None
        self.lanes = [_LaneShadows(self, j) for j in range(self.width)]
        self.tangents: dict[Value, Lanes] = dict(self.arg_tangents)
        self.pending_calls: list[tuple[I.Call, Function, T.FunctionType, list[Value]]] = []
        self.returned_shadow_slots: dict[I.Call, Value] = {}

        prepare_returned_shadows(self)
        self._sweep()
        for call, callee, ftype, args in self.pending_calls:  # see forward_ops._defined_call
            call.operands = [*args, callee]
            call.function_type = ftype
            call.arg_attrs = [[] for _ in args]
            call.ret_attrs, call.fn_attrs, call.tail, call.cconv = [], [], "", ""
        self._finish_signature()
        # Named last: the derivatives of recursive callees, finished earlier, took theirs.
        work.name = self.module.unique_name(self.options.name or
                                            names.forward_function(self.primal.name or ""))
        self.module.add_function(work)
        problems = verify_function(work, raise_error=False)
        if problems:
            raise DifferentiationError(
                f"internal error: the forward derivative of @{fn.name} is malformed (a bug in "
                "enzyme_py):\n" + "\n".join(problems[:5]))
        return work

    def _check_input(self) -> None:
        """`invoke`, `landingpad` and `resume` may stay: the exceptional paths carry no
        tangent code, and an invoke that needs some is refused by `forward_ops`."""
        for inst in self.work.instructions():
            if isinstance(inst, I.IndirectBr):
                raise self.error(inst, f"'{inst.opcode}' is not supported in forward mode yet")

    def _analysis_activities(self) -> list[str]:
        """Our activities in the analysis' terms: a float `dup` is an active input (`out`)."""
        out = []
        for arg, act in zip(self.work.args, self.arg_activity, strict=True):
            where = f"argument {arg.index} of @{self.primal.name} ({arg.type})"
            if act not in FORWARD_ACTIVITIES:
                hint = (" ('out' is a reverse-mode activity: in forward mode a float argument "
                        "is 'dup', its tangent following it)") if act == "out" else ""
                raise DifferentiationError(
                    f"{where}: unknown forward-mode activity {act!r}; use one of "
                    f"{', '.join(FORWARD_ACTIVITIES)}{hint}")
            if act == "const" or arg.type.is_pointer:
                out.append(act)
            elif carries_float(arg.type):
                out.append("out")
            else:
                raise DifferentiationError(f"{where} carries no derivative: it cannot be "
                                           f"'{act}' (use 'const')")
        return out

    @property
    def alloca_block(self) -> Block:
        """A first block for code that must run before anything else (the zeroing of global
        shadows); made on first use, with the entry's static allocas moved into it."""
        if self._alloca_block is None:
            entry = self.work.blocks[0]
            block = Block("alloca", self.work)
            self.work.blocks.insert(0, block)
            for inst in list(entry.instructions):
                if isinstance(inst, I.Alloca) and not inst.operands:
                    entry.remove(inst)
                    block.append(inst)
            block.append(I.Br([entry]))
            self._alloca_block = block
        return self._alloca_block

    def error(self, inst: I.Instruction, message: str) -> DifferentiationError:
        slots = Slots(self.work)
        block = slots.local(inst.parent) if inst.parent else "?"
        text = str(inst).split("\n")[0].strip()
        return DifferentiationError(
            f"in @{self.primal.name}, block {block}, instruction `{text}`: {message}")

    def _make_arguments(self) -> None:
        self.shadow_args: dict[Argument, tuple[Argument, ...]] = {}
        self.arg_tangents: dict[Value, Lanes] = {}
        self.final_args: list[Argument] = []
        k = self.width
        for arg, act in zip(self.work.args, self.arg_activity, strict=True):
            self.final_args.append(arg)
            if act == "const":
                continue
            base = names.shadow(arg) if arg.type.is_pointer else names.tangent(arg)
            extra = tuple(Argument(arg.type, base if k == 1 else f"{base}{j}")
                          for j in range(k))
            self.final_args.extend(extra)
            if arg.type.is_pointer:
                self.shadow_args[arg] = extra
            else:
                self.arg_tangents[arg] = extra
        if self.returns_shadow:
            self.shadow_out = Argument(T.PTR, "shadow.out")
            self.final_args.append(self.shadow_out)

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
        params: list[T.Type] = []
        for arg, act in zip(self.primal.args, self.arg_activity, strict=True):
            params.append(arg.type)
            if act != "const":
                params.extend([arg.type] * self.width)
        if self.returns_shadow:
            params.append(T.PTR)
        return T.FunctionType(self._result_type(), tuple(params))

    def callee_derivative(self, g: Function, acts: list[str],
                          return_shadow: bool = False) -> tuple[Function, T.FunctionType]:
        """The forward derivative of a callee (`{primal, tangent}`) and its type; this
        function's own, still being built, when the call is recursive."""
        shared = tuple(sorted(v.name or "" for v in self.shared_globals))
        key = ("forward", g.name, tuple(acts), self.width, True, return_shadow, shared)
        got = self.module.derived.get(key)
        if got is None:
            ForwardTransform(self.module, g, acts,
                             ForwardOptions(return_primal=True, width=self.width,
                                            return_shadow=return_shadow, callee=True,
                                            dup_globals=shared)).run()
            got = self.module.derived[key]
        return got

    def _finish_signature(self) -> None:
        ftype = self.final_type
        assert ftype.params == tuple(a.type for a in self.final_args)
        for a in self.final_args:
            # f's own argument attributes stay true of the derivative (`noalias` keeps loops
            # vectorizable); `returned` does not, and shadows get none.
            a.attrs = [w for w in a.attrs if w != "returned"] if a in self.work.args else []
        self.work.set_type(ftype, self.final_args)
        self.work.prefix = []
        self.work.suffix = []

    # --- tangents ---------------------------------------------------------------------------

    def is_active(self, v: Value) -> bool:
        return self.activity.is_active(v)

    def tangent(self, v: Value) -> Lanes | None:
        """The tangent lanes of `v`, or None when `v` carries no derivative."""
        got = self.tangents.get(v)
        if got is not None:
            return got
        if isinstance(v, Constant) or v not in self.activity.active:
            return None
        raise DifferentiationError(f"internal error in @{self.primal.name}: the tangent of "
                                   f"{v.ref()} is used before it is built (a bug in enzyme_py)")

    def tangent_or_zero(self, v: Value) -> Lanes:
        got = self.tangent(v)
        return got if got is not None else (zero(v.type),) * self.width

    def set_tangent(self, v: Value, lanes: Lanes) -> None:
        for j, t in enumerate(lanes):
            if isinstance(t, I.Instruction) and not t.name:
                t.name = names.tangent(v) if self.width == 1 else f"{names.tangent(v)}{j}"
        self.tangents[v] = lanes

    def shadows(self, p: Value) -> Lanes:
        """The shadow pointers of `p`, one per direction (built next to `p` on first use).
        Call this before positioning the builder: it may insert before the insertion point."""
        from enzyme_py.ad.shadow import forward_shadow

        out: dict[int, Value] = {}
        # Each lane's shadow instruction goes right after `p`: building the last lane first
        # keeps the lanes in order in the block (globals are made in lane order).
        order = range(self.width)
        for j in reversed(order) if isinstance(p, I.Instruction) else order:
            lane = self.lanes[j]
            out[j] = forward_shadow(lane, p)  # type: ignore[arg-type]
            if self.width > 1:
                for v, s in lane.shadows.items():
                    if isinstance(s, I.Instruction) and s.name == names.shadow(v):
                        s.name = f"{names.shadow(v)}{j}"
        return tuple(out[j] for j in order)

    # --- the sweep --------------------------------------------------------------------------

    def _sweep(self) -> None:

        rpo = dominators(self.work).rpo
        reachable = set(rpo)
        phis = [(p, self._tangent_phis(p)) for block in rpo for p in block.phis()
                if p in self.activity.active]
        rets = []
        for block in rpo:
            for inst in list(block.instructions):
                if isinstance(inst, I.Phi):
                    continue
                if isinstance(inst, I.Ret):
                    rets.append(inst)
                    continue
                forward_instruction(self, inst)
        for phi, lanes in phis:
            for v, blk in zip(phi.operands, phi.incoming_blocks, strict=True):
                ts = self.tangent_or_zero(v) if blk in reachable else \
                    (zero(phi.type),) * self.width
                for lane, t in zip(lanes, ts, strict=True):
                    lane.add_incoming(t, blk)
        for ret in rets:
            self._return(ret)

    def _tangent_phis(self, phi: I.Phi) -> Lanes:
        """All tangent phis exist before any tangent is built, so loops can refer to them."""
        assert phi.parent is not None
        block = phi.parent
        lanes = []
        for _ in range(self.width):
            t = I.Phi(phi.type)
            block.insert(block.first_non_phi_index(), t)
            lanes.append(t)
        self.set_tangent(phi, tuple(lanes))
        return tuple(lanes)

    def _return(self, ret: I.Ret) -> None:
        value = ret.value
        if self.returns_shadow:
            assert value is not None
            if not self.activity.has_shadow(value):
                raise self.error(ret, "returns a pointer the caller differentiates through, "
                                      "but the memory it points to has no shadow here")
            lanes = self.shadows(value)  # before positioning: it may insert code
            b = self.b.position_before(ret)
            for j, s in enumerate(lanes):
                at = self.shadow_out if j == 0 else b.getelementptr(
                    T.PTR, self.shadow_out, [ConstantInt(T.I64, j)])
                b.store(s, at, 8)
        b = self.b.position_before(ret)
        if self.return_active:
            assert value is not None
            lanes = self.tangent_or_zero(value)
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


def _name_blocks(src: Function, dst: Function) -> None:
    """Anonymous blocks get `bbN` names from the original's numbering."""
    slots = Slots(src)
    for s, d in zip(src.blocks, dst.blocks, strict=True):
        if not s.name:
            d.name = "bb" + slots.block_label(s)
