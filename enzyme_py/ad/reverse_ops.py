"""The reverse of each instruction: adjoints flow from a result to its operands.

Invariants: code is emitted at the transform's builder (inside `rev.B`); primal values come
from the tape (`lookup`), never straight from the forward sweep; an instruction with an active
result and no rule raises `DifferentiationError` naming where a rule belongs; memory writes
into shadowed memory always consume (read and zero) the shadow they overwrite.
"""

from __future__ import annotations

from enzyme_py.ad.call_kind import (
    REVERSE_CALLS,
    CallKind,
    classify_call,
    no_derivative_error,
    passes_shadowed_memory,
)
from enzyme_py.ad.calls import add_out_adjoints, call_activities, reverse_split_call
from enzyme_py.ad.indirect_calls import reverse_indirect_call
from enzyme_py.ad.instruction_dispatch import InstructionHandlers, dispatch
from enzyme_py.ad.masked_memory import reverse_masked
from enzyme_py.ad.matrix_calls import reverse_matrix_call
from enzyme_py.ad.reverse_state import ReverseState
from enzyme_py.ad.rule_lookup import check_partials, diff_operands, find_rule
from enzyme_py.ad.runtime import copy_adjoint_function, move_adjoint_function
from enzyme_py.ad.shadow import check_integer_copy, integer_constant
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.memory_effects import memory_intrinsic, write_after
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.module import Function
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import Constant, Value, zero
from enzyme_py.rules.mathcalls import MathContextMixin
from enzyme_py.rules.registry import JointLinear, Linear


class ReverseContext(MathContextMixin):
    """`RuleContext` for reverse mode: primal values come from the tape."""

    def __init__(self, st: ReverseState, inst: I.Instruction) -> None:
        self.st = st
        self.inst = inst
        self.builder: Builder = st.b
        self._ops = diff_operands(inst)

    def operand(self, index: int) -> Value:
        return self.st.tape.lookup(self._ops[index])

    def result(self) -> Value:
        return self.st.tape.lookup(self.inst)


def reverse_instruction(st: ReverseState, inst: I.Instruction) -> None:
    dispatch(_HANDLERS, st, inst)


def _call(st: ReverseState, call: I.Call) -> bool:
    """The reverse of a call, by its kind; False when the call goes by its rule (the table)
    like any instruction. Raises for calls we cannot handle."""
    split = st.split_calls.get(call)
    if split is not None:
        reverse_split_call(st, call, split)
        return True
    indirect = st.indirect_calls.get(call)
    if indirect is not None:
        reverse_indirect_call(st, call, indirect)
        return True
    kind = classify_call(st.ctx, call, REVERSE_CALLS)
    if kind is CallKind.RULE:
        return False
    if kind is CallKind.ALLOCATION:
        _allocation(st, call)
    elif kind is CallKind.DEALLOCATION:
        # A free the forward sweep kept (of memory not provably allocated here): what the
        # reverse sweep reads of that memory comes from the tape (a free counts as a write
        # in the memory effects), and shadows are freed at their allocation.
        pass
    elif kind is CallKind.MEMORY:
        _memory_call(st, call, call.callee_name or "")
    elif kind is CallKind.BARRIER:
        _barrier(st, call)
    elif kind in (CallKind.INACTIVE, CallKind.DEFINED):
        pass  # (a defined callee that is not split, `calls.split_callee`, carries nothing)
    elif not (passes_shadowed_memory(st.ctx, call) or st.is_active(call)):
        pass
    elif kind is CallKind.CUSTOM:
        _custom_call(st, call, st.ctx.registrations.custom[call.callee_name or ""])
    elif kind is CallKind.OTHER_MODE:  # a custom_jvp rule: reversed through its tangent
        _custom_jvp_call(st, call, st.ctx.registrations.forward[call.callee_name or ""])
    elif kind is CallKind.MASKED_MEMORY:
        reverse_masked(st, call)
    elif kind is CallKind.MATRIX:
        reverse_matrix_call(st, call)
    else:  # UNKNOWN
        raise no_derivative_error(st.ctx, call)
    return True


