"""`realloc` as Enzyme sees it: a new allocation, a copy of the old contents, a free of the old.

    %new = call ptr @realloc(ptr %old, i64 %n)
becomes
    %new = call ptr @malloc(i64 %n)
    call void @llvm.memcpy.p0.p0.i64(ptr %new, ptr %old, i64 min(size(%old), %n), i1 false)
    call void @free(ptr %old)

on the working copy, before activity analysis. Then nothing is special any more: activity
flows through the copy, the shadow of `%new` is a fresh zero-filled allocation, the reverse
of the copy moves the adjoints of the old contents back into the old shadow, and the free of
`%old` is deferred to the reverse sweep like any free of memory allocated here, so the old
contents and their adjoints stay where the reverse sweep looks for them.

Invariants: the rewritten function computes the same values; `size(%old)` is the size that
was asked for when `%old` was allocated (followed through phis and selects to `malloc`,
`calloc`, earlier reallocs, or null); for a block allocated elsewhere (passed in, loaded from
memory) it is glibc's `malloc_usable_size`, at least what was asked for: the copy may move a
few bytes of slack, never past either block.
"""

from __future__ import annotations

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.values import ConstantInt, ConstantKeyword, Value

# Allocation functions and how to read the requested size from their arguments.
_SIZE_OF: dict[str, tuple[int, ...]] = {
    "malloc": (0,), "_Znwm": (0,), "_Znam": (0,), "_ZnwmSt11align_val_t": (0,),
    "_ZnamSt11align_val_t": (0,), "aligned_alloc": (1,), "calloc": (0, 1), "realloc": (1,),
}


def expand_reallocs(module: Module, fn: Function) -> int:
    """Rewrite every `realloc` of `fn`; returns how many."""
    reallocs = [i for i in fn.instructions()
                if isinstance(i, I.Call) and i.callee_name == "realloc" and len(i.args) == 2]
    if not reallocs:
        return 0
    sizes = _Sizes()
    plans = [(call, sizes.of(call.args[0])) for call in reallocs]
    malloc = module.declare_function("malloc", T.FunctionType(T.PTR, (T.I64,)))
    free = module.declare_function("free", T.FunctionType(T.VOID, (T.PTR,)))
    memcpy = module.declare_function(
        "llvm.memcpy.p0.p0.i64", T.FunctionType(T.VOID, (T.PTR, T.PTR, T.I64, T.I1)))
    count = 0
    for call, old_size in plans:
        old, n = call.args
        at = Builder().position_before(call)
        if old_size is None:  # allocated elsewhere: what glibc gave (0 for null)
            usable = module.declare_function("malloc_usable_size",
                                             T.FunctionType(T.I64, (T.PTR,)))
            old_size = at.call(usable, [old], name="old.bytes")
        n64 = n if n.type == T.I64 else at.zext(n, T.I64)
        new = at.call(malloc, [n64], name=call.name)
        smaller = at.icmp("ult", old_size, n64)
        length = at.select(smaller, old_size, n64)
        at.call(memcpy, [new, old, length, ConstantInt(T.I1, 0)])
        at.call(free, [old])
        assert call.parent is not None and call.function is not None
        call.function.replace_all_uses(call, new)
        call.parent.remove(call)
        count += 1
    return count


class _Sizes:
    """The requested size of the block a pointer points to the start of, as an i64 value
    built beside the pointer (phis mirror phis). Nothing is built unless every value it
    depends on has a known size."""

    def __init__(self) -> None:
        self.memo: dict[Value, Value] = {}

    def of(self, p: Value) -> Value | None:
        return self._build(p) if self._known(p, set()) else None

    def _known(self, p: Value, seen: set[Value]) -> bool:
        if p in seen or p in self.memo:
            return True
        seen.add(p)
        if isinstance(p, ConstantKeyword):
            return p.keyword == "null"
        if isinstance(p, I.Call):
            return p.callee_name in _SIZE_OF
        if isinstance(p, I.Phi):
            return all(self._known(v, seen) for v in p.operands)
        if isinstance(p, I.Select):
            return self._known(p.operands[1], seen) and self._known(p.operands[2], seen)
        return False

    def _build(self, p: Value) -> Value:
        got = self.memo.get(p)
        if got is not None:
            return got
        if isinstance(p, ConstantKeyword):
            return ConstantInt(T.I64, 0)
        if isinstance(p, I.Call):
            at = Builder().position_before(p)
            parts = [p.args[k] for k in _SIZE_OF[p.callee_name or ""]]
            parts = [a if a.type == T.I64 else at.zext(a, T.I64) for a in parts]
            got = parts[0] if len(parts) == 1 else at.mul(parts[0], parts[1], name="bytes")
        elif isinstance(p, I.Phi):
            assert p.parent is not None
            phi = I.Phi(T.I64, name="bytes")
            p.parent.insert(0, phi)
            self.memo[p] = phi  # before the incoming values: they may lead back here
            for v, block in p.incoming():
                phi.add_incoming(self._build(v), block)
            got = phi
        else:
            assert isinstance(p, I.Select)
            a, b = self._build(p.operands[1]), self._build(p.operands[2])
            got = Builder().position_before(p).select(p.operands[0], a, b, name="bytes")
        self.memo[p] = got
        return got
