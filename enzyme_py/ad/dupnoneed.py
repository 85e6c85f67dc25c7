"""`dupnoneed` arguments: the caller does not need the primal values written through them.

Enzyme's `enzyme_dupnoneed` marks a pointer argument whose shadow matters but whose primal
contents after the call do not (an output buffer). The gradient then need not store the primal
results there, and once those stores are gone, LLVM deletes the arithmetic that only fed them:
the gradient computes no more of the primal output than its derivatives need.

Invariant: a store is removed only when every object it may write is a `dupnoneed` argument
and nothing in the gradient may read those objects (no load, no call, no copy whose source
may alias them): removing it cannot change any value the gradient computes.
"""

from __future__ import annotations

from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.memory import MemObject, is_derived, may_alias, underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function

_WRITES_ONLY = ("llvm.memset",)


def drop_unneeded_stores(grad: Function, primal: Function, activities: list[str]) -> int:
    """Remove the primal's stores into `dupnoneed` memory from `grad` (the gradient of
    `primal` with these argument `activities`: its parameters are the primal's, each
    `dup`/`dupnoneed` one followed by its shadow). Returns how many were removed.

    The alias analysis sees the primal's argument attributes (`noalias`), which hold of the
    same pointers in the gradient."""
    params = _primal_parameters(grad, activities)
    if params is None:
        return 0
    targets = frozenset(g for g, act in zip(params, activities, strict=True)
                        if act == Activity.DUPNONEED and g.type.is_pointer)
    if not targets:
        return 0
    saved = [list(g.attrs) for g in params]
    for g, p in zip(params, primal.args, strict=True):
        g.attrs = list(p.attrs)
    try:
        stores = _removable_stores(grad, targets)
    finally:
        for g, attrs in zip(params, saved, strict=True):
            g.attrs = attrs
    for inst in stores:
        assert inst.parent is not None
        inst.parent.remove(inst)
    return len(stores)


def _removable_stores(grad: Function, targets: frozenset[MemObject]) -> list[I.Instruction]:
    # A pointer loaded from memory can reach a target only if a pointer to it was stored or
    # passed somewhere (the targets are `noalias` or arguments the gradient got directly).
    escaped = any(_escapes(inst, targets) for inst in grad.instructions())
    stores: list[I.Instruction] = []
    for inst in grad.instructions():
        dst = _written(inst)
        if dst is not None and (objs := underlying(dst)) and objs <= targets:
            stores.append(inst)
        elif _may_read(inst, targets, escaped):
            return []
    return stores


def _escapes(inst: I.Instruction, targets: frozenset[MemObject]) -> bool:
    """Whether `inst` stores or passes on a pointer taken directly from a target (one loaded
    from memory can be a target's only if such a pointer was stored first: by induction,
    only direct ones need looking at)."""
    def direct(p) -> bool:
        return p.type.is_pointer and may_alias(
            frozenset(o for o in underlying(p) if not is_derived(o)), targets)

    if isinstance(inst, I.Store):
        return direct(inst.operands[0])
    if isinstance(inst, (I.Call, I.Ret)) and _written(inst) is None:
        operands = inst.args if isinstance(inst, I.Call) else inst.operands
        return any(direct(op) for op in operands)
    return False


def _primal_parameters(grad: Function, activities: list[str]) -> list | None:
    """The gradient's parameters that are the primal's own (not shadows), in order."""
    out = []
    k = 0
    for act in activities:
        if k >= len(grad.args):
            return None
        out.append(grad.args[k])
        k += 2 if Activity.parse(act).shadowed else 1
    return out


def _written(inst: I.Instruction):
    """The pointer a plain store or memset writes (and reads nothing else through), or None."""
    if isinstance(inst, I.Store) and not inst.flags:
        return inst.pointer
    if isinstance(inst, I.Call) and (inst.callee_name or "").startswith(_WRITES_ONLY):
        return inst.args[0]
    return None


def _may_read(inst: I.Instruction, targets: frozenset[MemObject], escaped: bool) -> bool:
    """Whether `inst` may read memory in `targets` (or let it escape: any pointer operand
    of something other than a load counts, as a call or a stored pointer could be read).
    Unless a target `escaped`, pointers loaded from memory do not lead to it."""
    def reaches(p) -> bool:
        objs = underlying(p)
        if not escaped:
            objs = frozenset(o for o in objs if not is_derived(o))
        return may_alias(objs, targets)

    if isinstance(inst, I.Load):
        return reaches(inst.pointer)
    if isinstance(inst, I.Store):
        value = inst.operands[0]
        return value.type.is_pointer and reaches(value) or bool(inst.flags)
    operands = inst.args if isinstance(inst, I.Call) else inst.operands
    if isinstance(inst, (I.Call, I.AtomicRMW, I.CmpXchg, I.Ret)):
        return any(op.type.is_pointer and reaches(op) for op in operands)
    return False