def _allocation(st: ReverseState, call: I.Call) -> None:
    """Back at the allocation, nothing later in the reverse sweep needs the memory: free its
    shadow, and the memory itself if the function freed it (that free was deferred)."""
    b = st.b
    free = st.ctx.libc.free()  # (declared here even when nothing is freed)
    shadow = st.shadows.known.get(call)
    if shadow is not None:
        b.call(free, [st.tape.lookup(shadow)])
    primal_free = st.frees.at_allocation.get(call)
    if primal_free is not None:
        callee = primal_free.callee
        ftype = primal_free.function_type
        args = [st.tape.lookup(call)] + [st.tape.lookup(a) for a in primal_free.args[1:]]
        b.call(callee, args, function_type=ftype)


def _barrier(st: ReverseState, call: I.Call) -> None:
    """The same barrier at the mirrored point: what the threads wrote to shadows after it in
    the forward sweep's order (before it in the reverse sweep) is seen by all of them before
    any reads the shadows of what came before it."""
    new = clone_instruction(call, {}, {})
    new.operands[:-1] = [st.tape.lookup(a) for a in call.args]
    st.b.insert(new)


def _call_gradient(st: ReverseState, call: I.Call, acts: list[Activity | str], grad: Function,
                   grad_type: T.FunctionType, with_seed: bool,
                   tape: Value | None = None) -> None:
    """Call a gradient (generated or the user's) and add what it returns to the arguments."""
    b = st.b
    args: list[Value] = []
    for a, act in zip(call.args, acts, strict=True):
        args.append(st.tape.lookup(a))
        if act == Activity.DUP:
            args.append(st.reverse_shadow(a))
        elif act == "null":  # a rule that takes a shadow for every pointer: none here
            args.append(zero(T.PTR))
    if with_seed:
        args.append(st.take_adjoint(call) if st.is_active(call) else zero(call.type))
    if tape is not None:
        args.append(st.tape.lookup(tape))
    if len(args) != len(grad_type.params):
        raise st.ctx.error(call, f"@{grad.name} takes {len(grad_type.params)} arguments, but "
                                 f"the call needs {len(args)} (each dup pointer is followed by "
                                 "its shadow, then the seed when the result is a float)")
    result = b.call(grad, args, function_type=grad_type)
    outs = [a for a, act in zip(call.args, acts, strict=True) if act == Activity.OUT]
    if outs and grad_type.ret.is_void:
        raise st.ctx.error(call, f"@{grad.name} returns nothing, but {len(outs)} float "
                                 "argument(s) need their adjoints")
    add_out_adjoints(st, outs, result)


def _custom_call(st: ReverseState, call: I.Call, custom) -> None:
    """A user-registered gradient (`__enzyme_register_gradient_NAME`)."""
    acts = call_activities(st, call)
    # The user's reverse function takes every float argument's adjoint slot position, so
    # float arguments are `out` whether or not they are active here.
    acts = [Activity.OUT if a.type.is_float else act
            for a, act in zip(call.args, acts, strict=True)]
    if custom.every_shadow:
        acts = ["null" if a.type.is_pointer and act == Activity.CONST else act
                for a, act in zip(call.args, acts, strict=True)]
        _check_arrays_kept(st, call, "its custom_vjp rule", _read_by(call, custom.reverse))
    with_seed = carries_float(call.type)
    tape: Value | None = None
    aug = custom.augmented
    if aug is not None and aug.return_type.is_pointer and call.type.is_void:
        # Enzyme's tape form: the augmented function replaces the call in the forward sweep.
        args: list[Value] = []
        for a, act in zip(call.args, acts, strict=True):
            args.append(a)
            if act == Activity.DUP:
                args.append(st.forward_shadow(a))  # may insert code before the call
            elif act == "null":  # (a Python rule's missing shadow)
                args.append(zero(T.PTR))
        at = Builder().position_before(call)
        if len(args) != len(aug.function_type.params):
            raise st.ctx.error(call, f"@{aug.name} takes {len(aug.function_type.params)} "
                                     f"arguments, but the call needs {len(args)} (each dup "
                                     "pointer is followed by its shadow)")
        if isinstance(call, I.Invoke):  # (inside C++ `try`): the same edges
            tape = at.insert(I.Invoke(aug.function_type, aug, args, call.normal, call.unwind),
                             name="tape")
        else:
            tape = at.call(aug, args, name="tape")
        assert call.parent is not None
        call.parent.remove(call)
    _call_gradient(st, call, acts, custom.reverse, custom.reverse.function_type, with_seed,
                   tape)


