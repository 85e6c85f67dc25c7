"""Give floating point data moved through integer types back its float type, before AD.

LLVM's instcombine turns `memcpy(dst, src, 8)` of a double into `load i64` / `store i64`, and
clang copies small structs the same way. Differentiating those as integers would silently drop
the derivative. This rewrite runs on the working copy before activity analysis:

- `store iN (bitcast F x to iN), p` becomes `store F x, p`;
- `load iN, p` from memory that holds only floats of width N (or whose bits are bitcast to
  the float F of that width) becomes `load F, p` followed by `bitcast F to iN` (uses that are
  stores or bitcasts back to F then take the float directly).

Invariants: only memory objects whose every typed access (loads, stores, GEP element types) is a
float of one width are touched; the rewritten function computes the same values.
`integer_copies_of_floats` lists what is left (for a clear error on active paths), and
`memory_float_kind` tells which float type memory holds (for the adjoint of a copy).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from enzyme_py.analysis.memory import UNKNOWN, MemObject, underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import Argument, Value

_FLOAT_OF_WIDTH = {16: T.HALF, 32: T.FLOAT, 64: T.DOUBLE}


def _scalar(t: T.Type) -> T.Type:
    while isinstance(t, (T.ArrayType, T.VectorType)):
        t = t.element
    return t


def float_kinds(fn: Function) -> dict[MemObject, set[T.Type]]:
    """Scalar types each memory object is accessed as (loads, stores, GEP element types)."""
    kinds: dict[MemObject, set[T.Type]] = {}

    def note(objs: frozenset[MemObject], t: T.Type) -> None:
        for o in objs:
            if o is not UNKNOWN:
                kinds.setdefault(o, set()).add(_scalar(t))

    for inst in fn.instructions():
        if isinstance(inst, I.Load):
            note(underlying(inst.pointer), inst.type)
        elif isinstance(inst, I.Store):
            note(underlying(inst.pointer), inst.value.type)
        elif isinstance(inst, I.GetElementPtr) and inst.source_type != T.I8:
            st = _scalar(inst.source_type)
            if st.is_float or st.is_int:
                note(underlying(inst), st)
    return kinds


def _float_type_of(objs: frozenset[MemObject], kinds: dict[MemObject, set[T.Type]],
                   width: int) -> T.Type | None:
    want = _FLOAT_OF_WIDTH.get(width)
    if want is None or not objs or UNKNOWN in objs:
        return None
    for o in objs:
        ks = {k for k in kinds.get(o, set()) if not (isinstance(k, T.IntType) and
                                                     k.bits == width)}
        if ks != {want}:
            return None
    return want


def rewrite_float_copies(fn: Function) -> int:
    """Apply the rewrite to `fn` in place; returns how many accesses were retyped."""
    kinds = float_kinds(fn)
    changed = 0
    for inst in list(fn.instructions()):
        if isinstance(inst, I.Store) and isinstance(inst.value.type, T.IntType):
            v = inst.value
            if isinstance(v, I.Cast) and v.opcode == "bitcast" and v.operands[0].type.is_float:
                inst.operands[0] = v.operands[0]
                changed += 1
    users: dict[I.Instruction, list[I.Instruction]] = {}
    for inst in fn.instructions():
        for op in inst.operands:
            if isinstance(op, I.Load):
                users.setdefault(op, []).append(inst)
    for inst in list(fn.instructions()):
        if not (isinstance(inst, I.Load) and isinstance(inst.type, T.IntType)):
            continue
        ft = _float_type_of(underlying(inst.pointer), kinds, inst.type.bits)
        if ft is None:  # the loaded bits are reinterpreted as a float right away
            casts = {u.type for u in users.get(inst, []) if isinstance(u, I.Cast)
                     and u.opcode == "bitcast" and u.type.is_float}
            if len(casts) == 1 and _FLOAT_OF_WIDTH.get(inst.type.bits) in casts:
                ft = casts.pop()
        if ft is None:
            continue
        b = Builder().position_before(inst)
        fload = b.load(ft, inst.pointer, inst.align, name=inst.name)
        fload.flags = inst.flags
        fload.metadata = list(inst.metadata)
        as_int = Builder().position_after_def(inst).bitcast(fload, inst.type)
        fn.replace_all_uses(inst, as_int)
        assert inst.parent is not None
        inst.parent.remove(inst)
        for user in list(fn.instructions()):
            if isinstance(user, I.Store) and user.value is as_int:
                user.operands[0] = fload
            elif isinstance(user, I.Cast) and user.opcode == "bitcast" and \
                    user.operands[0] is as_int and user.type == ft:
                fn.replace_all_uses(user, fload)
        changed += 1
    return changed


def integer_copies_of_floats(fn: Function) -> list[I.Instruction]:
    """Integer loads/stores left on memory that holds only floats of their width."""
    kinds = float_kinds(fn)
    out = []
    for inst in fn.instructions():
        if isinstance(inst, I.Load) and isinstance(inst.type, T.IntType):
            if _float_type_of(underlying(inst.pointer), kinds, inst.type.bits) is not None:
                out.append(inst)
        elif isinstance(inst, I.Store) and isinstance(inst.value.type, T.IntType):
            if _float_type_of(underlying(inst.pointer), kinds, inst.value.type.bits) is not None:
                out.append(inst)
    return out


def memory_float_kind(insts: list[I.Instruction], same: Callable[[Value], frozenset],
                      hints: Sequence[str | None], fn: Function, pointers: list[Value],
                      _seen: frozenset = frozenset()) -> str | None:
    """The one float type of the memory behind `pointers` in `fn` (whose instructions of
    interest are `insts`; `same(p)`: what `p` may point into, pointers loaded from one place
    leading to one memory), from the loads, stores and GEPs that touch it, the types of stack
    slots, or else what the caller said of an argument (`hints`, per argument), or else what
    the memory at the other end of a `memcpy`/`memmove` holds (a chain of copies:
    `y = x.copy(); z = y.copy()`); a comma-separated list when they disagree, None when
    nothing tells."""
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
        for o in objs:
            if isinstance(o, Argument) and o.parent is fn and o.index < len(hints) and \
                    hints[o.index]:
                kinds.add(hints[o.index])  # type: ignore[arg-type]
    if not kinds and not objs & _seen:
        seen = _seen | objs
        for inst in insts:
            if isinstance(inst, I.Call) and (inst.callee_name or "").startswith(
                    ("llvm.memcpy", "llvm.memmove")):
                dest, src = inst.args[0], inst.args[1]
                other = src if same(dest) & objs else dest if same(src) & objs else None
                got = memory_float_kind(insts, same, hints, fn, [other], seen) \
                    if other is not None else None
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
