"""Shadow pointers: for every pointer into active memory, the pointer to the same place in its
shadow. One `ShadowMap` per direction of a derivative (reverse mode has one, vector forward
mode one per lane); how the modes differ is stated by a `ShadowPolicy`, never asked of them.

Invariants: a shadow is built once per primal pointer, right after it (GEPs, casts, selects,
phis mirror the primal; an argument's shadow is the shadow argument; an alloca's shadow is a
zero-filled alloca of the same type; a heap allocation's, a zero-filled `calloc` the reverse
sweep frees (the same allocation in forward mode); a pointer loaded from shadowed memory, the
pointer loaded from the same place in the shadow). A pointer that may point into memory
without a shadow raises `DifferentiationError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from enzyme_py.ad import names
from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.derived import GlobalShadowKey
from enzyme_py.ad.device import first_thread_block
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.field_types import declared_type, integer_by_use
from enzyme_py.analysis.gpu import in_shared_memory
from enzyme_py.analysis.memory import ALLOCATION_FUNCTIONS, underlying
from enzyme_py.analysis.memory_effects import memory_intrinsic
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.module import Block, GlobalVariable
from enzyme_py.ir.values import (
    Argument,
    ConstantAggregate,
    ConstantExpr,
    ConstantInt,
    ConstantKeyword,
    ConstantSplat,
    Value,
    zero,
)


@dataclass(frozen=True)
class ShadowPolicy:
    """What differs between the modes' shadows."""

    lane: int  # the direction these shadows hold (names the global shadows)
    # Global shadows are cleared by the outermost derivative when it starts (the adjoint of a
    # global's initial value is no output); a callee's derivative must not clear them.
    clears_globals: bool
    # The shadow of a `realloc` is the `realloc` of the old shadow (forward mode: contents
    # kept, as Enzyme does). Reverse mode expands reallocs beforehand (`realloc.py`), so one
    # left over has a block of unknown size, which is an error.
    follows_realloc: bool


def reverse_policy(callee: bool) -> ShadowPolicy:
    return ShadowPolicy(lane=0, clears_globals=not callee, follows_realloc=False)


def forward_policy(lane: int, callee: bool) -> ShadowPolicy:
    return ShadowPolicy(lane=lane, clears_globals=not callee, follows_realloc=True)


