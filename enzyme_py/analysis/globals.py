"""Globals a function shares with the callees it calls rather than inlines.

When every callee is inlined, the activity analysis sees each global's reads and writes in
one function. A callee that stays a call (recursion) is differentiated on its own, so a
global written in one function and read in another would look inactive to both. Such
globals are treated like `dup` arguments by the function and by every callee's derivative:
they get one shadow global, shared, zeroed once when the outermost derivative starts.

Invariant: the result is empty when `fn` calls no defined function (nothing changes for
fully inlined code); otherwise it holds every non-constant global that `fn` or a function
it reaches by direct calls writes (store, atomic, memcpy/memmove/memset destination).
"""

from __future__ import annotations

from collections.abc import Iterable

from enzyme_py.analysis.memory import (
    ALLOCATION_FUNCTIONS,
    DEALLOCATION_FUNCTIONS,
    underlying,
)
from enzyme_py.analysis.memory_effects import written_pointer
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function, GlobalVariable


def globals_shared_with_callees(fn: Function,
                                keep_calls: Iterable[str] = ()) -> frozenset[GlobalVariable]:
    """Globals to treat as `dup` when `fn` keeps calls to defined functions (not those in
    `keep_calls`: custom rules and inactive functions are not differentiated)."""
    skip = set(keep_calls) | ALLOCATION_FUNCTIONS | DEALLOCATION_FUNCTIONS
    seen: dict[int, Function] = {}
    todo = [fn]
    has_callee = False
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen[id(f)] = f
        for inst in f.instructions():
            if isinstance(inst, I.Call) and isinstance(inst.callee, Function) and \
                    not inst.callee.is_declaration and inst.callee.name not in skip:
                has_callee = True
                todo.append(inst.callee)
    if not has_callee:
        return frozenset()
    out: set[GlobalVariable] = set()
    for f in seen.values():
        for inst in f.instructions():
            target = written_pointer(inst)
            if target is None:
                continue
            for o in underlying(target):
                if isinstance(o, GlobalVariable) and not o.is_constant and \
                        _may_hold_floats(o.value_type):
                    out.add(o)
    return frozenset(out)


def _may_hold_floats(t: T.Type) -> bool:
    """Float data, or pointers that may lead to some (not counters and flags)."""
    from enzyme_py.ir.types import carries_float

    if t.is_pointer or carries_float(t):
        return True
    if isinstance(t, T.ArrayType):
        return _may_hold_floats(t.element)
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        return any(_may_hold_floats(e) for e in T.struct_elements(t))
    return False


def touches_globals(fn: Function, shared: frozenset[GlobalVariable]) -> bool:
    """Does `fn`, or a function it reaches by direct calls, use one of `shared`?"""
    if not shared:
        return False
    seen: set[int] = set()
    todo = [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen or f.is_declaration:
            continue
        seen.add(id(f))
        for inst in f.instructions():
            for op in inst.operands:
                if isinstance(op, Function):
                    todo.append(op)
                elif op in shared or any(o in shared for o in _constant_bases(op)):
                    return True
    return False


def _constant_bases(v: object) -> list[object]:
    from enzyme_py.ir.values import ConstantExpr

    out = []
    while isinstance(v, ConstantExpr) and v.ops:
        v = v.ops[0]
        out.append(v)
    return out
