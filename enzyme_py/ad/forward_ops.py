"""The tangent of each instruction: built right after it, from its operands' tangents.

Invariants: rules come from the shared table (`rules.registry`) and are applied once per
direction (lane) with the primal values themselves as operands; a tangent is the sum of the
contributions `partial(tangent_operand)` (`Linear.forward` for non-elementwise maps), and an
inactive operand or a `None` partial contributes nothing; a `JointLinear` rule (`select`, the
vector and aggregate opcodes) builds the tangent from all operand tangents at once; a `phi`
gets a tangent phi (`forward.py`); memory instructions on shadowed memory do the same on the
shadows, so the shadow always holds the tangent of the data; shadows are fetched before the
builder is positioned (building a shadow may insert code earlier in the same block).
"""

from __future__ import annotations

from enzyme_py.ad import names
from enzyme_py.ad.call_kind import (
    FORWARD_CALLS,
    CallKind,
    classify_call,
    defined_call_carries_derivative,
    is_inactive_call,
    no_derivative_error,
    passes_shadowed_memory,
    returns_shadowed,
)
from enzyme_py.ad.forward_state import ForwardState, Lanes
from enzyme_py.ad.instruction_dispatch import InstructionHandlers, dispatch
from enzyme_py.ad.masked_memory import forward_masked
from enzyme_py.ad.matrix_calls import forward_matrix_call
from enzyme_py.ad.rule_lookup import check_partials, diff_operands, find_rule
from enzyme_py.ad.shadow import check_integer_copy, integer_constant, stores_shadowed_pointer
from enzyme_py.analysis import memory
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.memory import DEALLOCATION_FUNCTIONS, underlying
from enzyme_py.analysis.memory_effects import memory_intrinsic, writes_through_argument
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.module import Function
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import Argument, ConstantInt, Value, zero
from enzyme_py.rules.mathcalls import MathContextMixin
from enzyme_py.rules.registry import JointLinear, Linear


class ForwardContext(MathContextMixin):
    """`RuleContext` for forward mode: primal values are the instruction's own operands.

    Math calls are shared between the directions (a partial is applied once per lane, and
    `cos(x)` should be computed once, not k times).
    """

    def __init__(self, st: ForwardState, inst: I.Instruction) -> None:
        self.st = st
        self.inst = inst
        self.builder: Builder = st.b
        self._ops = diff_operands(inst)
        self._math: dict[tuple[object, ...], Value] = {}

    def operand(self, index: int) -> Value:
        return self._ops[index]

    def result(self) -> Value:
        return self.inst

    def math(self, name: str, *args: Value) -> Value:
        key = (name, *args)  # instructions hash by identity, constants by value
        got = self._math.get(key)
        if got is None:
            got = super().math(name, *args)
            self._math[key] = got
        return got


def forward_instruction(st: ForwardState, inst: I.Instruction) -> None:
    dispatch(_HANDLERS, st, inst)


def _invoke(st: ForwardState, inst: I.Invoke) -> None:
    """An `invoke` (a call that may throw) needs no tangent code when it neither returns an
    active value nor sees active memory; tangent code after one is not supported yet."""
    ctx = st.ctx
    name = inst.callee_name or ""
    if is_inactive_call(ctx, name):
        return
    if st.is_active(inst) or passes_shadowed_memory(ctx, inst):
        callee = inst.callee
        if isinstance(callee, Function) and not callee.is_declaration and \
                name not in ctx.registrations.forward and not inst.type.is_pointer:
            _defined_call(st, inst, callee)  # invokes the callee's derivative instead
            return
        raise ctx.error(inst, "an 'invoke' (a call that may throw) of a function without a "
                              "body, or returning a pointer, that carries derivatives is not "
                              "supported in forward mode yet")