class ShadowMap:
    """The shadows of one direction: `get(p)` builds the shadow of `p` on first use."""

    def __init__(self, ctx: DerivationContext, args: dict[Argument, Value],
                 policy: ShadowPolicy) -> None:
        self.ctx = ctx
        self.args = args  # the shadow arguments of the dup pointer arguments
        self.policy = policy
        self.known: dict[Value, Value] = {}
        self._clearing: Block | None = None  # (device) where the first thread clears

    def get(self, p: Value) -> Value:
        got = self.known.get(p)
        if got is not None:
            return got
        shadow = self._build(p)
        self.known[p] = shadow
        return shadow

    def _build(self, p: Value) -> Value:
        ctx = self.ctx
        shadowed = ctx.activity.shadowed
        if isinstance(p, ConstantKeyword):  # null, undef, poison: the shadow is the same
            return p
        if isinstance(p, Argument):
            s = self.args.get(p)
            if s is None:
                raise DifferentiationError(
                    f"in @{ctx.primal.name}: active data is read or written through argument "
                    f"{p.index} ({p.type} %{p.name or p.index}), which is not 'dup': pass it "
                    "as enzyme_dup with a shadow")
            return s
        if isinstance(p, I.Alloca):
            if p not in shadowed:
                raise ctx.error(p, "this stack memory holds active data but has no shadow")
            return self._alloca(p)
        if isinstance(p, I.Load) and p.type.is_pointer:
            if p not in shadowed:
                raise ctx.error(p, "this pointer leads to active data, but it was loaded from "
                                   "memory without a shadow (pass that memory as dup)")
            new = I.Load("load", p.type, [self.get(p.pointer)], p.align, name=names.shadow(p))
            return Builder().position_after_def(p).insert(new)
        if isinstance(p, I.Call) and p.callee_name in ALLOCATION_FUNCTIONS:
            if p not in shadowed:
                raise ctx.error(p, "this heap memory holds active data but has no shadow")
            return self._allocation(p)
        if isinstance(p, (I.GetElementPtr, I.Cast)):
            new = clone_instruction(p, {}, {})
            new.operands[0] = self.get(p.operands[0])
            new.name = names.shadow(p)
            return Builder().position_after_def(p).insert(new)
        if isinstance(p, I.Select):
            new = clone_instruction(p, {}, {})
            new.operands[1] = self.get(p.operands[1])
            new.operands[2] = self.get(p.operands[2])
            new.name = names.shadow(p)
            return Builder().position_after_def(p).insert(new)
        if isinstance(p, I.Phi):
            phi = I.Phi(p.type, name=names.shadow(p))
            assert p.parent is not None
            p.parent.insert(p.parent.instructions.index(p) + 1, phi)
            self.known[p] = phi  # before the incoming values: they may lead back here
            for v, blk in zip(p.operands, p.incoming_blocks, strict=True):
                phi.add_incoming(self.get(v), blk)
            return phi
        if isinstance(p, GlobalVariable) and p in shadowed:
            return self._global(p)
        if isinstance(p, ConstantExpr) and p.opcode in ("getelementptr", "bitcast",
                                                        "addrspacecast"):
            base = self.get(p.ops[0])
            if isinstance(base, (GlobalVariable, ConstantExpr)):  # (a cast of one, too)
                return ConstantExpr(p.type, p.opcode, (base, *p.ops[1:]), p.flags,
                                    p.source_type, p.extra)
            raise DifferentiationError(
                f"in @{ctx.primal.name}: cannot build the shadow of {p.ref()}")
        if isinstance(p, I.Instruction):
            raise ctx.error(p, "cannot follow this pointer to its shadow memory (pointers "
                               "returned by calls are not supported yet)")
        raise DifferentiationError(
            f"in @{ctx.primal.name}: active data is accessed through {p.type} {p.ref()}, "
            "which has no shadow (global variables holding active data are not supported yet)")

    def _global(self, g: GlobalVariable) -> Value:
        """`@g.shadow`: an internal zero-filled global, one per global (and direction) in the
        module, shared by a derivative and its callees' derivatives."""
        ctx = self.ctx
        module = ctx.module
        key = GlobalShadowKey(g.name, self.policy.lane)
        shadow = ctx.derived.get(key)
        if shadow is None:
            name = module.unique_name(names.shadow(g))
            shadow = GlobalVariable(name, g.value_type, zero(g.value_type))  # type: ignore[arg-type]
            # (the same address space: a shared-memory array's shadow is shared memory too)
            shadow.prefix = ["internal", *(w for w in g.prefix if w.startswith("addrspace("))]
            shadow.type = g.type
            shadow.suffix = [s for s in g.suffix if s.startswith("align ")]
            module.add_global(shadow)
            ctx.derived.add(key, shadow)
        if self.policy.clears_globals:
            nbytes = ConstantInt(T.I64, alloc_size(g.value_type))
            if ctx.device.on_device:
                self._clear_on_device(g, shadow, nbytes)
            else:
                ctx.libc.call_memset_zero(ctx.at_start(), shadow, nbytes)
        return shadow

    def _clear_on_device(self, g: GlobalVariable, shadow: GlobalVariable,
                         nbytes: ConstantInt) -> None:
        """A shared-memory shadow is cleared by the block's first thread, and every thread
        waits at a barrier before using it; a global in device memory has no point where
        one thread could clear it for the whole grid."""
        ctx = self.ctx
        if not in_shared_memory(g):
            raise DifferentiationError(
                f"in @{ctx.primal.name}: the device global @{g.name} holds active data; its "
                "shadow could only be cleared for the whole grid by a grid-wide barrier "
                "(pass that memory to the kernel as a dup pointer argument instead)")
        if self._clearing is None:
            self._clearing = first_thread_block(ctx.module, ctx.alloca_block)
        ctx.libc.call_memset_zero(Builder().position_before(self._clearing.instructions[-1]),
                                  shadow, nbytes)

    def _allocation(self, call: I.Call) -> Value:
        """A zero-filled `calloc` of the same size; freed by the reverse sweep."""
        libc = self.ctx.libc
        name = call.callee_name
        at = Builder().position_after_def(call)
        if name == "realloc" and self.policy.follows_realloc:
            realloc = libc.realloc()  # (declared before the old shadow's allocation)
            old = self.get(call.args[0])
            at = Builder().position_after_def(call)
            return at.call(realloc, [old, call.args[1]], name=names.shadow(call))
        if name == "realloc":
            raise self.ctx.error(call, "realloc of memory holding active data, but the size "
                                       "of the old block is not known here (it was not "
                                       "allocated in this function by malloc, calloc or "
                                       "realloc); its adjoints would be lost")
        align: Value | None = None
        if name == "calloc":
            count, size = call.args
        elif name == "aligned_alloc":
            count, size = ConstantInt(T.I64, 1), call.args[1]
            align = call.args[0]
        else:  # malloc, operator new / new[] (with or without alignment)
            count, size = ConstantInt(T.I64, 1), call.args[0]
            if name and name.endswith("St11align_val_t"):
                align = call.args[1]
        if align is None or (isinstance(align, ConstantInt) and align.value <= 16):
            return libc.call_calloc(at, count, size, name=names.shadow(call))
        # the same alignment (vector code may rely on it), zero-filled; freed with free()
        bumped = at.add(size, at.sub(align, ConstantInt(T.I64, 1)))
        rounded = at.binop("and", bumped, at.sub(ConstantInt(T.I64, 0), align))
        shadow = libc.call_aligned_alloc(at, align, rounded, name=names.shadow(call))
        libc.call_memset_zero(at, shadow, size)
        return shadow

    def _alloca(self, p: I.Alloca) -> Value:
        new = I.Alloca(p.allocated_type, p.operands[0] if p.operands else None, p.align,
                       name=names.shadow(p))
        at = Builder().position_after_def(p)
        at.insert(new)
        self.ctx.libc.call_memset_zero(at, new, alloca_bytes(at, p))
        return new


