"""Exact values of pointers kept in local memory: what a load of a vtable slot or of a
`std::function` invoker can give.

`PointerValues(fn, never_run).locations(p)` is the complete set of `(object, byte offset)`
places pointer `p` may point to, or `None` when it cannot be known. A function `f` appears as
`(f, 0)`. Loads are followed into

- constant globals whose initializer is final (vtables), read at a constant offset;
- allocas that do not escape (every use of a pointer into them is a GEP, cast, phi, select,
  compare, a load from them, a store *to* them, a lifetime marker or a call in `never_run`;
  so only pointers `underlying` traces to them can reach them),
  through the stores that reach the load on some path (a backward walk over the CFG).

Invariants: `None` whenever some write might be missed (a store at an unknown offset, a call
that receives the object, a copy into it); an empty set only for null / uninitialized memory.
Calls in `never_run` are assumed not to execute: the caller proves that jointly (each such
call is a fallback taken only when a pointer is none of the values found here).
"""

from __future__ import annotations

from enzyme_py.analysis.memory import underlying
from enzyme_py.analysis.memory_effects import HARMLESS_INTRINSICS, memory_intrinsic
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.dominance import predecessors
from enzyme_py.ir.layout import alloc_size, field_offset, store_size
from enzyme_py.ir.module import Block, Function, GlobalVariable
from enzyme_py.ir.values import (
    ConstantAggregate,
    ConstantExpr,
    ConstantInt,
    ConstantKeyword,
    Value,
)

Location = tuple[Value, int | None]  # (memory object or function, byte offset; None: unknown)

# Linkages whose initializer may be replaced by a different one at link time.
_REPLACEABLE = frozenset({"weak", "linkonce", "extern_weak", "common"})
MAX_STEPS = 5000  # the walk gives up (None) beyond this much work


class _GiveUp(Exception):
    pass