def _call(st: ForwardState, call: I.Call) -> bool:
    """The tangent code of a call, by its kind; False when the call goes by its rule (the
    table) like any instruction. Raises for calls we cannot handle."""
    if isinstance(call, I.Invoke):
        _invoke(st, call)
        return True
    ctx = st.ctx
    kind = classify_call(ctx, call, FORWARD_CALLS)
    name = call.callee_name or ""
    if kind is CallKind.RULE:
        return False
    if kind is CallKind.ALLOCATION:
        pass  # the shadow is made when the memory is first used (shadow.py)
    elif kind is CallKind.DEALLOCATION:
        _free(st, call)
    elif kind is CallKind.MEMORY:
        _memory_call(st, call, name)
    elif kind is CallKind.MASKED_MEMORY:
        forward_masked(st, call)
    elif kind is CallKind.MATRIX:
        forward_matrix_call(st, call)
    elif kind in (CallKind.INACTIVE, CallKind.BARRIER):
        pass  # (a barrier stays where it is: tangents are computed beside the primal)
    elif kind is CallKind.CUSTOM:
        if st.is_active(call) or passes_shadowed_memory(ctx, call):
            _custom_call(st, call, ctx.registrations.forward[name])
    elif kind is CallKind.OTHER_MODE:
        raise ctx.error(call, f"@{name} has a custom_vjp rule, which forward mode cannot use "
                              "(as in JAX); give it a custom_jvp rule for forward mode")
    elif kind is CallKind.DEFINED:
        callee = call.callee
        assert isinstance(callee, Function)
        if call.type.is_pointer and not returns_shadowed(ctx, call):
            _check_returned_pointer(st, call, callee)
        if defined_call_carries_derivative(ctx, call, callee):
            _defined_call(st, call, callee)
    elif st.is_active(call) or passes_shadowed_memory(ctx, call) or \
            returns_shadowed(ctx, call):
        raise no_derivative_error(ctx, call)
    return True


# --- rules -------------------------------------------------------------------------------------


def _by_rule(st: ForwardState, inst: I.Instruction) -> None:
    rule = find_rule(st.ctx, inst)
    ops = diff_operands(inst)
    tangents = [st.tangent(op) for op in ops]
    st.b.position_after_def(inst)
    ctx = ForwardContext(st, inst)
    partials = rule.partials(ctx)
    check_partials(st.ctx, inst, rule, partials)
    if isinstance(partials, JointLinear):
        _joint(st, inst, partials, tangents)
        return
    used = [(p, t) for p, t in zip(partials, tangents, strict=True)
            if p is not None and t is not None]
    if not used:
        st.set_tangent(inst, (zero(inst.type),) * st.width)
        return
    lanes = []
    for j in range(st.width):
        total: Value | None = None
        for partial, t in used:
            c = partial.forward(t[j]) if isinstance(partial, Linear) else partial(t[j])
            total = c if total is None else st.b.fadd(total, c)
        assert total is not None
        lanes.append(total)
    st.set_tangent(inst, tuple(lanes))


def _joint(st: ForwardState, inst: I.Instruction, rule: JointLinear,
           tangents: list[Lanes | None]) -> None:
    """One instruction per lane from all operand tangents (a structural opcode)."""
    if all(t is None for t in tangents):
        st.set_tangent(inst, (zero(inst.type),) * st.width)
        return
    lanes = [rule.forward([t[j] if t is not None else None for t in tangents])
             for j in range(st.width)]
    st.set_tangent(inst, tuple(lanes))


# --- memory ------------------------------------------------------------------------------------


def _load(st: ForwardState, inst: I.Load) -> None:
    shadows = st.shadows(inst.pointer)
    b = st.b.position_after_def(inst)
    lanes = []
    for sp in shadows:
        t = b.load(inst.type, sp, inst.align)
        t.flags = inst.flags
        lanes.append(t)
    st.set_tangent(inst, tuple(lanes))