def _custom_jvp_call(st: ReverseState, call: I.Call, rule) -> None:
    """Reverse mode through a Python `custom_jvp` rule, as JAX does it: the rule's tangent
    output is linear in the input tangents, so the adjoints of the arguments are the gradient
    of `seed * tangent_out` with respect to the input tangents. The front end registers that
    tangent function (`rule.tangent`: `f`'s arguments, each float followed by its tangent and
    each pointer by its tangent array); its gradient is generated here like a callee's, with
    the primal arguments const and each array's shadow standing in for its tangent array."""
    g = rule.tangent
    if g is None:
        raise st.ctx.error(call, f"@{call.callee_name} has a forward-mode rule only; "
                                 "reverse mode needs a custom_vjp rule (or a tangent function)")
    _check_arrays_kept(st, call, "the reverse of its custom_jvp rule")
    acts: list[Activity] = []
    args: list[Value] = []
    for a in call.args:
        value = st.tape.lookup(a)
        acts.append(Activity.CONST)
        args.append(value)
        if a.type.is_pointer:
            if st.ctx.activity.touches_shadow(a):
                acts.append(Activity.DUP)
                args.extend([value, st.reverse_shadow(a)])
            else:
                acts.append(Activity.CONST)
                args.append(value)
        elif a.type.is_float:
            acts.append(Activity.OUT)
            args.append(zero(a.type))  # the tangent's value does not matter (linear)
    ret_active = st.is_active(call)
    grad = st.callees.gradient(g, acts, ret_active)
    if ret_active:
        args.append(st.take_adjoint(call))
    result = st.b.call(grad.function, args, function_type=grad.type)
    outs = [a for a in call.args if a.type.is_float]
    if ret_active and outs:
        add_out_adjoints(st, outs, result)


def _read_by(call: I.Call, rule: Function) -> list[Value]:
    """The pointer arguments of `call` that `rule` (a Python rule's reverse function: each
    argument, a shadow after each pointer) may read: all but those whose parameter is
    `readnone` (a rule that keeps what it needs on its tape)."""
    out: list[Value] = []
    k = 0
    for a in call.args:
        if a.type.is_pointer:
            if k >= len(rule.args) or "readnone" not in rule.args[k].attrs:
                out.append(a)
            k += 1
        k += 1
    return out


def _check_arrays_kept(st: ReverseState, call: I.Call, what: str,
                       read: list[Value] | None = None) -> None:
    """The reverse sweep hands a rule the pointer arguments as they are then: memory written
    after the call (a later statement, or the call again in a loop) would feed the rule other
    values than the call saw, so that is an error rather than a wrong gradient. `read`: the
    arguments the rule reads (default: every pointer argument)."""
    w = write_after(st.effects, call, read)
    if w is not None:
        raise st.ctx.error(call, f"{what} reads array arguments in the reverse sweep, but "
                                 f"this function writes that memory after the call "
                                 f"({w.opcode}); pass a copy that stays unchanged")


def _by_rule(st: ReverseState, inst: I.Instruction) -> None:
    rule = find_rule(st.ctx, inst)
    ctx = ReverseContext(st, inst)
    d = st.take_adjoint(inst)
    got = rule.partials(ctx)
    check_partials(st.ctx, inst, rule, got)
    joint = isinstance(got, JointLinear)  # (a structural opcode: its transpose per operand)
    partials = got.reverse if isinstance(got, JointLinear) else got
    ops = diff_operands(inst)
    guard = st.guards.get(inst)  # see `analysis.speculation`
    for op, partial in zip(ops, partials, strict=True):
        if partial is None or isinstance(op, Constant) or not st.is_active(op):
            continue
        linear = joint or isinstance(partial, Linear)  # a zero seed gives zero: no guard
        contribution = partial.reverse(d) if isinstance(partial, Linear) else partial(d)
        if guard is not None and not linear:
            cond = st.tape.lookup(guard[0])
            kept, dropped = (contribution, zero(contribution.type)) if guard[1] else \
                (zero(contribution.type), contribution)
            contribution = st.b.select(cond, kept, dropped)
        st.add_adjoint(op, contribution)


