"""The reverse of each instruction: adjoints flow from a result to its operands.

Invariants: code is emitted at the transform's builder (inside `rev.B`); primal values come
from the tape (`lookup`), never straight from the forward sweep; an instruction with an active
result and no rule raises `DifferentiationError` naming where a rule belongs; memory writes
into shadowed memory always consume (read and zero) the shadow they overwrite.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzyme_py.ad.calls import call_activities, reverse_split_call
from enzyme_py.analysis.activity import carries_float
from enzyme_py.analysis.memory import ALLOCATION_FUNCTIONS, DEALLOCATION_FUNCTIONS
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import (
    Argument,
    Constant,
    ConstantAggregate,
    ConstantInt,
    ConstantKeyword,
    Value,
    zero,
)
from enzyme_py.rules.inactive import is_known_inactive
from enzyme_py.rules.mathcalls import MathContextMixin
from enzyme_py.rules.registry import Linear, lookup, rule_key

if TYPE_CHECKING:
    from enzyme_py.ad.reverse import ReverseTransform

MEMORY_FUNCTIONS = ("llvm.memcpy", "llvm.memmove", "llvm.memset")
RULE_FILES = ("enzyme_py/rules/libm.py (libm functions) or enzyme_py/rules/intrinsics.py "
              "(llvm.* intrinsics)")


class ReverseContext(MathContextMixin):
    """`RuleContext` for reverse mode: primal values come from the tape."""

    def __init__(self, tr: ReverseTransform, inst: I.Instruction) -> None:
        self.tr = tr
        self.inst = inst
        self.builder: Builder = tr.b
        self._ops = diff_operands(inst)

    def operand(self, index: int) -> Value:
        return self.tr.tape.lookup(self._ops[index])

    def result(self) -> Value:
        return self.tr.tape.lookup(self.inst)


def diff_operands(inst: I.Instruction) -> list[Value]:
    """The operands a rule's partials refer to (call arguments, without the callee)."""
    if isinstance(inst, I.Call):
        return inst.args
    return inst.operands


def reverse_instruction(tr: ReverseTransform, inst: I.Instruction) -> None:
    if isinstance(inst, I.Store):
        _store(tr, inst)
        return
    if isinstance(inst, I.Call):
        split = tr.split_calls.get(inst)
        if split is not None:
            reverse_split_call(tr, inst, split)
            return
        name = inst.callee_name or ""
        if name in ALLOCATION_FUNCTIONS:
            _allocation(tr, inst)
            return
        if name in DEALLOCATION_FUNCTIONS:
            # A free the forward sweep kept (of memory not provably allocated here): what the
            # reverse sweep reads of that memory comes from the tape (a free counts as a write
            # in the memory effects), and shadows are freed at their allocation.
            return
        if name.startswith(MEMORY_FUNCTIONS):
            _memory_call(tr, inst, name)
            return
        if _check_call(tr, inst, name):
            return
    if not tr.is_active(inst):
        if isinstance(inst, (I.AtomicRMW, I.CmpXchg)) and tr.activity.touches_shadow(
                inst.operands[0]):
            raise tr.error(inst, "atomic updates of active memory are not supported")
        return
    if isinstance(inst, I.Load):
        _load(tr, inst)
    elif isinstance(inst, I.VectorOp):
        _vector_op(tr, inst)
    elif isinstance(inst, I.AggregateOp):
        _aggregate_op(tr, inst)
    else:
        _by_rule(tr, inst)


def _check_call(tr: ReverseTransform, call: I.Call, name: str) -> bool:
    """True when the call needs no reverse code; raises for calls we cannot handle."""
    if name and (is_known_inactive(name) or name in tr.registrations.inactive):
        return True
    writes_active = any(a.type.is_pointer and tr.activity.touches_shadow(a) for a in call.args)
    custom = tr.registrations.custom.get(name) if name else None
    if custom is not None:
        if writes_active or tr.is_active(call):
            _custom_call(tr, call, custom)
        return True
    if name and tr.registrations.python_rule(name) == "custom_jvp":
        if writes_active or tr.is_active(call):
            _custom_jvp_call(tr, call, tr.registrations.forward[name])
        return True
    if name and lookup(name) is not None:
        return False
    if writes_active or tr.is_active(call):
        what = f"@{name}" if name else "an indirect call"
        callee = tr.module.symbols.get(name) if name else None
        if isinstance(callee, Function) and not callee.is_declaration:
            return True  # not split (`calls.split_callee`): it carries no derivative
        if name and name in tr.module.symbols and not tr.module.symbols[name].is_declaration:
            hint = "only direct calls to functions are supported"
        else:
            hint = (f"{what} has no derivative rule and no body; add a rule in "
                    f"{RULE_FILES}, or declare it inactive with __enzyme_inactivefn")
        raise tr.error(call, hint)
    return True