def alloca_bytes(at: Builder, p: I.Alloca) -> Value:
    """The size of `p`'s memory in bytes, as an i64 (built at `at` for a variable count)."""
    nbytes: Value = ConstantInt(T.I64, alloc_size(p.allocated_type))
    if p.operands:
        count = p.operands[0]
        if count.type != T.I64:
            count = at.zext(count, T.I64)
        nbytes = at.mul(count, nbytes)
    return nbytes


def stores_shadowed_pointer(ctx: DerivationContext, store: I.Store) -> bool:
    """`store` writes a pointer to shadowed memory into shadowed memory: its shadow must go to
    the same place in the shadow, so that loading it back finds the shadow of what it points
    to. (A pointer to inactive memory needs nothing: its shadow slot is never used.)"""
    value, ptr = store.operands
    if not (value.type.is_pointer and ctx.activity.touches_shadow(ptr)):
        return False
    objs = underlying(value)
    if not objs:
        return False  # null
    if not objs <= ctx.activity.shadowed:
        if any(o in ctx.activity.varied for o in objs):
            raise ctx.error(store, "stores a pointer to active memory that has no shadow "
                                   "into shadowed memory")
        return False
    return True


def returned_pointer(ctx: DerivationContext, ret: I.Ret) -> Value:
    """The pointer `ret` returns, whose memory the caller differentiates through (so it must
    have a shadow here)."""
    value = ret.value
    assert value is not None
    if not ctx.activity.has_shadow(value):
        raise ctx.error(ret, "returns a pointer the caller differentiates through, but the "
                             "memory it points to has no shadow here")
    return value


