"""Indirect calls whose target is known after optimization become direct calls.

A C++ virtual call on a local object, or a `std::function` built in the differentiated
function, is an indirect call through a pointer that the inlined constructor stored into
local memory. LLVM cannot forward that store to the load while the (indirect) call itself may
write the object. We guess the possible targets — the functions whose addresses reach the
callee operand through stores, loads and constant tables (vtables) — and guard each guess:

    %is.f = icmp eq ptr %fp, @f        ; one test per candidate, in order
    br i1 %is.f, label %direct.f, label %next
    direct.f:  %r.f = call @f(...)      ; inlined afterwards
    fallback:  %r.0 = call %fp(...)     ; the original indirect call, kept

After the candidates are inlined, `remove_dead_fallbacks` proves (with
`analysis.stored_pointers`) that the pointer is always one of the tested functions, and makes
the fallback `unreachable`; LLVM then folds the tests away. The proof is joint, by induction
over the run: every fallback in the claimed set is assumed not to run while the stores that
reach each callee load are collected, and a fallback whose pointer may be anything else is
dropped from the set until the set is stable.

Invariants: the rewrite never changes what the program computes (each direct call runs only
when the pointer equals its target; anything else still takes the original indirect call), so
a wrong guess costs code, never a wrong gradient; a fallback is removed only when proven
dead. Guesses also read the initializer of a global that no code of the module writes; in a
derivative's copy only (`trap_unchanged_global_fallbacks`), the fallback of such a guess,
which only another file changing the global could reach, aborts. An indirect call that
stays on an active path is reported by the reverse transform as before. `invoke`s are left
alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from enzyme_py.analysis.memory import ALLOCATION_FUNCTIONS
from enzyme_py.analysis.stored_pointers import (
    PointerValues,
    constant_offset,
    constant_pointer_at,
    gep_parts,
    never_written,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.dominance import predecessors
from enzyme_py.ir.layout import alloc_size, field_offset
from enzyme_py.ir.module import Block, Function, GlobalVariable, Module
from enzyme_py.ir.values import (
    Argument,
    ConstantAggregate,
    ConstantExpr,
    ConstantInt,
    ConstantKeyword,
    Value,
)

MAX_DEPTH = 12  # loads followed through memory (pointer -> vtable -> slot is 2)
MAX_CANDIDATES = 8  # more guesses than this: leave the call indirect

Location = tuple[Value, int | None]  # (memory object, byte offset or None for "anywhere")


def devirtualize(functions: Iterable[Function]) -> int:
    """Guard every indirect `call` in `functions` that has known candidate targets; returns
    how many calls were rewritten."""
    count = 0
    for fn in functions:
        if fn.is_declaration:
            continue
        calls = [i for i in fn.instructions() if type(i) is I.Call and
                 not isinstance(i.callee, Function) and not _is_fallback(i)]
        if not calls:
            continue
        finder = TargetFinder(fn)
        for call in calls:
            targets = finder.targets(call)
            if targets and len(targets) <= MAX_CANDIDATES:
                split_indirect_call(call, targets)
                count += 1
    return count


def direct_callees(fn: Function) -> set[Function]:
    """Defined functions called directly from `fn`."""
    return {i.callee for i in fn.instructions() if isinstance(i, I.Call) and
            isinstance(i.callee, Function) and not i.callee.is_declaration}


class TargetFinder:
    """Where pointers of one function may point: (object, offset) pairs, followed through
    GEPs with constant indices, casts, phis, selects, the stores of this function, and the
    initializers of constant globals. A guess only: nothing here needs to be complete."""

    def __init__(self, fn: Function) -> None:
        self.stores = [i for i in fn.instructions()
                       if isinstance(i, I.Store) and i.value.type.is_pointer]
        self._memo: dict[Value, frozenset[Location]] = {}

    def targets(self, call: I.Call) -> list[Function]:
        """Functions the callee of `call` may be, with the call's type, in a stable order."""
        found = {obj for obj, off in self.locations(call.callee, 0) if off == 0 and
                 isinstance(obj, Function) and _same_type(obj, call.function_type)}
        return sorted(found, key=lambda f: f.name or "")

    def locations(self, p: Value, depth: int) -> frozenset[Location]:
        got = self._memo.get(p)
        if got is not None:
            return got
        self._memo[p] = frozenset()  # cycles (phis, loads of what is stored) end here
        out = frozenset(self._locations(p, depth))
        self._memo[p] = out
        return out

    def _locations(self, p: Value, depth: int) -> set[Location]:
        if isinstance(p, (Function, GlobalVariable, Argument, I.Alloca)) or \
                (isinstance(p, I.Call) and p.callee_name in ALLOCATION_FUNCTIONS):
            return {(p, 0)}
        if isinstance(p, (I.GetElementPtr, ConstantExpr)) and _is_gep(p):
            base, source, indices = gep_parts(p)
            delta = constant_offset(source, indices)
            return {(obj, None if off is None or delta is None else off + delta)
                    for obj, off in self.locations(base, depth)}
        if (isinstance(p, I.Cast) and p.opcode in ("bitcast", "addrspacecast")) or \
                (isinstance(p, ConstantExpr) and p.opcode in ("bitcast", "addrspacecast")):
            base = p.operands[0] if isinstance(p, I.Cast) else p.ops[0]
            return set(self.locations(base, depth))
        if isinstance(p, I.Select):
            return set(self.locations(p.operands[1], depth) |
                       self.locations(p.operands[2], depth))
        if isinstance(p, I.Phi):
            out: set[Location] = set()
            for v in p.operands:
                out |= self.locations(v, depth)
            return out
        if isinstance(p, I.Load) and p.type.is_pointer and depth < MAX_DEPTH:
            out = set()
            for obj, off in self.locations(p.pointer, depth + 1):
                for v in self._stored_at(obj, off):
                    out |= self.locations(v, depth + 1)
            return out
        return set()

    def _stored_at(self, obj: Value, off: int | None) -> list[Value]:
        """Pointer values that may sit at (obj, off): stores of this function, and a constant
        global's initializer."""
        out: list[Value] = []
        if isinstance(obj, GlobalVariable) and obj.initializer is not None and \
                (obj.is_constant or never_written(obj)):
            out += constants_at(obj.initializer, obj.value_type, off)
        for st in self.stores:
            for o, o_off in self.locations(st.pointer, MAX_DEPTH):
                if o is obj and (off is None or o_off is None or o_off == off):
                    out.append(st.value)
        return out