def _allocation(tr: ReverseTransform, call: I.Call) -> None:
    """Back at the allocation, nothing later in the reverse sweep needs the memory: free its
    shadow, and the memory itself if the function freed it (that free was deferred)."""
    b = tr.b
    free = tr.runtime_decl("free", T.FunctionType(T.VOID, (T.PTR,)))
    shadow = tr.shadows.get(call)
    if shadow is not None:
        b.call(free, [tr.tape.lookup(shadow)])
    primal_free = tr.deferred_frees.get(call)
    if primal_free is not None:
        callee = primal_free.callee
        ftype = primal_free.function_type
        args = [tr.tape.lookup(call)] + [tr.tape.lookup(a) for a in primal_free.args[1:]]
        b.call(callee, args, function_type=ftype)


def _call_gradient(tr: ReverseTransform, call: I.Call, acts: list[str], grad: Function,
                   grad_type: T.FunctionType, with_seed: bool,
                   tape: Value | None = None) -> None:
    """Call a gradient (generated or the user's) and add what it returns to the arguments."""
    b = tr.b
    args: list[Value] = []
    for a, act in zip(call.args, acts, strict=True):
        args.append(tr.tape.lookup(a))
        if act == "dup":
            args.append(tr.reverse_shadow(a))
        elif act == "null":  # a rule that takes a shadow for every pointer: none here
            args.append(zero(T.PTR))
    if with_seed:
        args.append(tr.take_adjoint(call) if tr.is_active(call) else zero(call.type))
    if tape is not None:
        args.append(tr.tape.lookup(tape))
    if len(args) != len(grad_type.params):
        raise tr.error(call, f"@{grad.name} takes {len(grad_type.params)} arguments, but the "
                             f"call needs {len(args)} (each dup pointer is followed by its "
                             "shadow, then the seed when the result is a float)")
    result = b.call(grad, args, function_type=grad_type)
    outs = [a for a, act in zip(call.args, acts, strict=True) if act == "out"]
    if outs and grad_type.ret.is_void:
        raise tr.error(call, f"@{grad.name} returns nothing, but {len(outs)} float "
                             "argument(s) need their adjoints")
    if len(outs) == 1:
        tr.add_adjoint(outs[0], result)
    else:
        for k, a in enumerate(outs):
            tr.add_adjoint(a, b.extractvalue(result, [k]))


def _custom_call(tr: ReverseTransform, call: I.Call, custom) -> None:
    """A user-registered gradient (`__enzyme_register_gradient_NAME`)."""
    acts = call_activities(tr, call)
    # The user's reverse function takes every float argument's adjoint slot position, so
    # float arguments are `out` whether or not they are active here.
    acts = ["out" if a.type.is_float else act for a, act in zip(call.args, acts, strict=True)]
    if custom.every_shadow:
        acts = ["null" if a.type.is_pointer and act == "const" else act
                for a, act in zip(call.args, acts, strict=True)]
        _check_arrays_kept(tr, call, "its custom_vjp rule")
    with_seed = carries_float(call.type)
    tape: Value | None = None
    aug = custom.augmented
    if aug is not None and aug.return_type.is_pointer and call.type.is_void:
        # Enzyme's tape form: the augmented function replaces the call in the forward sweep.
        args: list[Value] = []
        for a, act in zip(call.args, acts, strict=True):
            args.append(a)
            if act == "dup":
                args.append(tr.forward_shadow(a))  # may insert code before the call
        at = Builder().position_before(call)
        if len(args) != len(aug.function_type.params):
            raise tr.error(call, f"@{aug.name} takes {len(aug.function_type.params)} "
                                 f"arguments, but the call needs {len(args)} (each dup pointer "
                                 "is followed by its shadow)")
        if isinstance(call, I.Invoke):  # (inside C++ `try`): the same edges
            tape = at.insert(I.Invoke(aug.function_type, aug, args, call.normal, call.unwind),
                             name="tape")
        else:
            tape = at.call(aug, args, name="tape")
        assert call.parent is not None
        call.parent.remove(call)
    _call_gradient(tr, call, acts, custom.reverse, custom.reverse.function_type, with_seed,
                   tape)