class PointerValues:
    def __init__(self, fn: Function, never_run: frozenset[I.Call] = frozenset()) -> None:
        self.fn = fn
        self.never_run = never_run
        self.preds = predecessors(fn)
        self.users: dict[Value, list[I.Instruction]] = {}
        for inst in fn.instructions():
            for op in inst.operands:
                self.users.setdefault(op, []).append(inst)
        self._escapes: dict[I.Alloca, bool] = {}
        self._steps = 0

    def locations(self, p: Value) -> frozenset[Location] | None:
        """Every place `p` may point to, or None when that cannot be known."""
        self._steps = 0
        try:
            return frozenset(self._locations(p, set()))
        except _GiveUp:
            return None

    def functions(self, p: Value) -> frozenset[Function] | None:
        """The functions pointer `p` may be (None when unknown or when it may be data)."""
        locs = self.locations(p)
        if locs is None or not all(isinstance(o, Function) and off == 0 for o, off in locs):
            return None
        return frozenset(o for o, _ in locs)  # type: ignore[misc]

    # --- following values -------------------------------------------------------------------

    def _locations(self, p: Value, active: set[Value]) -> set[Location]:
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise _GiveUp
        if isinstance(p, (Function, GlobalVariable, I.Alloca)):
            return {(p, 0)}
        if isinstance(p, ConstantKeyword):
            return set()  # null, undef, poison
        if p in active:
            return set()  # a cycle adds nothing: every value on it came from outside first
        active.add(p)
        try:
            return self._follow(p, active)
        finally:
            active.discard(p)

    def _follow(self, p: Value, active: set[Value]) -> set[Location]:
        if isinstance(p, I.GetElementPtr) or \
                (isinstance(p, ConstantExpr) and p.opcode == "getelementptr"):
            base, source, indices = gep_parts(p)
            delta = constant_offset(source, indices)
            return {(o, None if off is None or delta is None else off + delta)
                    for o, off in self._locations(base, active)}
        if isinstance(p, (I.Cast, ConstantExpr)) and p.opcode in ("bitcast", "addrspacecast"):
            return self._locations(p.operands[0] if isinstance(p, I.Cast) else p.ops[0],
                                   active)
        if isinstance(p, I.Select):
            return self._locations(p.operands[1], active) | \
                self._locations(p.operands[2], active)
        if isinstance(p, I.Phi):
            out: set[Location] = set()
            for v in p.operands:
                out |= self._locations(v, active)
            return out
        if isinstance(p, I.Load) and p.type.is_pointer and not p.ordering:
            out = set()
            for obj, off in self._locations(p.pointer, active):
                for v in self._loaded(p, obj, off):
                    out |= self._locations(v, active)
            return out
        raise _GiveUp

    def _loaded(self, load: I.Load, obj: Value, off: int | None) -> list[Value]:
        if off is None:
            raise _GiveUp
        if isinstance(obj, GlobalVariable) and obj.is_constant and \
                obj.initializer is not None and obj.linkage not in _REPLACEABLE:
            return constant_pointer_at(obj.initializer, obj.value_type, off)
        if isinstance(obj, I.Alloca) and not self.escapes(obj):
            return self._reaching_stores(load, obj, off)
        raise _GiveUp

    # --- reaching stores --------------------------------------------------------------------

    def _reaching_stores(self, load: I.Load, obj: I.Alloca, off: int) -> list[Value]:
        """Values of the stores to (obj, off) that reach `load` (raises if a path may write
        the slot some other way)."""
        size = store_size(load.type)
        values: list[Value] = []
        assert load.parent is not None
        todo: list[tuple[Block, int]] = [(load.parent, load.parent.instructions.index(load))]
        scanned: set[Block] = set()
        while todo:
            block, end = todo.pop()
            for inst in reversed(block.instructions[:end]):
                self._steps += 1
                if inst is obj:
                    break  # before the allocation the slot holds nothing
                got = self._write(inst, obj, off, size)
                if got is not None:
                    values.append(got)
                    break
            else:
                for pred in self.preds[block]:
                    if pred not in scanned:
                        scanned.add(pred)
                        todo.append((pred, len(pred.instructions)))
        return values

    def _write(self, inst: I.Instruction, obj: I.Alloca, off: int, size: int) -> Value | None:
        """The value `inst` leaves in bytes [off, off+size) of `obj`, None when it leaves
        them alone; raises when it may change them otherwise."""
        if isinstance(inst, I.Store):
            if obj not in underlying(inst.pointer):
                return None
            here = [o for o in self._places(inst.pointer) if o[0] is obj]
            width = store_size(inst.value.type)
            if len(here) == 1 and here[0][1] == off and width == size and \
                    inst.value.type.is_pointer:
                return inst.value
            if all(o_off is not None and (o_off + width <= off or off + size <= o_off)
                   for _, o_off in here):
                return None
            raise _GiveUp
        if isinstance(inst, I.Call):
            name = inst.callee_name or ""
            if inst in self.never_run or name.startswith(HARMLESS_INTRINSICS):
                return None
            if memory_intrinsic(name):
                return self._memory_write(inst, obj, off, size)
            if any(a.type.is_pointer and obj in underlying(a) for a in inst.args):
                raise _GiveUp
            return None
        if isinstance(inst, (I.AtomicRMW, I.CmpXchg)) and obj in underlying(inst.operands[0]):
            raise _GiveUp
        return None

    def _memory_write(self, call: I.Call, obj: I.Alloca, off: int, size: int) -> Value | None:
        """memset / memcpy / memmove: a zero memset over the slot leaves null there."""
        dst, length = call.args[0], call.args[2]
        if obj not in underlying(dst):
            return None
        here = [o for o in self._places(dst) if o[0] is obj]
        n = length.value if isinstance(length, ConstantInt) else None
        if n is not None and all(o_off is not None and (o_off + n <= off or off + size <= o_off)
                                 for _, o_off in here):
            return None
        zero_fill = memory_intrinsic(call.callee_name or "") == "memset" and \
            isinstance(call.args[1], ConstantInt) and call.args[1].value == 0
        if zero_fill and n is not None and len(here) == 1 and here[0][1] is not None and \
                here[0][1] <= off and off + size <= here[0][1] + n:
            return ConstantKeyword(T.PTR, "null")
        raise _GiveUp

    def _places(self, p: Value) -> set[Location]:
        """Where a pointer derived from allocas points (GEPs, casts, phis, selects only)."""
        try:
            return self._locations(p, set())
        except _GiveUp:
            return {(o, None) for o in underlying(p)}

    def escapes(self, obj: I.Alloca) -> bool:
        """Some use of a pointer into `obj` lets code we do not follow reach it."""
        got = self._escapes.get(obj)
        if got is None:
            got = self._escapes_from(obj)
            self._escapes[obj] = got
        return got

    def _escapes_from(self, obj: I.Alloca) -> bool:
        todo: list[Value] = [obj]
        seen: set[Value] = {obj}
        while todo:
            p = todo.pop()
            for user in self.users.get(p, []):
                if isinstance(user, (I.GetElementPtr, I.Phi, I.Select)) or \
                        (isinstance(user, I.Cast) and user.opcode in ("bitcast",
                                                                      "addrspacecast")):
                    if isinstance(user, I.GetElementPtr) and user.pointer is not p:
                        return True  # used as an index
                    if isinstance(user, I.Select) and user.operands[0] is p:
                        return True
                    if user not in seen:
                        seen.add(user)
                        todo.append(user)
                elif isinstance(user, I.Load) or isinstance(user, I.Compare):
                    continue
                elif isinstance(user, I.Store):
                    if user.value is p:
                        return True  # the address itself is stored somewhere
                elif isinstance(user, I.Call):
                    if user in self.never_run or \
                            (user.callee_name or "").startswith(HARMLESS_INTRINSICS):
                        continue
                    if memory_intrinsic(user.callee_name or "") and \
                            user.callee is not p:
                        continue  # reads or writes it (see `_memory_write`), keeps nothing
                    return True  # the callee may keep the pointer, or return it
                else:
                    return True
        return False