def _store(st: ForwardState, inst: I.Store) -> None:
    value, ptr = inst.operands
    if value.type.is_pointer and st.ctx.activity.touches_shadow(ptr):
        if stores_shadowed_pointer(st.ctx, inst):
            _store_pointer(st, inst)
        return
    touches = st.ctx.activity.touches_shadow(ptr)
    if not touches or not (carries_float(value.type) or integer_constant(value)):
        check_integer_copy(st.ctx, inst)
        return
    shadows = st.shadows(ptr)
    # (an integer constant is a memset LLVM made a store: its bytes have zero tangents)
    tangents = st.tangent_or_zero(value) if carries_float(value.type) else \
        [zero(value.type)] * len(shadows)
    b = st.b.position_after_def(inst)
    for sp, t in zip(shadows, tangents, strict=True):
        s = b.store(t, sp, inst.align)
        s.flags = inst.flags


def _store_pointer(st: ForwardState, inst: I.Store) -> None:
    """A pointer stored into shadowed memory (`shadow.stores_shadowed_pointer`): each
    direction's shadow of it goes to the same place in that direction's shadow."""
    value, ptr = inst.operands
    values, slots = st.shadows(value), st.shadows(ptr)
    b = st.b.position_after_def(inst)
    for v, sp in zip(values, slots, strict=True):
        b.store(v, sp, inst.align)


def _memory_call(st: ForwardState, call: I.Call, name: str) -> None:
    """memcpy/memmove/memset into shadowed memory: the same on the shadows (a copy from
    memory without a shadow, or a memset, leaves zero tangents)."""
    dst, src = call.args[0], call.args[1]
    if not st.ctx.activity.touches_shadow(dst):
        return
    copies = memory_intrinsic(name) != "memset" and st.ctx.activity.touches_shadow(src)
    dshadows = st.shadows(dst)
    sshadows = st.shadows(src) if copies else (None,) * st.width
    b = st.b.position_after_def(call)
    for ds, ss in zip(dshadows, sshadows, strict=True):
        if ss is not None:
            new = clone_instruction(call, {}, {})
            new.name = None
            new.operands[0], new.operands[1] = ds, ss
            b.insert(new)
            continue
        st.ctx.libc.call_memset_zero(b, ds, call.args[2])


def _free(st: ForwardState, call: I.Call) -> None:
    """Freeing shadowed heap memory frees its shadow too: memory allocated here or returned
    by a callee's derivative (its shadow is the `calloc` made for it), or reached through a
    pointer loaded from shadowed memory (its shadow is the pointer at the same place in the
    shadow, which the pointer stores mirrored there: null when the primal pointer led to
    memory without a shadow), or, in a callee's derivative, passed in by the caller (whose
    shadow the caller's derivative made alongside the memory)."""
    p = call.args[0]
    objs = underlying(p)
    if not objs or not objs <= st.ctx.activity.shadowed or not all(
            isinstance(o, I.Load) or memory.is_heap_object(o) or
            (isinstance(o, Argument) and st.options.callee) for o in objs):
        return
    shadows = st.shadows(p)
    b = st.b.position_after_def(call)
    for sp in shadows:
        new = clone_instruction(call, {}, {})
        new.name = None
        new.operands[0] = sp
        b.insert(new)


# --- calls to functions of the module ----------------------------------------------------------