def _custom_jvp_call(tr: ReverseTransform, call: I.Call, rule) -> None:
    """Reverse mode through a Python `custom_jvp` rule, as JAX does it: the rule's tangent
    output is linear in the input tangents, so the adjoints of the arguments are the gradient
    of `seed * tangent_out` with respect to the input tangents. The front end registers that
    tangent function (`rule.tangent`: `f`'s arguments, each float followed by its tangent and
    each pointer by its tangent array); its gradient is generated here like a callee's, with
    the primal arguments const and each array's shadow standing in for its tangent array."""
    g = rule.tangent
    if g is None:
        raise tr.error(call, f"@{call.callee_name} has a forward-mode rule only; reverse "
                             "mode needs a custom_vjp rule (or a tangent function)")
    _check_arrays_kept(tr, call, "the reverse of its custom_jvp rule")
    acts: list[str] = []
    args: list[Value] = []
    for a in call.args:
        value = tr.tape.lookup(a)
        acts.append("const")
        args.append(value)
        if a.type.is_pointer:
            if tr.activity.touches_shadow(a):
                acts.append("dup")
                args.extend([value, tr.reverse_shadow(a)])
            else:
                acts.append("const")
                args.append(value)
        elif a.type.is_float:
            acts.append("out")
            args.append(zero(a.type))  # the tangent's value does not matter (linear)
    ret_active = tr.is_active(call)
    grad, grad_type = tr.callee_gradient(g, acts, ret_active)
    if ret_active:
        args.append(tr.take_adjoint(call))
    result = tr.b.call(grad, args, function_type=grad_type)
    outs = [a for a in call.args if a.type.is_float]
    if not ret_active or not outs:
        return
    if len(outs) == 1:
        tr.add_adjoint(outs[0], result)
    else:
        for k, a in enumerate(outs):
            tr.add_adjoint(a, tr.b.extractvalue(result, [k]))


def _check_arrays_kept(tr: ReverseTransform, call: I.Call, what: str) -> None:
    """The reverse sweep hands a rule the pointer arguments as they are then: memory written
    after the call (a later statement, or the call again in a loop) would feed the rule other
    values than the call saw, so that is an error rather than a wrong gradient."""
    w = write_after(tr, call)
    if w is not None:
        raise tr.error(call, f"{what} reads array arguments in the reverse sweep, but "
                             f"this function writes that memory after the call ({w.opcode}); "
                             "pass a copy that stays unchanged")


def write_after(tr: ReverseTransform, call: I.Call) -> I.Instruction | None:
    """A write of this function that may change memory the pointer arguments of `call` reach
    and that can run after the call (later in its block, in a block reachable from it, or the
    call itself again in a loop); None when there is none."""
    from enzyme_py.analysis.memory import may_alias, underlying

    objs = [underlying(a) for a in call.args if a.type.is_pointer]
    if not objs:
        return None
    block = call.parent
    assert block is not None
    later: set[I.Instruction] = set(block.instructions[block.instructions.index(call) + 1:])
    seen: set = set()
    work = list(block.successors())
    while work:
        b = work.pop()
        if b in seen:
            continue
        seen.add(b)
        later.update(b.instructions)
        work.extend(b.successors())
    if tr.effects.writes_unknown_call:
        return call  # some call writes memory we cannot name
    for w, wobjs in tr.effects.writes:
        if w in later and any(may_alias(o, wobjs) for o in objs):
            return w
    return None


def _by_rule(tr: ReverseTransform, inst: I.Instruction) -> None:
    key = rule_key(inst)
    rule = lookup(key) if key else None
    if rule is None:
        raise tr.error(inst, f"no derivative rule for '{key}'; add one in "
                             f"enzyme_py/rules/ ({RULE_FILES})")
    ctx = ReverseContext(tr, inst)
    d = tr.take_adjoint(inst)
    partials = rule.partials(ctx)
    ops = diff_operands(inst)
    if len(partials) != len(ops):
        raise tr.error(inst, f"rule {rule.where} gives {len(partials)} partials for "
                             f"{len(ops)} operands")
    guard = tr.select_guards().get(inst)  # see `analysis.speculation`
    for op, partial in zip(ops, partials, strict=True):
        if partial is None or isinstance(op, Constant) or not tr.is_active(op):
            continue
        contribution = partial.reverse(d) if isinstance(partial, Linear) else partial(d)
        if guard is not None and not isinstance(partial, Linear):
            cond = tr.tape.lookup(guard[0])
            kept, dropped = (contribution, zero(contribution.type)) if guard[1] else \
                (zero(contribution.type), contribution)
            contribution = tr.b.select(cond, kept, dropped)
        tr.add_adjoint(op, contribution)


