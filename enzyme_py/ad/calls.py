"""Calls to defined functions that stay calls (recursion): augmented forward, then reverse.

What LLVM could not inline (every call, with `--no-inline`) is still a call in the function
being differentiated. A call on
an active path (it reads or writes active memory, returns an active float, or returns memory
the caller differentiates through) is rewritten in the forward sweep into a call of the
callee's augmented function, which runs the callee's forward sweep and hands back its tape;
the reverse sweep calls the callee's reverse function with that tape (`split.py` makes the
pair). So a recursion of depth d costs d augmented calls and d reverse calls, and callees may
write memory, allocate, free, and return heap memory with its shadow.

Invariants: the rewritten call keeps its identity (activity, tape lookups and uses still
refer to it); the arguments a pair is made for are the activities the caller sees (a const
pointer stays const); the same (callee, activities, return shadow, shared globals) pair is
made once per module (the cache of derived functions), and a recursive call made while the
pair is being built calls the pair under construction.
"""

from __future__ import annotations

from enzyme_py.ad import names
from enzyme_py.ad.call_kind import (
    REVERSE_CALLS,
    CallKind,
    classify_call,
    defined_call_carries_derivative,
    returns_shadowed,
)
from enzyme_py.ad.derived import SplitKey
from enzyme_py.ad.reverse_state import ReverseState, SplitCall
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.memory import underlying
from enzyme_py.analysis.memory_effects import memory_effects
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import Value


def call_activities(st: ReverseState, call: I.Call) -> list[Activity]:
    """The callee's argument activities as this caller sees them."""
    activity = st.ctx.activity
    acts: list[Activity] = []
    for a in call.args:
        if a.type.is_pointer and underlying(a) and all(
                isinstance(o, Function) for o in underlying(a)):
            acts.append(Activity.CONST)  # a function pointer: code, not memory
            continue
        if a.type.is_pointer:
            if activity.touches_shadow(a):
                acts.append(Activity.DUP)
                continue
            if any(o in activity.varied and o in activity.useful for o in underlying(a)):
                # (varied memory that no useful value reads, such as the indices an argmax
                # stores, needs no shadow: passed as constant, it loses no derivative)
                raise st.ctx.error(call, "passes a pointer to memory holding active data that "
                                         "has no shadow here; its derivative would be lost")
            acts.append(Activity.CONST)
        elif carries_float(a.type) and st.is_active(a):
            acts.append(Activity.OUT)
        else:
            acts.append(Activity.CONST)
    return acts


def split_callee(st: ReverseState, call: I.Call) -> Function | None:
    """The defined callee of `call` when the call needs an augmented/reverse pair."""
    if classify_call(st.ctx, call, REVERSE_CALLS) is not CallKind.DEFINED:
        return None
    callee = call.callee
    assert isinstance(callee, Function)
    if not carries_float(call.type) and not call.type.is_pointer and \
            memory_effects(callee).writes_nothing:
        return None  # (an index computed from iterators, say): no derivative to carry
    if defined_call_carries_derivative(st.ctx, call, callee):
        return callee
    return None


def rewrite_split_calls(st: ReverseState) -> None:
    """Turn each call needing a pair into a call of the augmented function (forward sweep)."""
    for call in [i for i in st.ctx.work.instructions() if isinstance(i, I.Call)]:
        if call not in st.cf.original or call.opcode == "callbr":
            continue
        g = split_callee(st, call)
        if g is not None:
            _rewrite(st, call, g)