def _load(st: ReverseState, inst: I.Load) -> None:
    if st.windows.takes(inst):  # a stencil's neighbour: its add waits (`load_windows`)
        st.windows.reverse_load(st, inst)
        return
    if st.overwrites.takes_load(inst):  # the next trip overwrites it: the adjoint is
        return  # stored when the reversed trip ends (`overwritten_loads`)
    d = st.take_adjoint(inst)
    sp = st.reverse_shadow(inst.pointer)
    st.accumulation.add(st.b, inst.pointer, sp, d, inst.align)


def _store(st: ReverseState, inst: I.Store) -> None:
    value, ptr = inst.operands
    touches = st.ctx.activity.touches_shadow(ptr)
    if touches and integer_constant(value):
        # (a memset LLVM made a store: the bytes it overwrote pass on no adjoint)
        st.b.store(zero(value.type), st.reverse_shadow(ptr), inst.align)
        return
    if not carries_float(value.type) or not touches:
        check_integer_copy(st.ctx, inst)
        return
    if st.overwrites.takes_store(inst):  # the next reversed trip stores its adjoint
        st.overwrites.reverse_store(st, inst)
        return
    b = st.b
    sp = st.reverse_shadow(ptr)
    if st.is_active(value):
        d = b.load(value.type, sp, inst.align)
        b.store(zero(value.type), sp, inst.align)
        st.add_adjoint(value, d)
    else:
        b.store(zero(value.type), sp, inst.align)


def _memory_call(st: ReverseState, call: I.Call, name: str) -> None:
    dst = call.args[0]
    if not st.ctx.activity.touches_shadow(dst):
        return
    b = st.b
    size = st.tape.lookup(call.args[2])
    if size.type != T.I64:
        size = b.zext(size, T.I64)
    dshadow = st.reverse_shadow(dst)
    src = call.args[1]
    kind = memory_intrinsic(name)
    if kind != "memset" and st.ctx.activity.touches_shadow(src):
        elem = _memory_float_type(st, call)
        if elem is None:  # only pointers move: the forward sweep copied their shadows
            return
        helper = (move_adjoint_function if kind == "memmove"
                  else copy_adjoint_function)(st.ctx.module, elem)
        b.call(helper, [dshadow, st.reverse_shadow(src), size])
        return
    st.ctx.libc.call_memset_zero(b, dshadow, size)


def _memory_float_type(st: ReverseState, call: I.Call) -> str | None:
    """The float type held by the memory a memcpy moves; None when it holds pointers and no
    floats (a struct of integers and pointers: no adjoint to move)."""
    kind = st.memory_float_kind([call.args[0], call.args[1]])
    if kind in ("double", "float", "half"):
        return kind
    if kind == "ptr":
        return None
    if (st.ctx.primal.name or "").startswith("enzyme_py."):  # runtime.py's tape helpers
        raise st.ctx.error(call, "differentiating a gradient that keeps values on a growing "
                                 "tape (nested __enzyme_autodiff over a loop whose trip count "
                                 "is unknown) is not supported: the tape's memory is untyped")
    seen = kind or "no typed access to this memory"
    raise st.ctx.error(call, f"cannot tell which floating point type this copy moves "
                             f"({seen}); its adjoint needs the element type")


def _atomic_add(st: ReverseState, inst: I.AtomicRMW) -> None:
    """`*p += v` (atomically): the adjoint of `v` is the adjoint of `*p` (read, not consumed:
    the memory keeps its adjoint, what it held before is still part of it)."""
    ptr, value = inst.operands
    if not st.is_active(value):
        return
    d = st.b.load(value.type, st.reverse_shadow(ptr), inst.align)
    st.add_adjoint(value, d if inst.operation == "fadd" else st.b.fneg(d))


_HANDLERS = InstructionHandlers(store=_store, call=_call, load=_load, by_rule=_by_rule,
                                atomic_add=_atomic_add)