def _load(tr: ReverseTransform, inst: I.Load) -> None:
    d = tr.take_adjoint(inst)
    b = tr.b
    sp = tr.reverse_shadow(inst.pointer)
    old = b.load(inst.type, sp, inst.align)
    b.store(_add(b, old, d), sp, inst.align)


def _add(b: Builder, a: Value, x: Value) -> Value:
    from enzyme_py.ad.reverse import add_values

    return add_values(b, a, x)


def _store(tr: ReverseTransform, inst: I.Store) -> None:
    value, ptr = inst.operands
    if not carries_float(value.type) or not tr.activity.touches_shadow(ptr):
        if isinstance(value.type, T.IntType) and tr.activity.touches_shadow(ptr) and \
                isinstance(value, I.Load) and tr.activity.touches_shadow(value.pointer):
            raise tr.error(inst, "active memory is copied as integers and nothing in the "
                                 "function tells which floating point type it holds; the "
                                 "derivative would be lost (access the data with its float "
                                 "type, e.g. compile without turning the copy into integers)")
        return
    b = tr.b
    sp = tr.reverse_shadow(ptr)
    if tr.is_active(value):
        d = b.load(value.type, sp, inst.align)
        b.store(zero(value.type), sp, inst.align)
        tr.add_adjoint(value, d)
    else:
        b.store(zero(value.type), sp, inst.align)


def _memory_call(tr: ReverseTransform, call: I.Call, name: str) -> None:
    from enzyme_py.ad.runtime import copy_adjoint_function, move_adjoint_function

    dst = call.args[0]
    if not tr.activity.touches_shadow(dst):
        return
    b = tr.b
    size = tr.tape.lookup(call.args[2])
    if size.type != T.I64:
        size = b.zext(size, T.I64)
    dshadow = tr.reverse_shadow(dst)
    src = call.args[1]
    if not name.startswith("llvm.memset") and tr.activity.touches_shadow(src):
        elem = _memory_float_type(tr, call)
        helper = (move_adjoint_function if name.startswith("llvm.memmove")
                  else copy_adjoint_function)(tr.module, elem)
        b.call(helper, [dshadow, tr.reverse_shadow(src), size])
        return
    memset = tr.runtime_decl("llvm.memset.p0.i64",
                             T.FunctionType(T.VOID, (T.PTR, T.I8, T.I64, T.I1)))
    b.call(memset, [dshadow, ConstantInt(T.I8, 0), size, ConstantInt(T.I1, 0)])


def _memory_float_type(tr: ReverseTransform, call: I.Call) -> str:
    """The float type held by the memory a memcpy moves."""
    kind = memory_float_kind(tr, [call.args[0], call.args[1]])
    if kind in ("double", "float", "half"):
        return kind
    seen = kind or "no typed access to this memory"
    raise tr.error(call, f"cannot tell which floating point type this copy moves ({seen}); "
                         "its adjoint needs the element type")