def _custom_call(st: ForwardState, call: I.Call, rule) -> None:
    """A registered forward rule (`__enzyme_register_derivative_NAME`): call it with each
    float argument's tangent and each `dup` pointer's shadow after the argument, and take
    `{primal, tangent}` from its result. A Python rule takes them after every float and pointer
    argument (0.0 and null when there are none)."""
    g = rule.derivative
    if st.width != 1:
        raise st.ctx.error(call, f"@{call.callee_name} has a custom forward rule, which takes "
                                 "one tangent; vector mode (width > 1) cannot call it")
    args: list[Value] = []
    for a in call.args:
        args.append(a)
        if a.type.is_pointer:
            if st.ctx.activity.touches_shadow(a):
                args.append(st.shadows(a)[0])
            elif rule.every_shadow:
                args.append(zero(T.PTR))
        elif carries_float(a.type):
            t = st.tangent(a)
            args.append(t[0] if t is not None else zero(a.type))
    if len(args) != len(g.function_type.params):
        raise st.ctx.error(call, f"@{g.name} takes {len(g.function_type.params)} arguments, "
                                 f"but the call needs {len(args)} (each float and dup pointer "
                                 "is followed by its tangent)")
    b = st.b.position_before(call)
    new = b.call(g, args)
    fn = call.function
    assert fn is not None and call.parent is not None
    if carries_float(call.type):
        primal = b.extractvalue(new, [0], name=call.name)
        t = b.extractvalue(new, [1])
        fn.replace_all_uses(call, primal)
        st.set_tangent(primal, (t,))
        st.tangents[call] = (t,)
        call.parent.remove(call)
    elif call.type.is_void:  # the rule computes what f writes as well as its tangents
        call.parent.remove(call)


def _defined_call(st: ForwardState, call: I.Call, g: Function) -> None:
    """A call LLVM could not inline (recursion): call `g`'s own forward derivative, with the
    shadows of pointer arguments into active memory and the tangents of active floats."""
    shadow_returned = returns_shadowed(st.ctx, call)
    slot = st.returned_shadow_slots.get(call)
    acts: list[Activity] = []
    more: list[tuple[Value, ...]] = []
    for i, a in enumerate(call.args):
        t = st.tangent(a) if carries_float(a.type) else None
        if a.type.is_pointer and st.ctx.activity.touches_shadow(a):
            acts.append(Activity.DUP)
            more.append(st.shadows(a))
            continue
        if a.type.is_pointer and writes_through_argument(g, i):
            raise st.ctx.error(call, f"@{g.name} may write memory through argument {i}, "
                                     "which has no shadow, and could not be inlined (is it "
                                     "recursive?); such calls are not supported yet")
        acts.append(Activity.DUP if t is not None else Activity.CONST)
        more.append(t or ())
    returns_float = carries_float(call.type)
    if returns_float and Activity.DUP in acts and call in st.ctx.activity.useful and \
            call not in st.ctx.activity.varied:
        raise st.ctx.error(call, f"@{g.name} reads active memory and could not be inlined (is "
                                 "it recursive?); its result's derivative cannot be followed "
                                 "yet")
    derivative = st.callees.derivative(g, acts, return_shadow=shadow_returned)
    fwd, ftype = derivative.function, derivative.type
    args: list[Value] = []
    for a, extra in zip(call.args, more, strict=True):
        args.append(a)
        args.extend(extra)
    if slot is not None:
        # The call keeps its identity (the analyses know what memory it returns); it is
        # pointed at the derivative once the sweep is done.
        st.pending_calls.append((call, fwd, ftype, [*args, slot]))
        return
    b = st.b.position_before(call)
    if isinstance(call, I.Invoke):  # results exist past the normal edge (a block of its own)
        new = b.insert(I.Invoke(ftype, fwd, args, call.normal, call.unwind))
        b = st.b.position_after_phis(call.normal)
    else:
        new = b.call(fwd, args, function_type=ftype)
    fn = call.function
    assert fn is not None and call.parent is not None
    if returns_float:
        primal = b.extractvalue(new, [0], name=call.name)
        t = b.extractvalue(new, [1])
        lanes = (t,) if st.width == 1 else tuple(
            b.extractvalue(t, [j]) for j in range(st.width))
        fn.replace_all_uses(call, primal)
        st.set_tangent(primal, lanes)
        st.tangents[call] = lanes
    elif not call.type.is_void:
        new.name = call.name
        fn.replace_all_uses(call, new)
    call.parent.remove(call)


