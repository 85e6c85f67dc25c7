"""Give floating point data moved through integer types back its float type, before AD.

LLVM's instcombine turns `memcpy(dst, src, 8)` of a double into `load i64` / `store i64`, and
clang copies small structs the same way. Differentiating those as integers would silently drop
the derivative. This rewrite runs on the working copy before activity analysis:

- `store iN (bitcast F x to iN), p` becomes `store F x, p`;
- `load iN, p` from memory that holds only floats of width N (or whose bits are bitcast to
  the float F of that width) becomes `load F, p` followed by `bitcast F to iN` (uses that are
  stores or bitcasts back to F then take the float directly); from memory that holds only
  floats of a width W that divides N (two float32 copied as one i64), F is `<N/W x float>`.

Invariants: only memory objects whose every typed access (loads, stores, GEP element types) is a
float of one width are touched (`analysis.float_kinds`); the rewritten function computes the
same values.
"""

from __future__ import annotations

from enzyme_py.analysis.field_types import declared_type
from enzyme_py.analysis.float_kinds import FLOAT_OF_WIDTH, float_kinds
from enzyme_py.analysis.memory import underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function


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
        ft = kinds.float_of_width(underlying(inst.pointer), inst.type.bits)
        if ft is None:  # the loaded bits are reinterpreted as a float right away
            casts = {u.type for u in users.get(inst, []) if isinstance(u, I.Cast)
                     and u.opcode == "bitcast" and u.type.is_float}
            if len(casts) == 1 and FLOAT_OF_WIDTH.get(inst.type.bits) in casts:
                ft = casts.pop()
        if ft is None:  # the place read, or every place the bits are stored to, is a float
            ft = _declared_float(inst, users.get(inst, []))
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


def _declared_float(load: I.Load, users: list[I.Instruction]) -> T.Type | None:
    """The float type of `load`'s width that the IR declares (`analysis.field_types`) at the
    place it reads, or at every place its only users, stores, write it to."""
    assert isinstance(load.type, T.IntType)
    want = FLOAT_OF_WIDTH.get(load.type.bits)
    if want is None:
        return None
    if declared_type(load) == want:
        return want
    if users and all(isinstance(u, I.Store) and u.value is load and declared_type(u) == want
                     for u in users):
        return want
    return None