def memory_float_kind(tr: ReverseTransform, pointers: list[Value],
                      _seen: frozenset = frozenset()) -> str | None:
    """The one float type of the memory behind `pointers`, from the loads, stores and GEPs
    that touch it, the types of stack slots, or else what the caller said of an argument
    (`ReverseOptions.arg_float_types`), or else what the memory at the other end of a
    `memcpy`/`memmove` holds (a chain of copies: `y = x.copy(); z = y.copy()`); a
    comma-separated list when they disagree, None when nothing tells."""
    insts = [i for i in tr.work.instructions() if i in tr.original]
    same = tr.same_memory()
    objs: frozenset = frozenset()
    for p in pointers:
        objs |= same(p)
    kinds: set[str] = set()
    for inst in insts:
        if isinstance(inst, (I.Load, I.Store)) and same(inst.pointer) & objs:
            t = inst.type if isinstance(inst, I.Load) else inst.value.type
            if t.scalar.is_float or t.scalar.is_pointer:
                kinds.add(str(t.scalar))
        elif isinstance(inst, I.GetElementPtr) and same(inst) & objs:
            st = inst.source_type
            while isinstance(st, (T.ArrayType, T.VectorType)):
                st = st.element
            if st.is_float:
                kinds.add(str(st))
    for o in objs:
        if isinstance(o, I.Alloca):
            kinds |= _leaf_kinds(o.allocated_type)
    if not kinds:
        hints = tr.options.arg_float_types
        for o in objs:
            if isinstance(o, Argument) and o.parent is tr.work and o.index < len(hints) and \
                    hints[o.index]:
                kinds.add(hints[o.index])
    if not kinds and not objs & _seen:
        seen = _seen | objs
        for inst in insts:
            if isinstance(inst, I.Call) and (inst.callee_name or "").startswith(
                    ("llvm.memcpy", "llvm.memmove")):
                dest, src = inst.args[0], inst.args[1]
                other = src if same(dest) & objs else dest if same(src) & objs else None
                got = memory_float_kind(tr, [other], seen) if other is not None else None
                if got is not None:
                    kinds |= set(got.split(", "))
    if not kinds:
        return None
    return ", ".join(sorted(kinds))


def _leaf_kinds(t: T.Type) -> set[str]:
    if isinstance(t, (T.ArrayType, T.VectorType)):
        return _leaf_kinds(t.element)
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        out: set[str] = set()
        for e in T.struct_elements(t):
            out |= _leaf_kinds(e)
        return out
    return {str(t)} if t.is_float or t.is_pointer else set()


def _vector_op(tr: ReverseTransform, inst: I.VectorOp) -> None:
    b = tr.b
    d = tr.take_adjoint(inst)
    lookup_ = tr.tape.lookup
    if inst.opcode == "extractelement":
        vec, idx = inst.operands
        if tr.is_active(vec):
            tr.add_adjoint(vec, b.insertelement(zero(vec.type), d, lookup_(idx)))
    elif inst.opcode == "insertelement":
        vec, x, idx = inst.operands
        i = lookup_(idx)
        if tr.is_active(x):
            tr.add_adjoint(x, b.extractelement(d, i))
        if tr.is_active(vec):
            tr.add_adjoint(vec, b.insertelement(d, zero(x.type), i))
    else:  # shufflevector: route each result lane back to its source lane
        a, c, mask = inst.operands
        assert isinstance(a.type, T.VectorType)
        n = a.type.count
        lanes = _mask_lanes(mask, inst.type)
        acc: dict[int, Value] = {}
        for j, m in enumerate(lanes):
            if m is None:
                continue
            src = 0 if m < n else 1
            if not tr.is_active((a, c)[src]):
                continue
            lane = ConstantInt(T.I32, m if m < n else m - n)
            cur = acc.get(src, zero(a.type))
            e = b.extractelement(d, ConstantInt(T.I32, j))
            acc[src] = b.insertelement(cur, b.fadd(b.extractelement(cur, lane), e), lane)
        for src, value in acc.items():
            tr.add_adjoint((a, c)[src], value)


def _mask_lanes(mask: Value, ty: T.Type) -> list[int | None]:
    assert isinstance(ty, T.VectorType)
    if isinstance(mask, ConstantKeyword):
        return [0 if mask.keyword == "zeroinitializer" else None] * ty.count
    if isinstance(mask, ConstantAggregate):
        return [e.value if isinstance(e, ConstantInt) else None for e in mask.elements]
    from enzyme_py.ir.values import ConstantSplat

    if isinstance(mask, ConstantSplat) and isinstance(mask.element, ConstantInt):
        return [mask.element.value] * ty.count
    raise ValueError(f"unsupported shufflevector mask {mask.ref()}")


def _aggregate_op(tr: ReverseTransform, inst: I.AggregateOp) -> None:
    b = tr.b
    d = tr.take_adjoint(inst)
    if inst.opcode == "extractvalue":
        agg = inst.operands[0]
        if tr.is_active(agg):
            tr.add_adjoint(agg, b.insertvalue(zero(agg.type), d, inst.indices))
    else:
        agg, x = inst.operands
        if tr.is_active(x):
            tr.add_adjoint(x, b.extractvalue(d, inst.indices))
        if tr.is_active(agg):
            tr.add_adjoint(agg, b.insertvalue(d, zero(x.type), inst.indices))
