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
made once per module, and a recursive call made while the pair is being built calls the pair
under construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from enzyme_py.ad import names
from enzyme_py.ad.split import SplitPair
from enzyme_py.analysis.activity import carries_float
from enzyme_py.analysis.globals import touches_globals
from enzyme_py.analysis.memory import (
    ALLOCATION_FUNCTIONS,
    DEALLOCATION_FUNCTIONS,
    underlying,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.values import Value

if TYPE_CHECKING:
    from enzyme_py.ad.reverse import ReverseTransform


@dataclass
class SplitCall:
    """A call rewritten to its callee's augmented function."""

    pair: SplitPair
    acts: list[str]
    args: list[Value]  # the call's arguments before the rewrite
    tape: Value  # the callee's tape, read right after the call
    ret_active: bool
    new_args: list[Value]  # the augmented call's arguments


def call_activities(tr: ReverseTransform, call: I.Call) -> list[str]:
    """The callee's argument activities as this caller sees them."""
    acts: list[str] = []
    for a in call.args:
        if a.type.is_pointer and underlying(a) and all(
                isinstance(o, Function) for o in underlying(a)):
            acts.append("const")  # a function pointer: code, not memory
            continue
        if a.type.is_pointer:
            if tr.activity.touches_shadow(a):
                acts.append("dup")
                continue
            if any(o in tr.activity.varied for o in underlying(a)):
                raise tr.error(call, "passes a pointer to memory holding active data that has "
                                     "no shadow here; its derivative would be lost")
            acts.append("const")
        elif carries_float(a.type) and tr.is_active(a):
            acts.append("out")
        else:
            acts.append("const")
    return acts


def returns_shadowed(tr, call: I.Call) -> bool:
    """The call returns a pointer into memory this function differentiates through."""
    return call.type.is_pointer and tr.activity.touches_shadow(call)


def split_callee(tr: ReverseTransform, call: I.Call) -> Function | None:
    """The defined callee of `call` when the call needs an augmented/reverse pair."""
    callee = call.callee
    if not isinstance(callee, Function) or callee.is_declaration:
        return None
    name = callee.name or ""
    if name in ALLOCATION_FUNCTIONS or name in DEALLOCATION_FUNCTIONS or \
            name.startswith("llvm."):
        return None
    from enzyme_py.rules.inactive import is_known_inactive
    from enzyme_py.rules.registry import lookup

    reg = tr.registrations
    if is_known_inactive(name) or name in reg.inactive or name in reg.custom or \
            reg.python_rule(name) == "custom_jvp" or lookup(name) is not None:
        return None
    if not carries_float(call.type) and not call.type.is_pointer and _writes_nothing(callee):
        return None  # (an index computed from iterators, say): no derivative to carry
    writes_active = any(a.type.is_pointer and tr.activity.touches_shadow(a) for a in call.args)
    if writes_active or tr.is_active(call) or returns_shadowed(tr, call) or \
            touches_globals(callee, tr.shared_globals):  # (it may move active data there)
        return callee
    return None


def _writes_nothing(g: Function) -> bool:
    from enzyme_py.ad.reverse import is_pure_call
    from enzyme_py.analysis.memory import memory_effects

    eff = memory_effects(g, is_pure_call)
    return not eff.writes and not eff.writes_unknown_call


def rewrite_split_calls(tr: ReverseTransform) -> None:
    """Turn each call needing a pair into a call of the augmented function (forward sweep)."""
    for call in [i for i in tr.work.instructions() if isinstance(i, I.Call)]:
        if call not in tr.original or call.opcode == "callbr":
            continue
        g = split_callee(tr, call)
        if g is not None:
            _rewrite(tr, call, g)


def _rewrite(tr: ReverseTransform, call: I.Call, g: Function) -> None:
    acts = call_activities(tr, call)
    ret_active = tr.is_active(call)
    ret_shadow = returns_shadowed(tr, call)
    shared = tuple(sorted(v.name or "" for v in tr.shared_globals))
    known = tr.module.derived.get(split_key(g, acts, ret_active, ret_shadow, shared))
    # (the float-type hints only matter to a pair still to be built)
    pair = known if isinstance(known, SplitPair) else split_pair(
        tr.module, g, acts, ret_active, ret_shadow, shared, _float_types(tr, call, acts))
    base = names.tape_slot(g.name or "g")
    tape_slot = tr.entry_alloca(T.PTR, base)
    after = _after_call(tr, call)
    tape = after.load(T.PTR, tape_slot, 8, name=base.removesuffix(".slot"))
    shadow_slot = None
    if pair.shadow_return:  # first: an argument's shadow may lead back here (a loop phi)
        shadow_slot = tr.entry_alloca(T.PTR, names.shadow(call) + ".slot")
        tr.shadows[call] = after.load(T.PTR, shadow_slot, 8, name=names.shadow(call))
    args = list(call.args)
    new_args: list[Value] = []
    for a, act in zip(args, acts, strict=True):
        new_args.append(a)
        if act == "dup":
            new_args.append(tr.forward_shadow(a))
    new_args += [tr.frees_pointer(), tape_slot]
    if shadow_slot is not None:
        new_args.append(shadow_slot)
    tr.split_calls[call] = SplitCall(pair, acts, args, tape, ret_active, new_args)


def finish_split_calls(tr: ReverseTransform) -> None:
    """Point the rewritten calls at the augmented functions. Done last: until then the
    calls still name their callees, which is what the analyses (what memory a call returns,
    what it may write) read."""
    for call, info in tr.split_calls.items():
        call.operands = [*info.new_args, info.pair.augmented]
        call.function_type = info.pair.augmented.function_type
        call.arg_attrs = [[] for _ in info.new_args]
        call.ret_attrs = []
        call.fn_attrs = []
        call.tail = ""  # `tail` promises the callee no access to our stack: the slots are
        call.cconv = ""  # the augmented function has the default calling convention


def _after_call(tr: ReverseTransform, call: I.Call) -> Builder:
    if not isinstance(call, I.Invoke):
        return Builder().position_after_def(call)
    normal = call.normal
    if len(tr.preds[normal]) != 1:  # (`split_invoke_edges` made sure it has one)
        raise tr.error(call, "internal error: an invoke continues in a block with other "
                             "predecessors (a bug in enzyme_py)")
    return Builder().position_after_phis(normal)


def split_invoke_edges(fn: Function) -> None:
    """Give each invoke a normal destination of its own (a block that only branches on):
    code that must follow it (reading a split callee's tape, storing its result on the
    tape) goes there. Done on the working copy before any analysis."""
    for inst in list(fn.instructions()):
        if not isinstance(inst, I.Invoke):
            continue
        normal, here = inst.normal, inst.parent
        assert here is not None
        preds = [b for b in fn.blocks if normal in b.successors()]
        if len(preds) == 1 and here.successors().count(normal) == 1:
            continue
        edge = Block(f"{normal.name or 'bb'}.from.invoke", fn)
        fn.blocks.insert(fn.blocks.index(here) + 1, edge)
        edge.append(I.Br([normal]))
        inst.normal = edge
        for phi in normal.phis():
            phi.replace_block(here, edge)


def reverse_split_call(tr: ReverseTransform, call: I.Call, info: SplitCall) -> None:
    """The reverse of a rewritten call: the callee's reverse function, with its tape."""
    b = tr.b
    args: list[Value] = []
    for a, act in zip(info.args, info.acts, strict=True):
        args.append(tr.tape.lookup(a))
        if act == "dup":
            args.append(tr.reverse_shadow(a))
    if info.ret_active:
        args.append(tr.take_adjoint(call))
    args.append(tr.tape.lookup(info.tape))
    result = b.call(info.pair.reverse, args)
    outs = [a for a, act in zip(info.args, info.acts, strict=True) if act == "out"]
    if len(outs) == 1:
        tr.add_adjoint(outs[0], result)
    else:
        for k, a in enumerate(outs):
            tr.add_adjoint(a, b.extractvalue(result, [k]))


def split_pair(module: Module, g: Function, acts: list[str], ret_active: bool,
               ret_shadow: bool, shared_globals: tuple[str, ...] = (),
               float_types: tuple[str | None, ...] = ()) -> SplitPair:
    """The augmented and reverse functions of `g` for these activities (made once)."""
    from enzyme_py.ad.reverse import ReverseOptions, ReverseTransform

    # (the float types are hints for a callee that copies memory without touching it; not
    # part of the key, so that a recursion keeps calling one pair)
    key = split_key(g, acts, ret_active, ret_shadow, shared_globals)
    got = module.derived.get(key)
    if got is None:
        ReverseTransform(module, g, acts, ret_active,
                         ReverseOptions(split=True, return_shadow=ret_shadow,
                                        dup_globals=shared_globals,
                                        arg_float_types=float_types)).run()
        got = module.derived[key]
    assert isinstance(got, SplitPair)
    return got


def split_key(g: Function, acts: list[str], ret_active: bool, ret_shadow: bool,
              shared_globals: tuple[str, ...]) -> tuple:
    return ("split", g.name, tuple(acts), ret_active, ret_shadow, shared_globals)


def _float_types(tr: ReverseTransform, call: I.Call,
                 acts: list[str]) -> tuple[str | None, ...]:
    """What this function knows of the float type behind each dup argument (for a callee
    that copies that memory without touching it; empty when nothing is known)."""
    from enzyme_py.ad.reverse_ops import memory_float_kind

    kinds = []
    for a, act in zip(call.args, acts, strict=True):
        kind = memory_float_kind(tr, [a]) if act == "dup" else None
        kinds.append(kind if kind in ("double", "float", "half") else None)
    return tuple(kinds) if any(kinds) else ()