def constants_at(c: Value, ty: T.Type, off: int | None) -> list[Value]:
    """The pointer constants at byte `off` of constant `c` (all of them for None); a guess."""
    if ty.is_pointer:
        return [c] if off in (0, None) else []
    if not isinstance(c, ConstantAggregate):
        return []  # zeroinitializer, strings, numbers: no pointers to follow
    out: list[Value] = []
    for k, e in enumerate(c.elements):
        if isinstance(ty, (T.StructType, T.IdentifiedStructType)):
            et, start = T.struct_elements(ty)[k], field_offset(ty, k)
        elif isinstance(ty, (T.ArrayType, T.VectorType)):
            et = ty.element
            start = k * alloc_size(et)
        else:
            return out
        if off is None:
            out += constants_at(e, et, None)
        elif start <= off < start + alloc_size(et):
            return constants_at(e, et, off - start)
    return out


def split_indirect_call(call: I.Call, targets: list[Function]) -> None:
    """Replace `call` by tests of its callee against `targets`, each calling one directly,
    and the original call as the fallback; the results meet in a phi."""
    block = call.parent
    assert block is not None and block.parent is not None
    fn = block.parent
    at = block.instructions.index(call)
    join = _new_block(fn, block, "devirt.join")
    for inst in block.instructions[at + 1:]:
        block.remove(inst)
        join.append(inst)
    for succ in join.successors():
        for phi in succ.phis():
            phi.replace_block(block, join)
    block.remove(call)
    fallback = _new_block(fn, join, "devirt.indirect", before=True)
    fallback.append(call)
    fallback.append(I.Br([join]))
    results: list[tuple[Value, Block]] = []
    test_block = block
    for k, f in enumerate(targets):
        direct = _new_block(fn, fallback, "devirt.direct", before=True)
        new = clone_instruction(call, {}, {})
        new.operands[-1] = f
        direct.append(new)
        direct.append(I.Br([join]))
        results.append((new, direct))
        last = k == len(targets) - 1
        otherwise = fallback if last else _new_block(fn, fallback, "devirt.test", before=True)
        b = Builder().position_at_end(test_block)
        b.condbr(b.icmp("eq", call.callee, f, name="devirt.is"), direct, otherwise)
        test_block = otherwise
    results.append((call, fallback))
    if not call.type.is_void:
        phi = I.Phi(call.type, name=call.name)
        join.insert(0, phi)
        fn.replace_all_uses(call, phi)
        phi.operands = []
        for value, where in results:
            phi.add_incoming(value, where)
        call.name = None
        for value, _ in results:
            value.name = None


def _new_block(fn: Function, near: Block, name: str, before: bool = False) -> Block:
    block = Block(_unique_block_name(fn, name), fn)
    at = fn.blocks.index(near)
    fn.blocks.insert(at if before else at + 1, block)
    return block


def _unique_block_name(fn: Function, base: str) -> str:
    taken = {b.name for b in fn.blocks}
    k = 0
    while f"{base}{k}" in taken:
        k += 1
    return f"{base}{k}"


def _is_fallback(call: I.Call) -> bool:
    """The call is already the fallback of a guard `icmp eq ptr <callee>, @f`."""
    fn = call.function
    return fn is not None and bool(excluded_targets(call, predecessors(fn)))