def check_atomic_update(ctx: DerivationContext, inst: I.Instruction) -> None:
    """Raise when `inst` updates shadowed memory atomically (no mode supports that yet)."""
    if isinstance(inst, (I.AtomicRMW, I.CmpXchg)) and ctx.activity.touches_shadow(
            inst.operands[0]):
        raise ctx.error(inst, "atomic updates of active memory are not supported")


def check_old_value_unused(ctx: DerivationContext, inst: I.AtomicRMW) -> None:
    """Raise when the old value an atomic add into shadowed memory returns is used: which
    thread's update it follows is decided at run time, so its derivative has no one place."""
    fn = ctx.work
    if any(inst in u.operands for u in fn.instructions() if u is not inst):
        raise ctx.error(inst, "the old value this atomic update returns is used; its "
                              "derivative depends on the order threads run in, which enzyme_py "
                              "does not differentiate (use the atomic only to add)")


def integer_constant(v: Value) -> bool:
    """`v` is a constant made of integers only (no float, pointer or constant expression):
    what LLVM makes of a small memset (`store i64 0` over two floats). Stored into shadowed
    memory, it leaves bytes that carry no derivative, so their shadow is zero after it."""
    if isinstance(v, ConstantKeyword):
        return not T.carries_pointer(v.type) and not T.carries_float(v.type)
    if isinstance(v, ConstantInt):
        return True
    if isinstance(v, ConstantSplat):
        return integer_constant(v.element)
    if isinstance(v, ConstantAggregate):
        return all(integer_constant(e) for e in v.elements)
    return False


def check_integer_copy(ctx: DerivationContext, store: I.Store) -> None:
    """Raise when `store` copies shadowed memory as integers: nothing says which float type
    the bits are, so no mode could carry their derivative. Wherever the bits go: into
    memory without a shadow (the copy made it look inactive), floats read back from there
    would silently have no derivative."""
    value, _ = store.operands
    touches = ctx.activity.touches_shadow
    if isinstance(value.type, T.IntType) and isinstance(value, I.Load) and \
            touches(value.pointer):
        if any(isinstance(declared_type(i), T.IntType) for i in (value, store)) or \
                integer_by_use(value):
            return  # an integer field (TBAA, the struct type or its uses say so), not bits
        raise ctx.error(store, "active memory is copied as integers and nothing in the "
                               "function tells which floating point type it holds; the "
                               "derivative would be lost (access the data with its float "
                               "type, e.g. compile without turning the copy into integers)")


def mirror_pointer_copies(shadows: ShadowMap, insts: Iterable[I.Instruction],
                          float_kind: Callable[[list[Value]], str | None]) -> None:
    """After each memcpy/memmove between shadowed memory that holds pointers and no floats
    (`float_kind` says `ptr`: a struct of integers and pointers), the same copy on the
    shadows, so the copied pointers' shadows are found at the destination (such memory has
    no adjoint for the reverse sweep to move)."""
    touches = shadows.ctx.activity.touches_shadow
    for inst in insts:
        if not (isinstance(inst, I.Call) and memory_intrinsic(inst.callee_name or "") in (
                "memcpy", "memmove")):
            continue
        dst, src = inst.args[0], inst.args[1]
        if not (touches(dst) and touches(src)) or float_kind([dst, src]) != "ptr":
            continue
        new = clone_instruction(inst, {}, {})
        new.name = None
        new.operands[0], new.operands[1] = shadows.get(dst), shadows.get(src)
        Builder().position_after_def(inst).insert(new)


def mirror_pointer_stores(shadows: ShadowMap, insts: Iterable[I.Instruction]) -> None:
    """Store the shadow of each pointer that `insts` store into shadowed memory at the same
    place in the shadow, right after the primal store."""
    for inst in insts:
        if isinstance(inst, I.Store) and stores_shadowed_pointer(shadows.ctx, inst):
            value_shadow = shadows.get(inst.value)
            slot_shadow = shadows.get(inst.pointer)
            Builder().position_after_def(inst).store(value_shadow, slot_shadow, inst.align)
