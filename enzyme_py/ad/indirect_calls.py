"""Indirect calls on an active path (virtual calls, callbacks), as Enzyme does them: the shadow
of the function pointer points to the pair `{augmented, reverse}` of the callee, in Enzyme's
split-mode ABI (what `__enzyme_virtualreverse(f)` makes, `enzyme_abi_virtual.py`; the shadow of
a vtable holds one pair per virtual function). The forward sweep calls the augmented function
through the pair and keeps its tape, the reverse sweep calls the reverse function with it.

The pair was made for the callee alone, so its activities are those of the callee's type:
integers const, floats out, pointers dup. Every pointer argument therefore needs a shadow here,
and a callee returning a pointer is not supported (each is an error naming the call).

Invariants: the rewritten call keeps its identity and its result type (an adapter,
`@enzyme_py.indirect.augmented.N`, calls through the pair and stores the tape into a slot), so
activity, tape lookups and uses still refer to it; the call is pointed at the adapter last
(`finish_indirect_calls`), while the analyses have read it as it was. Whether the shadow holds
a pair is known only at run time (the caller sets it, as `__enzyme_virtualreverse` does): a
shadow that is null or the primal function itself (a shadow object made as a copy of the
primal) stops the program with a message naming the cause, never a jump into data.
"""

from __future__ import annotations

from enzyme_py.ad.calls import add_out_adjoints
from enzyme_py.ad.reverse_state import IndirectCall, ReverseState
from enzyme_py.analysis.activities import Activity
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import (
    ConstantInt,
    ConstantString,
    InlineAsm,
    Value,
    strip_constant_casts,
    zero,
)


def is_indirect(call: I.Call) -> bool:
    """`call` goes through a function pointer (not a function, a cast of one, or asm)."""
    return not isinstance(strip_constant_casts(call.callee), (Function, InlineAsm))


def pair_activity(t: T.Type) -> Activity:
    """The activity a shadow pair's functions were made with, by type."""
    if t.is_pointer:
        return Activity.DUP
    return Activity.OUT if carries_float(t) else Activity.CONST


def rewrite_indirect_calls(st: ReverseState) -> None:
    """Turn each indirect call on an active path into a call through its shadow pair."""
    ctx = st.ctx
    for call in [i for i in ctx.work.instructions() if isinstance(i, I.Call)]:
        if call not in st.cf.original or not is_indirect(call):
            continue
        if not (st.is_active(call) or any(
                (a.type.is_pointer and ctx.activity.touches_shadow(a)) or
                (carries_float(a.type) and st.is_active(a)) for a in call.args)):
            continue
        _rewrite(st, call)


def _rewrite(st: ReverseState, call: I.Call) -> None:
    ctx = st.ctx
    ftype = call.function_type
    if ftype.vararg:
        raise ctx.error(call, "an indirect call of a variadic function on an active path is "
                              "not supported")
    if ftype.ret.is_pointer:
        raise ctx.error(call, "an indirect call on an active path returns a pointer; its "
                              "shadow pair cannot hand back the shadow (not supported)")
    if not ctx.activity.has_shadow(call.callee):
        raise ctx.error(call, "an indirect call on an active path, through a function pointer "
                              "without a shadow: its derivative is found through the pointer's "
                              "shadow, the pair {augmented, reverse} that "
                              "__enzyme_virtualreverse(f) makes (pass the pointer, or the "
                              "object holding it, as enzyme_dup with that shadow), or clang "
                              "must see the target (a callee known after inlining)")
    acts = [pair_activity(p) for p in ftype.params]
    args = list(call.args)
    values: list[Value] = []
    for k, (a, act) in enumerate(zip(args, acts, strict=True)):
        values.append(a)
        if act is Activity.DUP:
            if not ctx.activity.touches_shadow(a):
                raise ctx.error(call, f"an indirect call passes, as argument {k}, a pointer to "
                                      "memory without a shadow; the callee's derivative (its "
                                      "shadow pair) takes a shadow for every pointer argument")
            values.append(st.forward_shadow(a))
    _guard_table_shadow(st, call.callee)
    pair = st.forward_shadow(call.callee)
    slot = ctx.entry_alloca(T.PTR, "indirect.tape.slot")
    adapter = _adapter(ctx.module, ftype, [v.type for v in values], ctx.device.on_device)
    after = Builder().position_after_def(call)
    tape = after.load(T.PTR, slot, 8, name="indirect.tape")
    outs = [p for p, act in zip(ftype.params, acts, strict=True) if act is Activity.OUT]
    rev_ret = T.VOID if not outs else outs[0] if len(outs) == 1 else T.StructType(tuple(outs))
    seed = [ftype.ret] if carries_float(ftype.ret) else []
    rev_type = T.FunctionType(rev_ret, (*[v.type for v in values], *seed, T.PTR))
    st.indirect_calls[call] = IndirectCall(pair, acts, args, tape,
                                           [call.callee, pair, *values, slot], adapter,
                                           rev_type)


_NO_PAIR = (b"enzyme_py: the shadow of a function pointer called on an active path is not a "
            b"pair {augmented, reverse}: set it with __enzyme_virtualreverse (for a C++ "
            b"object: *(void **)&shadow = __enzyme_virtualreverse(*(void **)&shadow))\n")