def prepare_returned_shadows(st: ForwardState) -> None:
    """Before the sweep: the shadows of pointers returned by defined callees exist before
    anything asks for them (a loop phi's shadow may lead to a call later in the loop)."""
    reg = st.ctx.registrations
    for inst in list(st.ctx.work.instructions()):
        if isinstance(inst, I.Call) and inst.type.is_pointer and \
                isinstance(inst.callee, Function) and not inst.callee.is_declaration and \
                st.ctx.activity.touches_shadow(inst) and inst.callee_name not in \
                reg.inactive and inst.callee_name not in reg.forward:
            st.returned_shadow_slots[inst] = _returned_shadow_slot(st, inst)


def _returned_shadow_slot(st: ForwardState, call: I.Call) -> Value:
    """A callee returning memory this function differentiates through: its derivative returns
    the pointer and writes the memory's shadows (one per direction) to a slot, read back after
    the call as the call's shadows."""
    if isinstance(call, I.Invoke):
        raise st.ctx.error(call, "an invoke of a function returning memory with a shadow is "
                                 "not supported yet")
    slot = st.ctx.entry_alloca(T.ArrayType(st.width, T.PTR), names.shadow(call) + ".slot")
    after = Builder().position_after_def(call)
    for j, lane in enumerate(st.lanes):
        ptr = slot if j == 0 else after.getelementptr(T.PTR, slot, [ConstantInt(T.I64, j)])
        lane.known[call] = after.load(T.PTR, ptr, 8, name=names.shadow(call))
    return slot


def _check_returned_pointer(st: ForwardState, call: I.Call, g: Function) -> None:
    """A pointer returned by a call that could not be inlined leads to memory the activity
    analysis cannot name, so the tangents of what `g` stored there would read as zero. When
    `g` sees active data and the pointer is used for more than freeing or comparing, that
    would be a wrong derivative: raise instead."""
    varied = st.ctx.activity.varied
    if not any(a in varied or (a.type.is_pointer and underlying(a) & varied)
               for a in call.args):
        return
    user = _first_reading_use(call)
    if user is None:
        return
    raise st.ctx.error(call, f"@{g.name} returns a pointer and could not be inlined (is it "
                             "recursive?); the derivatives of the memory it returns cannot be "
                             f"followed yet (used by `{str(user).strip()}`)")


def _first_reading_use(p: I.Instruction) -> I.Instruction | None:
    """The first instruction that reads or passes on memory through `p` (followed through
    GEPs, casts, phis and selects), or None when `p` is only compared or freed."""
    fn = p.function
    assert fn is not None
    users: dict[Value, list[I.Instruction]] = {}
    for inst in fn.instructions():
        for op in inst.operands:
            users.setdefault(op, []).append(inst)
    todo, seen = [p], {p}
    while todo:
        v = todo.pop()
        for u in users.get(v, []):
            if isinstance(u, (I.GetElementPtr, I.Cast, I.Phi, I.Select)) and u.type.is_pointer:
                if u not in seen:
                    seen.add(u)
                    todo.append(u)
            elif isinstance(u, I.Compare) or (isinstance(u, I.Call) and
                                           u.callee_name in DEALLOCATION_FUNCTIONS):
                continue
            else:
                return u
    return None


def _atomic_add(st: ForwardState, inst: I.AtomicRMW) -> None:
    """`*p += v` (atomically): the same update of each shadow by `v`'s tangent."""
    ptr, value = inst.operands
    if not st.is_active(value):
        return
    b = st.b.position_after_def(inst)
    for sp, t in zip(st.shadows(ptr), st.tangent_or_zero(value), strict=True):
        b.insert(I.AtomicRMW(inst.operation, t.type, sp, t, inst.ordering, inst.align,
                             inst.syncscope))


_HANDLERS = InstructionHandlers(store=_store, call=_call, load=_load, by_rule=_by_rule,
                                atomic_add=_atomic_add)
