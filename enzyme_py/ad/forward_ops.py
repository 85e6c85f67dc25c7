"""The tangent of each instruction: built right after it, from its operands' tangents.

Invariants: rules come from the shared table (`rules.registry`) and are applied once per
direction (lane) with the primal values themselves as operands; a tangent is the sum of the
contributions `partial(tangent_operand)` (`Linear.forward` for non-elementwise maps), and an
inactive operand or a `None` partial contributes nothing; `select`, `phi`, vector and aggregate
instructions move tangents structurally (the same instruction on the tangents); memory
instructions on shadowed memory do the same on the shadows, so the shadow always holds the
tangent of the data; shadows are fetched before the builder is positioned (building a shadow
may insert code earlier in the same block).
"""

from __future__ import annotations

from enzyme_py.ad import names
from enzyme_py.ad.forward_state import ForwardState
from enzyme_py.ad.reverse_ops import MEMORY_FUNCTIONS, RULE_FILES, diff_operands
from enzyme_py.analysis import memory
from enzyme_py.analysis.activity import carries_float
from enzyme_py.analysis.globals import touches_globals
from enzyme_py.analysis.memory import ALLOCATION_FUNCTIONS, UNKNOWN, underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import Argument, ConstantInt, Value, zero
from enzyme_py.rules.inactive import is_known_inactive
from enzyme_py.rules.mathcalls import MathContextMixin
from enzyme_py.rules.registry import Linear, lookup, rule_key