def gep_parts(p: Value) -> tuple[Value, T.Type, list[Value]]:
    """(base, source element type, indices) of a GEP instruction or constant expression."""
    if isinstance(p, I.GetElementPtr):
        return p.pointer, p.source_type, p.indices
    assert isinstance(p, ConstantExpr) and p.source_type is not None
    return p.ops[0], p.source_type, list(p.ops[1:])


def constant_offset(source: T.Type, indices: list[Value]) -> int | None:
    """The byte offset of a GEP with constant indices, else None."""
    if not indices or not all(isinstance(i, ConstantInt) for i in indices):
        return None
    values = [i.value for i in indices]  # type: ignore[attr-defined]
    offset = values[0] * alloc_size(source)
    t = source
    for k in values[1:]:
        if isinstance(t, (T.StructType, T.IdentifiedStructType)):
            offset += field_offset(t, k)
            t = T.struct_elements(t)[k]
        elif isinstance(t, (T.ArrayType, T.VectorType)):
            t = t.element
            offset += k * alloc_size(t)
        else:
            return None
    return offset


def constant_pointer_at(c: Value, ty: T.Type, off: int) -> list[Value]:
    """The pointer stored at byte `off` of constant `c` (an empty list for null); raises
    `_GiveUp` when `c` cannot be read there."""
    if isinstance(c, ConstantKeyword) and c.keyword in ("zeroinitializer", "null"):
        return []
    if ty.is_pointer:
        if off != 0:
            raise _GiveUp
        return [c]
    if not isinstance(c, ConstantAggregate):
        raise _GiveUp
    for k, e in enumerate(c.elements):
        if isinstance(ty, (T.StructType, T.IdentifiedStructType)):
            et, start = T.struct_elements(ty)[k], field_offset(ty, k)
        elif isinstance(ty, T.ArrayType):
            et = ty.element
            start = k * alloc_size(et)
        else:
            raise _GiveUp
        if start <= off < start + alloc_size(et):
            return constant_pointer_at(e, et, off - start)
    raise _GiveUp


def _mentions(c: Value, g: GlobalVariable) -> bool:
    if c is g:
        return True
    if isinstance(c, ConstantExpr):
        return any(_mentions(o, g) for o in c.ops)
    if isinstance(c, ConstantAggregate):
        return any(_mentions(e, g) for e in c.elements)
    return False


def _address_only(c: Value, g: GlobalVariable) -> bool:
    """`c` is `g`, or a constant GEP / cast of it."""
    while isinstance(c, ConstantExpr) and c.opcode in ("getelementptr", "bitcast",
                                                       "addrspacecast"):
        if any(_mentions(o, g) for o in c.ops[1:]):
            return False
        c = c.ops[0]
    return c is g


def never_written(g: GlobalVariable) -> bool:
    """No code of `g`'s module can write `g`: every mention of it, in every function and
    initializer, is the address of a non-atomic load (directly or through constant GEPs and
    casts), so its address is never passed on. Another file linked with this one still may
    write it (external linkage): a transform that relies on this checks it at run time."""
    module = g.parent
    if module is None or g.initializer is None or g.linkage in _REPLACEABLE:
        return False
    for other in module.globals:
        if other.initializer is not None and _mentions(other.initializer, g):
            return False
    if module.aliases:
        return False  # an alias may name it
    for fn in module.functions:
        for inst in fn.instructions():
            for k, op in enumerate(inst.operands):
                if not _mentions(op, g):
                    continue
                if not (isinstance(inst, I.Load) and k == 0 and not inst.ordering and
                        "volatile" not in inst.flags and _address_only(op, g)):
                    return False
    return True