def _guard_table_shadow(st: ReverseState, fp: Value) -> None:
    """A virtual call loads its function from a slot of the object's vtable; the shadow object
    of a caller that never set its vtable (a zero-filled shadow) has a null vtable pointer,
    and reading the slot's shadow through it would fault. That null is swapped for a table of
    null pairs, so the adapter's check names the cause instead."""
    if not (isinstance(fp, I.Load) and isinstance(fp.pointer, I.GetElementPtr)):
        return
    gep = fp.pointer
    table = gep.pointer
    if not (isinstance(table, I.Load) and table.type.is_pointer and len(gep.indices) == 1 and
            isinstance(gep.indices[0], ConstantInt) and gep.indices[0].value >= 0):
        return
    table_shadow = st.forward_shadow(table)
    gep_shadow = st.forward_shadow(gep)
    if not (isinstance(gep_shadow, I.GetElementPtr) and gep_shadow.operands[0] is table_shadow
            and isinstance(table_shadow, I.Instruction)):
        return
    module = st.ctx.module
    slots = gep.indices[0].value * alloc_size(gep.source_type) // 8 + 1
    empty = GlobalVariable(module.unique_name("enzyme_py.unpaired_table"),
                           T.ArrayType(slots, T.PTR), zero(T.ArrayType(slots, T.PTR)),
                           is_constant=True)
    empty.prefix = ["private"]
    module.add_global(empty)
    at = Builder().position_after_def(table_shadow)
    missing = at.icmp("eq", table_shadow, zero(T.PTR))
    gep_shadow.operands[0] = at.select(missing, empty, table_shadow, name="table.shadow")


def _adapter(module: Module, ftype: T.FunctionType, values: list[T.Type],
             on_device: bool) -> Function:
    """`ret @enzyme_py.indirect.augmented.N(ptr %fn, ptr %pair, values..., ptr %tape.slot)`:
    checks the pair, calls its augmented function (`{tape, result}`, or the tape alone for
    void) and stores the tape."""
    ret = ftype.ret
    aug_ret = T.PTR if ret.is_void else T.StructType((T.PTR, ret))
    fn = Function(module.unique_name("enzyme_py.indirect.augmented"),
                  T.FunctionType(ret, (T.PTR, T.PTR, *values, T.PTR)),
                  ["fn", "pair", *(f"a{k}" for k in range(len(values))), "tape.slot"])
    fn.prefix = ["internal"]
    module.add_function(fn)
    b = Builder().position_at_end(fn.append_block("entry"))
    primal, pair = fn.args[0], fn.args[1]
    bad = b.binop("or", b.icmp("eq", pair, zero(T.PTR)), b.icmp("eq", pair, primal),
                  name="no.pair")
    stop, go = fn.append_block("no.pair"), fn.append_block("call")
    b.condbr(bad, stop, go)
    _stop(Builder().position_at_end(stop), module, on_device)
    b.position_at_end(go)
    aug = b.load(T.PTR, pair, 8, name="augmented")
    got = b.call(aug, list(fn.args[2:-1]), function_type=T.FunctionType(aug_ret, tuple(values)))
    if ret.is_void:
        b.store(got, fn.args[-1], 8)
        b.ret()
    else:
        b.store(b.extractvalue(got, [0]), fn.args[-1], 8)
        b.ret(b.extractvalue(got, [1]))
    return fn


def _stop(b: Builder, module: Module, on_device: bool) -> None:
    """Write `_NO_PAIR` to stderr and abort (on a GPU: trap)."""
    if not on_device:
        text = module.unique_name("enzyme_py.no_pair.message")
        g = GlobalVariable(text, T.ArrayType(len(_NO_PAIR), T.I8),
                           ConstantString(T.ArrayType(len(_NO_PAIR), T.I8), _NO_PAIR),
                           is_constant=True)
        g.prefix = ["private"]
        module.add_global(g)
        write = module.declare_function("write", T.FunctionType(T.I64, (T.I32, T.PTR, T.I64)))
        b.call(write, [ConstantInt(T.I32, 2), g, ConstantInt(T.I64, len(_NO_PAIR))])
        b.call(module.declare_function("abort", T.FunctionType(T.VOID, ())), [])
    else:
        b.call(module.declare_function("llvm.trap", T.FunctionType(T.VOID, ())), [])
    b.insert(I.Unreachable())


def reverse_indirect_call(st: ReverseState, call: I.Call, info: IndirectCall) -> None:
    """The reverse of a rewritten call: the pair's reverse function, with the tape."""
    b = st.b
    pair = st.tape.lookup(info.pair)
    rev = b.load(T.PTR, b.getelementptr(T.PTR, pair, [ConstantInt(T.I64, 1)]), 8,
                 name="reverse")
    args: list[Value] = []
    for a, act in zip(info.args, info.acts, strict=True):
        args.append(st.tape.lookup(a))
        if act is Activity.DUP:
            args.append(st.reverse_shadow(a))
    if carries_float(call.type):
        args.append(st.take_adjoint(call) if st.is_active(call) else zero(call.type))
    args.append(st.tape.lookup(info.tape))
    result = b.call(rev, args, function_type=info.reverse_type)
    outs = [a for a, act in zip(info.args, info.acts, strict=True) if act is Activity.OUT]
    if outs:
        add_out_adjoints(st, outs, result)


def finish_indirect_calls(st: ReverseState) -> None:
    """Point the rewritten calls at their adapters (last: see the module docstring)."""
    for call, info in st.indirect_calls.items():
        call.operands = [*info.new_args, info.adapter]
        call.function_type = info.adapter.function_type
        call.arg_attrs = [[] for _ in info.new_args]
        call.ret_attrs = []
        call.fn_attrs = []
        call.tail = ""
        call.cconv = ""