# `analysis.memory` names the deallocation functions (the plain C/C++ ones until it does).
DEALLOCATION_FUNCTIONS: frozenset[str] = getattr(
    memory, "DEALLOCATION_FUNCTIONS", frozenset({"free", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm"}))


class ForwardContext(MathContextMixin):
    """`RuleContext` for forward mode: primal values are the instruction's own operands.

    Math calls are shared between the directions (a partial is applied once per lane, and
    `cos(x)` should be computed once, not k times).
    """

    def __init__(self, tr: ForwardState, inst: I.Instruction) -> None:
        self.tr = tr
        self.inst = inst
        self.builder: Builder = tr.b
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


def forward_instruction(tr: ForwardState, inst: I.Instruction) -> None:
    if isinstance(inst, I.Invoke):
        _invoke(tr, inst)
        return
    if isinstance(inst, I.Store):
        _store(tr, inst)
        return
    if isinstance(inst, I.Call):
        name = inst.callee_name or ""
        if name in ALLOCATION_FUNCTIONS:
            return  # the shadow is made when the memory is first used (shadow.py)
        if name in DEALLOCATION_FUNCTIONS:
            _free(tr, inst)
            return
        if name.startswith(MEMORY_FUNCTIONS):
            _memory_call(tr, inst, name)
            return
        if name.startswith(MASKED_MEMORY):
            _masked_memory(tr, inst, name)
            return
        if _call_needs_no_rule(tr, inst, name):
            return
    if not tr.is_active(inst):
        if isinstance(inst, (I.AtomicRMW, I.CmpXchg)) and tr.activity.touches_shadow(
                inst.operands[0]):
            raise tr.error(inst, "atomic updates of active memory are not supported")
        return
    if isinstance(inst, I.Load):
        _load(tr, inst)
    elif isinstance(inst, (I.VectorOp, I.AggregateOp, I.Select)):
        _structural(tr, inst)
    else:
        _by_rule(tr, inst)


def _invoke(tr: ForwardState, inst: I.Invoke) -> None:
    """An `invoke` (a call that may throw) needs no tangent code when it neither returns an
    active value nor sees active memory; tangent code after one is not supported yet."""
    name = inst.callee_name or ""
    if name and (is_known_inactive(name) or name in tr.registrations.inactive):
        return
    if tr.is_active(inst) or any(
            a.type.is_pointer and tr.activity.touches_shadow(a) for a in inst.args):
        callee = inst.callee
        if isinstance(callee, Function) and not callee.is_declaration and \
                name not in tr.registrations.forward and not inst.type.is_pointer:
            _defined_call(tr, inst, callee)  # invokes the callee's derivative instead
            return
        raise tr.error(inst, "an 'invoke' (a call that may throw) of a function without a "
                             "body, or returning a pointer, that carries derivatives is not "
                             "supported in forward mode yet")


def _call_needs_no_rule(tr: ForwardState, call: I.Call, name: str) -> bool:
    """True when the call needs no tangent code; raises for calls we cannot handle
    (the messages of reverse mode)."""
    if name and (is_known_inactive(name) or name in tr.registrations.inactive):
        return True
    rule = tr.registrations.forward.get(name) if name else None
    if rule is not None:
        if tr.is_active(call) or any(a.type.is_pointer and tr.activity.touches_shadow(a)
                                     for a in call.args):
            _custom_call(tr, call, rule)
        return True
    if name and tr.registrations.python_rule(name) == "custom_vjp":
        raise tr.error(call, f"@{name} has a custom_vjp rule, which forward mode cannot use "
                             "(as in JAX); give it a custom_jvp rule for forward mode")
    if name and lookup(name) is not None:
        return False
    callee = tr.module.symbols.get(name) if name else None
    returns_shadowed = call.type.is_pointer and tr.activity.touches_shadow(call)
    if isinstance(callee, Function) and not callee.is_declaration and call.type.is_pointer \
            and not returns_shadowed:
        _check_returned_pointer(tr, call, callee)
    writes_active = any(a.type.is_pointer and tr.activity.touches_shadow(a) for a in call.args)
    shares = isinstance(callee, Function) and not callee.is_declaration and \
        touches_globals(callee, tr.shared_globals)  # it may move active data there
    if not (writes_active or tr.is_active(call) or returns_shadowed or shares):
        return True
    if isinstance(callee, Function) and not callee.is_declaration:
        _defined_call(tr, call, callee)
        return True
    what = f"@{name}" if name else "an indirect call"
    raise tr.error(call, f"{what} has no derivative rule and no body; add a rule in "
                         f"{RULE_FILES}, or declare it inactive with __enzyme_inactivefn")


# --- rules -------------------------------------------------------------------------------------


def _by_rule(tr: ForwardState, inst: I.Instruction) -> None:
    key = rule_key(inst)
    rule = lookup(key) if key else None
    if rule is None:
        raise tr.error(inst, f"no derivative rule for '{key}'; add one in "
                             f"enzyme_py/rules/ ({RULE_FILES})")
    ops = diff_operands(inst)
    tangents = [tr.tangent(op) for op in ops]
    tr.b.position_after_def(inst)
    ctx = ForwardContext(tr, inst)
    partials = rule.partials(ctx)
    if len(partials) != len(ops):
        raise tr.error(inst, f"rule {rule.where} gives {len(partials)} partials for "
                             f"{len(ops)} operands")
    used = [(p, t) for p, t in zip(partials, tangents, strict=True)
            if p is not None and t is not None]
    if not used:
        tr.set_tangent(inst, (zero(inst.type),) * tr.width)
        return
    lanes = []
    for j in range(tr.width):
        total: Value | None = None
        for partial, t in used:
            c = partial.forward(t[j]) if isinstance(partial, Linear) else partial(t[j])
            total = c if total is None else tr.b.fadd(total, c)
        assert total is not None
        lanes.append(total)
    tr.set_tangent(inst, tuple(lanes))


def _structural(tr: ForwardState, inst: I.Instruction) -> None:
    """The same instruction on the tangents (indices, masks and conditions stay primal)."""
    ops = inst.operands
    float_ops = _tangent_operands(inst)
    tangents = {i: tr.tangent(ops[i]) for i in float_ops}
    if all(t is None for t in tangents.values()):
        tr.set_tangent(inst, (zero(inst.type),) * tr.width)
        return
    b = tr.b.position_after_def(inst)
    lanes = []
    for j in range(tr.width):
        new = clone_instruction(inst, {}, {})
        new.name = None
        new.type = inst.type
        for i in float_ops:
            t = tangents[i]
            new.operands[i] = t[j] if t is not None else zero(ops[i].type)
        lanes.append(b.insert(new))
    tr.set_tangent(inst, tuple(lanes))


def _tangent_operands(inst: I.Instruction) -> list[int]:
    """Operand positions that carry tangents in a structural instruction."""
    if isinstance(inst, I.Select):
        return [1, 2]
    if inst.opcode in ("extractelement", "extractvalue"):
        return [0]
    if inst.opcode in ("insertelement", "insertvalue", "shufflevector"):
        return [0, 1]
    raise AssertionError(inst.opcode)


# --- memory ------------------------------------------------------------------------------------


def _load(tr: ForwardState, inst: I.Load) -> None:
    shadows = tr.shadows(inst.pointer)
    b = tr.b.position_after_def(inst)
    lanes = []
    for sp in shadows:
        t = b.load(inst.type, sp, inst.align)
        t.flags = inst.flags
        lanes.append(t)
    tr.set_tangent(inst, tuple(lanes))


def _store(tr: ForwardState, inst: I.Store) -> None:
    value, ptr = inst.operands
    if value.type.is_pointer and tr.activity.touches_shadow(ptr):
        _store_pointer(tr, inst)
        return
    if not carries_float(value.type) or not tr.activity.touches_shadow(ptr):
        if isinstance(value.type, T.IntType) and tr.activity.touches_shadow(ptr) and \
                isinstance(value, I.Load) and tr.activity.touches_shadow(value.pointer):
            raise tr.error(inst, "active memory is copied as integers and nothing in the "
                                 "function tells which floating point type it holds; the "
                                 "derivative would be lost (access the data with its float "
                                 "type, e.g. compile without turning the copy into integers)")
        return
    shadows = tr.shadows(ptr)
    tangents = tr.tangent_or_zero(value)
    b = tr.b.position_after_def(inst)
    for sp, t in zip(shadows, tangents, strict=True):
        s = b.store(t, sp, inst.align)
        s.flags = inst.flags


def _store_pointer(tr: ForwardState, inst: I.Store) -> None:
    """A pointer stored into shadowed memory: its shadow goes to the same place in the
    shadow, so that loading it back finds the shadow of what it points to."""
    value, ptr = inst.operands
    objs = underlying(value)
    if not objs:
        return  # null
    if not objs <= tr.activity.shadowed:
        if any(o in tr.activity.varied for o in objs):
            raise tr.error(inst, "stores a pointer to active memory that has no shadow into "
                                 "shadowed memory")
        return  # a pointer to inactive memory: its shadow slot is never used
    values, slots = tr.shadows(value), tr.shadows(ptr)
    b = tr.b.position_after_def(inst)
    for v, sp in zip(values, slots, strict=True):
        b.store(v, sp, inst.align)


def _memory_call(tr: ForwardState, call: I.Call, name: str) -> None:
    """memcpy/memmove/memset into shadowed memory: the same on the shadows (a copy from
    memory without a shadow, or a memset, leaves zero tangents)."""
    dst, src = call.args[0], call.args[1]
    if not tr.activity.touches_shadow(dst):
        return
    copies = not name.startswith("llvm.memset") and tr.activity.touches_shadow(src)
    dshadows = tr.shadows(dst)
    sshadows = tr.shadows(src) if copies else (None,) * tr.width
    b = tr.b.position_after_def(call)
    for ds, ss in zip(dshadows, sshadows, strict=True):
        if ss is not None:
            new = clone_instruction(call, {}, {})
            new.name = None
            new.operands[0], new.operands[1] = ds, ss
            b.insert(new)
            continue
        size = call.args[2]
        memset = tr.module.declare_function(
            f"llvm.memset.p0.{size.type}", T.FunctionType(T.VOID, (T.PTR, T.I8, size.type, T.I1)))
        b.call(memset, [ds, ConstantInt(T.I8, 0), size, ConstantInt(T.I1, 0)])


MASKED_MEMORY = ("llvm.masked.load.", "llvm.masked.store.")


def _masked_memory(tr: ForwardState, call: I.Call, name: str) -> None:
    """Masked vector loads and stores (the loop vectorizer's tail handling): the same
    intrinsic on the shadows, with the same mask; a masked load's pass-through lanes take the
    pass-through operand's tangent."""
    is_load = name.startswith("llvm.masked.load.")
    ptr = call.args[0] if is_load else call.args[1]
    if not carries_float(call.type if is_load else call.args[0].type) or \
            not tr.activity.touches_shadow(ptr):
        return
    shadows = tr.shadows(ptr)
    other = tr.tangent_or_zero(call.args[2] if is_load else call.args[0])
    b = tr.b.position_after_def(call)
    lanes = []
    for sp, t in zip(shadows, other, strict=True):
        new = clone_instruction(call, {}, {})
        new.name = None
        if is_load:
            new.operands[0], new.operands[2] = sp, t
        else:
            new.operands[0], new.operands[1] = t, sp
        b.insert(new)
        lanes.append(new)
    if is_load:
        tr.set_tangent(call, tuple(lanes))


def _free(tr: ForwardState, call: I.Call) -> None:
    """Freeing shadowed heap memory frees its shadow too: memory allocated here or returned
    by a callee's derivative (its shadow is the `calloc` made for it), or reached through a
    pointer loaded from shadowed memory (its shadow is the pointer at the same place in the
    shadow, which the pointer stores mirrored there: null when the primal pointer led to
    memory without a shadow), or, in a callee's derivative, passed in by the caller (whose
    shadow the caller's derivative made alongside the memory)."""
    p = call.args[0]
    objs = underlying(p)
    if not objs or not objs <= tr.activity.shadowed or not all(
            isinstance(o, I.Load) or memory.is_heap_object(o) or
            (isinstance(o, Argument) and tr.options.callee) for o in objs):
        return
    shadows = tr.shadows(p)
    b = tr.b.position_after_def(call)
    for sp in shadows:
        new = clone_instruction(call, {}, {})
        new.name = None
        new.operands[0] = sp
        b.insert(new)


# --- calls to functions of the module ----------------------------------------------------------


def _custom_call(tr: ForwardState, call: I.Call, rule) -> None:
    """A registered forward rule (`__enzyme_register_derivative_NAME`): call it with each
    float argument's tangent and each `dup` pointer's shadow after the argument, and take
    `{primal, tangent}` from its result. A Python rule takes them after every float and pointer
    argument (0.0 and null when there are none)."""
    g = rule.derivative
    if tr.width != 1:
        raise tr.error(call, f"@{call.callee_name} has a custom forward rule, which takes one "
                             "tangent; vector mode (width > 1) cannot call it")
    args: list[Value] = []
    for a in call.args:
        args.append(a)
        if a.type.is_pointer:
            if tr.activity.touches_shadow(a):
                args.append(tr.shadows(a)[0])
            elif rule.every_shadow:
                args.append(zero(T.PTR))
        elif carries_float(a.type):
            t = tr.tangent(a)
            args.append(t[0] if t is not None else zero(a.type))
    if len(args) != len(g.function_type.params):
        raise tr.error(call, f"@{g.name} takes {len(g.function_type.params)} arguments, but the "
                             f"call needs {len(args)} (each float and dup pointer is followed by "
                             "its tangent)")
    b = tr.b.position_before(call)
    new = b.call(g, args)
    fn = call.function
    assert fn is not None and call.parent is not None
    if carries_float(call.type):
        primal = b.extractvalue(new, [0], name=call.name)
        t = b.extractvalue(new, [1])
        fn.replace_all_uses(call, primal)
        tr.set_tangent(primal, (t,))
        tr.tangents[call] = (t,)
        call.parent.remove(call)
    elif call.type.is_void:  # the rule computes what f writes as well as its tangents
        call.parent.remove(call)


def _defined_call(tr: ForwardState, call: I.Call, g: Function) -> None:
    """A call LLVM could not inline (recursion): call `g`'s own forward derivative, with the
    shadows of pointer arguments into active memory and the tangents of active floats."""
    returns_shadowed = call.type.is_pointer and tr.activity.touches_shadow(call)
    slot = tr.returned_shadow_slots.get(call)
    acts: list[str] = []
    more: list[tuple[Value, ...]] = []
    for i, a in enumerate(call.args):
        t = tr.tangent(a) if carries_float(a.type) else None
        if a.type.is_pointer and tr.activity.touches_shadow(a):
            acts.append("dup")
            more.append(tr.shadows(a))
            continue
        if a.type.is_pointer and _writes_through(g, i, set()):
            raise tr.error(call, f"@{g.name} may write memory through argument {i}, which "
                                 "has no shadow, and could not be inlined (is it recursive?); "
                                 "such calls are not supported yet")
        acts.append("dup" if t is not None else "const")
        more.append(t or ())
    returns_float = carries_float(call.type)
    if returns_float and "dup" in acts and call in tr.activity.useful and \
            call not in tr.activity.varied:
        raise tr.error(call, f"@{g.name} reads active memory and could not be inlined (is it "
                             "recursive?); its result's derivative cannot be followed yet")
    fwd, ftype = tr.callee_derivative(g, acts, return_shadow=returns_shadowed)
    args: list[Value] = []
    for a, extra in zip(call.args, more, strict=True):
        args.append(a)
        args.extend(extra)
    if slot is not None:
        # The call keeps its identity (the analyses know what memory it returns); it is
        # pointed at the derivative once the sweep is done.
        tr.pending_calls.append((call, fwd, ftype, [*args, slot]))
        return
    b = tr.b.position_before(call)
    if isinstance(call, I.Invoke):  # results exist past the normal edge (a block of its own)
        new = b.insert(I.Invoke(ftype, fwd, args, call.normal, call.unwind))
        b = tr.b.position_after_phis(call.normal)
    else:
        new = b.call(fwd, args, function_type=ftype)
    fn = call.function
    assert fn is not None and call.parent is not None
    if returns_float:
        primal = b.extractvalue(new, [0], name=call.name)
        t = b.extractvalue(new, [1])
        lanes = (t,) if tr.width == 1 else tuple(
            b.extractvalue(t, [j]) for j in range(tr.width))
        fn.replace_all_uses(call, primal)
        tr.set_tangent(primal, lanes)
        tr.tangents[call] = lanes
    elif not call.type.is_void:
        new.name = call.name
        fn.replace_all_uses(call, new)
    call.parent.remove(call)


def prepare_returned_shadows(tr: ForwardState) -> None:
    """Before the sweep: the shadows of pointers returned by defined callees exist before
    anything asks for them (a loop phi's shadow may lead to a call later in the loop)."""
    for inst in list(tr.work.instructions()):
        if isinstance(inst, I.Call) and inst.type.is_pointer and \
                isinstance(inst.callee, Function) and not inst.callee.is_declaration and \
                tr.activity.touches_shadow(inst) and inst.callee_name not in \
                tr.registrations.inactive and inst.callee_name not in tr.registrations.forward:
            tr.returned_shadow_slots[inst] = _returned_shadow_slot(tr, inst)


def _returned_shadow_slot(tr: ForwardState, call: I.Call) -> Value:
    """A callee returning memory this function differentiates through: its derivative returns
    the pointer and writes the memory's shadows (one per direction) to a slot, read back after
    the call as the call's shadows."""
    if isinstance(call, I.Invoke):
        raise tr.error(call, "an invoke of a function returning memory with a shadow is not "
                             "supported yet")
    at = Builder().position_before(tr.alloca_block.instructions[-1])
    slot = at.alloca(T.ArrayType(tr.width, T.PTR), name=names.shadow(call) + ".slot")
    after = Builder().position_after_def(call)
    for j, lane in enumerate(tr.lanes):
        ptr = slot if j == 0 else after.getelementptr(T.PTR, slot, [ConstantInt(T.I64, j)])
        lane.shadows[call] = after.load(T.PTR, ptr, 8, name=names.shadow(call))
    return slot


def _check_returned_pointer(tr: ForwardState, call: I.Call, g: Function) -> None:
    """A pointer returned by a call that could not be inlined leads to memory the activity
    analysis cannot name, so the tangents of what `g` stored there would read as zero. When
    `g` sees active data and the pointer is used for more than freeing or comparing, that
    would be a wrong derivative: raise instead."""
    varied = tr.activity.varied
    if not any(a in varied or (a.type.is_pointer and underlying(a) & varied)
               for a in call.args):
        return
    user = _first_reading_use(call)
    if user is None:
        return
    raise tr.error(call, f"@{g.name} returns a pointer and could not be inlined (is it "
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


def _writes_through(g: Function, index: int, seen: set[tuple[str, int]]) -> bool:
    """May `g` write memory through its pointer argument `index` (directly, or through the
    functions it passes the pointer to)? Calls already being asked about count as no: a
    write has to happen somewhere, so recursion alone never writes."""
    if (g.name or "", index) in seen:
        return False
    seen.add((g.name or "", index))
    arg = g.args[index]

    def reaches(p: Value) -> bool:
        objs = underlying(p)
        return arg in objs or UNKNOWN in objs

    for inst in g.instructions():
        if isinstance(inst, I.Store) and reaches(inst.pointer):
            return True
        if isinstance(inst, (I.AtomicRMW, I.CmpXchg)) and reaches(inst.operands[0]):
            return True
        if not isinstance(inst, I.Call):
            continue
        name = inst.callee_name or ""
        if name.startswith(MEMORY_FUNCTIONS):
            if reaches(inst.args[0]):
                return True
            continue
        if name and (is_known_inactive(name) or lookup(name) is not None or
                     name in memory.NON_WRITING_CALLS):
            continue
        for k, a in enumerate(inst.args):
            if not (a.type.is_pointer and reaches(a)):
                continue
            callee = inst.callee
            if not isinstance(callee, Function) or callee.is_declaration or \
                    k >= len(callee.args) or _writes_through(callee, k, seen):
                return True
    return False
