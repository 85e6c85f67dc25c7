"""Shadow pointers in the forward sweep: for every pointer into active memory, the pointer to
the same place in its shadow.

Invariants: a shadow is built once per primal pointer, right after it (GEPs, casts, selects,
phis mirror the primal; an argument's shadow is the shadow argument; an alloca's shadow is a
zero-filled alloca of the same type; a heap allocation's, a zero-filled `calloc` the reverse
sweep frees; a pointer loaded from shadowed memory, the pointer loaded from the same place
in the shadow). A pointer that may point into memory without a shadow
raises `DifferentiationError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzyme_py.ad import names
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.memory import ALLOCATION_FUNCTIONS
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.module import GlobalVariable
from enzyme_py.ir.values import (
    Argument,
    ConstantExpr,
    ConstantInt,
    ConstantKeyword,
    Value,
    zero,
)

if TYPE_CHECKING:
    from enzyme_py.ad.reverse import ReverseTransform


def forward_shadow(tr: ReverseTransform, p: Value) -> Value:
    got = tr.shadows.get(p)
    if got is not None:
        return got
    shadow = _build(tr, p)
    tr.shadows[p] = shadow
    return shadow


def _build(tr: ReverseTransform, p: Value) -> Value:
    if isinstance(p, ConstantKeyword):  # null, undef, poison: the shadow is the same
        return p
    if isinstance(p, Argument):
        s = tr.shadow_args.get(p)
        if s is None:
            raise DifferentiationError(
                f"in @{tr.primal.name}: active data is read or written through argument "
                f"{p.index} ({p.type} %{p.name or p.index}), which is not 'dup': pass it as "
                "enzyme_dup with a shadow")
        return s
    if isinstance(p, I.Alloca):
        if p not in tr.activity.shadowed:
            raise tr.error(p, "this stack memory holds active data but has no shadow")
        return _shadow_alloca(tr, p)
    if isinstance(p, I.Load) and p.type.is_pointer:
        if p not in tr.activity.shadowed:
            raise tr.error(p, "this pointer leads to active data, but it was loaded from "
                              "memory without a shadow (pass that memory as dup)")
        new = I.Load("load", T.PTR, [forward_shadow(tr, p.pointer)], p.align,
                     name=names.shadow(p))
        return Builder().position_after_def(p).insert(new)
    if isinstance(p, I.Call) and p.callee_name in ALLOCATION_FUNCTIONS:
        if p not in tr.activity.shadowed:
            raise tr.error(p, "this heap memory holds active data but has no shadow")
        return _shadow_allocation(tr, p)
    if isinstance(p, (I.GetElementPtr, I.Cast)):
        new = clone_instruction(p, {}, {})
        new.operands[0] = forward_shadow(tr, p.operands[0])
        new.name = names.shadow(p)
        return Builder().position_after_def(p).insert(new)
    if isinstance(p, I.Select):
        new = clone_instruction(p, {}, {})
        new.operands[1] = forward_shadow(tr, p.operands[1])
        new.operands[2] = forward_shadow(tr, p.operands[2])
        new.name = names.shadow(p)
        return Builder().position_after_def(p).insert(new)
    if isinstance(p, I.Phi):
        phi = I.Phi(p.type, name=names.shadow(p))
        assert p.parent is not None
        p.parent.insert(p.parent.instructions.index(p) + 1, phi)
        tr.shadows[p] = phi  # before the incoming values: they may lead back here
        for v, blk in zip(p.operands, p.incoming_blocks, strict=True):
            phi.add_incoming(forward_shadow(tr, v), blk)
        return phi
    if isinstance(p, GlobalVariable) and p in tr.activity.shadowed:
        return _shadow_global(tr, p)
    if isinstance(p, ConstantExpr) and p.opcode in ("getelementptr", "bitcast",
                                                    "addrspacecast"):
        base = forward_shadow(tr, p.ops[0])
        return ConstantExpr(p.type, p.opcode, (base, *p.ops[1:]), p.flags, p.source_type,
                            p.extra) if isinstance(base, GlobalVariable) else \
            _gep_of_constant_expr(tr, p, base)
    if isinstance(p, I.Instruction):
        raise tr.error(p, "cannot follow this pointer to its shadow memory (pointers "
                          "returned by calls are not supported yet)")
    raise DifferentiationError(
        f"in @{tr.primal.name}: active data is accessed through {p.type} {p.ref()}, which "
        "has no shadow (global variables holding active data are not supported yet)")


def shadow_pointer_stores(tr: ReverseTransform) -> None:
    """A pointer stored into shadowed memory has its shadow stored at the same place in the
    shadow, so that loading it back finds the shadow of what it points to."""
    from enzyme_py.analysis.memory import underlying

    for inst in [i for i in tr.work.instructions() if i in tr.original]:
        if not (isinstance(inst, I.Store) and inst.value.type.is_pointer):
            continue
        if not tr.activity.touches_shadow(inst.pointer):
            continue
        objs = underlying(inst.value)
        if not objs:
            continue  # null
        if not objs <= tr.activity.shadowed:
            if any(o in tr.activity.varied for o in objs):
                raise tr.error(inst, "stores a pointer to active memory that has no shadow "
                                     "into shadowed memory")
            continue  # a pointer to inactive memory: its shadow slot is never used
        value_shadow = forward_shadow(tr, inst.value)
        slot_shadow = forward_shadow(tr, inst.pointer)
        at = Builder().position_after_def(inst)
        at.store(value_shadow, slot_shadow, inst.align)


def _shadow_global(tr: ReverseTransform, g: GlobalVariable) -> Value:
    """`@g.shadow`: an internal zero-filled global, one per global (and direction) in the
    module, shared by a derivative and its callees' derivatives. The outermost derivative
    clears it when it starts (the adjoint of a global's initial value is not an output); a
    callee's derivative must not, its caller's adjoints are already there."""
    module = tr.module
    lane = getattr(tr, "lane", 0)
    key = ("global shadow", g.name, lane)
    shadow = module.derived.get(key)
    if shadow is None:
        name = module.unique_name(names.shadow(g))
        shadow = GlobalVariable(name, g.value_type, zero(g.value_type))  # type: ignore[arg-type]
        shadow.prefix = ["internal"]
        shadow.suffix = [s for s in g.suffix if s.startswith("align ")]
        module.add_global(shadow)
        module.derived[key] = shadow
    if not getattr(tr, "is_callee", False):
        at = Builder().position_before(tr.alloca_block.instructions[-1])
        memset = tr.runtime_decl("llvm.memset.p0.i64",
                                 T.FunctionType(T.VOID, (T.PTR, T.I8, T.I64, T.I1)))
        at.call(memset, [shadow, ConstantInt(T.I8, 0),
                         ConstantInt(T.I64, alloc_size(g.value_type)), ConstantInt(T.I1, 0)])
    return shadow


def _gep_of_constant_expr(tr: ReverseTransform, p: ConstantExpr, base: Value) -> Value:
    raise DifferentiationError(f"in @{tr.primal.name}: cannot build the shadow of {p.ref()}")


def _shadow_allocation(tr: ReverseTransform, call: I.Call) -> Value:
    """A zero-filled `calloc` of the same size; freed by the reverse sweep."""
    name = call.callee_name
    at = Builder().position_after_def(call)
    if name == "realloc" and getattr(tr, "realloc_shadows", False):
        # forward mode: the shadow follows the memory (contents kept, as Enzyme does)
        realloc = tr.runtime_decl("realloc", T.FunctionType(T.PTR, (T.PTR, T.I64)))
        old = forward_shadow(tr, call.args[0])
        at = Builder().position_after_def(call)
        shadow = at.call(realloc, [old, call.args[1]], name=names.shadow(call))
        tr.heap_shadows.append((call, shadow))
        return shadow
    if name == "realloc":
        raise tr.error(call, "realloc of memory holding active data, but the size of the old "
                             "block is not known here (it was not allocated in this function "
                             "by malloc, calloc or realloc); its adjoints would be lost")
    align: Value | None = None
    if name == "calloc":
        count, size = call.args
    elif name == "aligned_alloc":
        count, size = ConstantInt(T.I64, 1), call.args[1]
        align = call.args[0]
    else:  # malloc, operator new / new[] (with or without alignment)
        count, size = ConstantInt(T.I64, 1), call.args[0]
        if name.endswith("St11align_val_t"):
            align = call.args[1]
    if align is not None and not (isinstance(align, ConstantInt) and align.value <= 16):
        # the same alignment (vector code may rely on it), zero-filled; freed with free()
        aligned = tr.runtime_decl("aligned_alloc", T.FunctionType(T.PTR, (T.I64, T.I64)))
        bumped = at.add(size, at.sub(align, ConstantInt(T.I64, 1)))
        rounded = at.binop("and", bumped, at.sub(ConstantInt(T.I64, 0), align))
        shadow = at.call(aligned, [align, rounded], name=names.shadow(call))
        memset = tr.runtime_decl("llvm.memset.p0.i64",
                                 T.FunctionType(T.VOID, (T.PTR, T.I8, T.I64, T.I1)))
        at.call(memset, [shadow, ConstantInt(T.I8, 0), size, ConstantInt(T.I1, 0)])
    else:
        calloc = tr.runtime_decl("calloc", T.FunctionType(T.PTR, (T.I64, T.I64)))
        shadow = at.call(calloc, [count, size], name=names.shadow(call))
    tr.heap_shadows.append((call, shadow))
    return shadow


def _shadow_alloca(tr: ReverseTransform, p: I.Alloca) -> Value:
    new = I.Alloca(p.allocated_type, p.operands[0] if p.operands else None, p.align,
                   name=names.shadow(p))
    at = Builder().position_after_def(p)
    at.insert(new)
    nbytes: Value = ConstantInt(T.I64, alloc_size(p.allocated_type))
    if p.operands:
        count = p.operands[0]
        if count.type != T.I64:
            count = at.zext(count, T.I64)
        nbytes = at.mul(count, nbytes)
    memset = tr.runtime_decl("llvm.memset.p0.i64",
                             T.FunctionType(T.VOID, (T.PTR, T.I8, T.I64, T.I1)))
    at.call(memset, [new, ConstantInt(T.I8, 0), nbytes, ConstantInt(T.I1, 0)])
    return new
