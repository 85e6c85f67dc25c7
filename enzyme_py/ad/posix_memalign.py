"""`posix_memalign` as an allocation that returns its pointer, before AD.

    %r = call i32 @posix_memalign(ptr %slot, i64 %align, i64 %size)
becomes
    %p = call ptr @aligned_alloc(i64 %align, i64 %size')    ; %size' rounded up to %align
    store ptr %p, ptr %slot
    %r = select i1 (%p == null), i32 12, i32 0               ; ENOMEM or 0

so that the memory is an allocation call like `malloc`'s (SROA then forwards the stored
pointer to its loads), and its shadow is allocated with the same alignment.

Invariants: only direct calls with three arguments are rewritten; the result has the same
meaning except that a failed allocation stores null into `*slot` (posix_memalign leaves it
unchanged), which a program checking the result never reads.
"""

from __future__ import annotations

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Module
from enzyme_py.ir.values import ConstantInt, Value, zero

ENOMEM = 12


def expand_posix_memalign(module: Module) -> int:
    """Rewrite every `posix_memalign` call of `module`'s functions; returns how many."""
    calls = [i for fn in module.functions if not fn.is_declaration
             for i in fn.instructions()
             if isinstance(i, I.Call) and not isinstance(i, I.Invoke) and
             i.callee_name == "posix_memalign" and len(i.args) == 3]
    if not calls:
        return 0
    aligned_alloc = module.declare_function("aligned_alloc",
                                            T.FunctionType(T.PTR, (T.I64, T.I64)))
    for call in calls:
        slot, align, size = call.args
        b = Builder().position_before(call)
        align64 = _to_i64(b, align)
        size64 = _to_i64(b, size)
        # aligned_alloc wants a multiple of the alignment: (size + align - 1) & -align
        bumped = b.add(size64, b.sub(align64, ConstantInt(T.I64, 1)))
        rounded = b.binop("and", bumped, b.sub(ConstantInt(T.I64, 0), align64))
        p = b.call(aligned_alloc, [align64, rounded], name="memalign")
        b.store(p, slot, 8)
        failed = b.icmp("eq", p, zero(T.PTR))
        rt = call.type
        result = b.select(failed, ConstantInt(rt, ENOMEM), ConstantInt(rt, 0)) \
            if isinstance(rt, T.IntType) else None
        fn = call.function
        assert fn is not None and call.parent is not None
        if result is not None:
            fn.replace_all_uses(call, result)
        call.parent.remove(call)
    return len(calls)


def _to_i64(b: Builder, v: Value) -> Value:
    if v.type == T.I64:
        return v
    return b.zext(v, T.I64)