def _rewrite(st: ReverseState, call: I.Call, g: Function) -> None:
    ctx = st.ctx
    acts = call_activities(st, call)
    ret_active = st.is_active(call)
    ret_shadow = returns_shadowed(ctx, call)
    shared = ctx.shared_global_names()
    pair = ctx.derived.get(SplitKey(g.name, tuple(acts), ret_active, ret_shadow, shared))
    if pair is None:  # (the float-type hints only matter to a pair still to be built)
        pair = st.callees.split_pair(g, acts, ret_active, ret_shadow, shared,
                                     _float_types(st, call, acts))
    base = names.tape_slot(g.name or "g")
    tape_slot = ctx.entry_alloca(T.PTR, base)
    after = _after_call(st, call)
    tape = after.load(T.PTR, tape_slot, 8, name=base.removesuffix(".slot"))
    shadow_slot = None
    if pair.shadow_return:  # first: an argument's shadow may lead back here (a loop phi)
        shadow_slot = ctx.entry_alloca(T.PTR, names.shadow(call) + ".slot")
        st.shadows.known[call] = after.load(T.PTR, shadow_slot, 8, name=names.shadow(call))
    args = list(call.args)
    new_args: list[Value] = []
    for a, act in zip(args, acts, strict=True):
        new_args.append(a)
        if act is Activity.DUP:
            new_args.append(st.forward_shadow(a))
    new_args += [st.frees.pointer(), tape_slot]
    if shadow_slot is not None:
        new_args.append(shadow_slot)
    st.split_calls[call] = SplitCall(pair, acts, args, tape, ret_active, new_args)


def finish_split_calls(st: ReverseState) -> None:
    """Point the rewritten calls at the augmented functions. Done last: until then the
    calls still name their callees, which is what the analyses (what memory a call returns,
    what it may write) read."""
    for call, info in st.split_calls.items():
        call.operands = [*info.new_args, info.pair.augmented]
        call.function_type = info.pair.augmented.function_type
        call.arg_attrs = [[] for _ in info.new_args]
        call.ret_attrs = []
        call.fn_attrs = []
        call.tail = ""  # `tail` promises the callee no access to our stack: the slots are
        call.cconv = ""  # the augmented function has the default calling convention


def _after_call(st: ReverseState, call: I.Call) -> Builder:
    if not isinstance(call, I.Invoke):
        return Builder().position_after_def(call)
    normal = call.normal
    if len(st.cf.preds[normal]) != 1:  # (`split_invoke_edges` made sure it has one)
        raise st.ctx.error(call, "internal error: an invoke continues in a block with other "
                                 "predecessors (a bug in enzyme_py)")
    return Builder().position_after_phis(normal)


def reverse_split_call(st: ReverseState, call: I.Call, info: SplitCall) -> None:
    """The reverse of a rewritten call: the callee's reverse function, with its tape."""
    b = st.b
    args: list[Value] = []
    for a, act in zip(info.args, info.acts, strict=True):
        args.append(st.tape.lookup(a))
        if act is Activity.DUP:
            args.append(st.reverse_shadow(a))
    if info.ret_active:
        args.append(st.take_adjoint(call))
    args.append(st.tape.lookup(info.tape))
    result = b.call(info.pair.reverse, args)
    outs = [a for a, act in zip(info.args, info.acts, strict=True) if act is Activity.OUT]
    add_out_adjoints(st, outs, result)


def add_out_adjoints(st: ReverseState, outs: list[Value], result: Value) -> None:
    """Add what a gradient returned (one adjoint, or a struct of them in order) to `outs`."""
    if len(outs) == 1:
        st.add_adjoint(outs[0], result)
    else:
        for k, a in enumerate(outs):
            st.add_adjoint(a, st.b.extractvalue(result, [k]))


def _float_types(st: ReverseState, call: I.Call,
                 acts: list[str]) -> tuple[str | None, ...]:
    """What this function knows of the float type behind each dup argument (for a callee
    that copies that memory without touching it; empty when nothing is known)."""
    kinds = []
    for a, act in zip(call.args, acts, strict=True):
        kind = st.memory_float_kind([a]) if act is Activity.DUP else None
        kinds.append(kind if kind in ("double", "float", "half") else None)
    return tuple(kinds) if any(kinds) else ()