def excluded_targets(call: I.Call, preds: dict[Block, list[Block]]) -> frozenset[Function]:
    """Functions the callee of `call` cannot be when the call runs: the block is reached
    only through edges taken when `callee != @f` (a chain of single predecessors)."""
    out: set[Function] = set()
    block = call.parent
    seen: set[Block] = set()
    while block is not None and block not in seen and len(preds.get(block, [])) == 1:
        seen.add(block)
        pred = preds[block][0]
        term = pred.terminator
        if isinstance(term, I.Br) and term.condition is not None and \
                term.targets[0] is not term.targets[1]:
            holds = term.targets[0] is block  # the condition's value on this edge
            for cmp in _implied(term.condition, holds):
                if call.callee in cmp.operands:
                    other = cmp.operands[1] if cmp.operands[0] is call.callee else \
                        cmp.operands[0]
                    if isinstance(other, Function):
                        out.add(other)
        block = pred
    return frozenset(out)


def _implied(cond: Value, value: bool) -> list[I.Compare]:
    """Pointer inequalities `icmp` that hold when `cond` has `value` (through `or` when
    false, `and` when true, and their `select` forms)."""
    if isinstance(cond, I.Compare) and cond.opcode == "icmp" and \
            cond.predicate == ("ne" if value else "eq"):
        return [cond]
    parts: list[Value] = []
    if isinstance(cond, I.Instruction) and cond.opcode == ("and" if value else "or"):
        parts = cond.operands
    elif isinstance(cond, I.Select) and isinstance(
            cond.operands[2 if value else 1], ConstantInt) and \
            cond.operands[2 if value else 1].value in ((0,) if value else (1, -1)):  # type: ignore
        parts = [cond.operands[0], cond.operands[1 if value else 2]]
    return [c for p in parts for c in _implied(p, value)]


def remove_dead_fallbacks(functions: Iterable[Function]) -> int:
    """Make every fallback that provably never runs `unreachable`; returns how many."""
    count = 0
    for fn in functions:
        if fn.is_declaration:
            continue
        preds = predecessors(fn)
        guarded = {c: excluded_targets(c, preds) for c in fn.instructions()
                   if type(c) is I.Call and not isinstance(c.callee, Function)}
        claimed = {c for c, fs in guarded.items() if fs}
        changed = True
        while changed and claimed:
            changed = False
            values = PointerValues(fn, frozenset(claimed))
            for call in [c for c in guarded if c in claimed]:
                found = values.functions(call.callee)
                if found is None or not found <= guarded[call]:
                    claimed.discard(call)
                    changed = True
        for call in claimed:
            assert call.parent is not None
            _make_unreachable(fn, call.parent)
            count += 1
    return count


def trap_unchanged_global_fallbacks(module: Module, fn: Function) -> int:
    """In a derivative's copy `fn` only: the fallback of a guarded call whose pointer is
    loaded from a global that no code of the module writes (`never_written`), and whose
    initial value there is one of the tested functions, becomes `abort()`. Only another file
    changing the global could reach it; the derivative then stops instead of differentiating
    an unknown function (the primal keeps its fallback). Returns how many."""
    preds = predecessors(fn)
    count = 0
    for call in [c for c in fn.instructions() if type(c) is I.Call and
                 not isinstance(c.callee, Function)]:
        tested = excluded_targets(call, preds)
        slot = _global_slot(call.callee) if tested and isinstance(call.callee, I.Load) else None
        if slot is None:
            continue
        g, off = slot
        try:
            initial = constant_pointer_at(g.initializer, g.value_type, off)  # type: ignore[arg-type]
        except Exception:  # noqa: BLE001 (not readable there: leave the call)
            continue
        if len(initial) == 1 and initial[0] in tested and never_written(g):
            assert call.parent is not None
            block = call.parent
            _make_unreachable(fn, block)
            abort = module.declare_function("abort", T.FunctionType(T.VOID, ()))
            Builder().position_before(block.instructions[0]).call(abort, [])
            count += 1
    return count


def _global_slot(p: Value) -> tuple[GlobalVariable, int] | None:
    """(global, byte offset) when `p` is a load of a constant offset into a global."""
    assert isinstance(p, I.Load)
    q, off = p.pointer, 0
    while _is_gep(q):
        base, source, indices = gep_parts(q)
        step = constant_offset(source, indices)
        if step is None:
            return None
        q, off = base, off + step
    return (q, off) if isinstance(q, GlobalVariable) else None


def _make_unreachable(fn: Function, block: Block) -> None:
    for succ in block.successors():
        for phi in succ.phis():
            phi.remove_incoming(block)
    for inst in list(block.instructions):
        block.remove(inst)
        if not inst.type.is_void:
            fn.replace_all_uses(inst, ConstantKeyword(inst.type, "poison"))
    block.append(I.Unreachable())


def _is_gep(p: Value) -> bool:
    return isinstance(p, I.GetElementPtr) or \
        (isinstance(p, ConstantExpr) and p.opcode == "getelementptr")


def _same_type(f: Function, ftype: T.FunctionType) -> bool:
    return f.function_type == ftype
