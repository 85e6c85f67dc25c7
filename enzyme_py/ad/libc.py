"""The C library functions that derivatives call (allocation, `free`, `memset`, `memcpy`),
declared in the module on first use, and the builders of those calls.

Invariant: a function is declared once per module, with the C signature on a 64-bit target
(sizes are `i64`, except that `memset` takes the width of the size it is given).
"""

from __future__ import annotations

from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.values import ConstantInt, Value

_ALLOC = T.FunctionType(T.PTR, (T.I64,))
_ALLOC2 = T.FunctionType(T.PTR, (T.I64, T.I64))


class LibC:
    """Calls of the C library, declared in `module`."""

    def __init__(self, module: Module) -> None:
        self.module = module

    def free(self) -> Function:
        return self.module.declare_function("free", T.FunctionType(T.VOID, (T.PTR,)))

    def malloc(self) -> Function:
        return self.module.declare_function("malloc", _ALLOC)

    def realloc(self) -> Function:
        return self.module.declare_function("realloc", T.FunctionType(T.PTR, (T.PTR, T.I64)))

    def call_free(self, b: Builder, p: Value) -> Value:
        return b.call(self.free(), [p])

    def call_malloc(self, b: Builder, nbytes: Value, name: str | None = None) -> Value:
        return b.call(self.malloc(), [nbytes], name=name)

    def call_calloc(self, b: Builder, count: Value, size: Value,
                    name: str | None = None) -> Value:
        return b.call(self.module.declare_function("calloc", _ALLOC2), [count, size], name=name)

    def call_aligned_alloc(self, b: Builder, align: Value, size: Value,
                           name: str | None = None) -> Value:
        fn = self.module.declare_function("aligned_alloc", _ALLOC2)
        return b.call(fn, [align, size], name=name)

    def call_memcpy(self, b: Builder, dst: Value, src: Value, nbytes: Value) -> Value:
        """`memcpy(dst, src, nbytes)` (not volatile; i64 size, default address space)."""
        fn = self.module.declare_function("llvm.memcpy.p0.p0.i64",
                                          T.FunctionType(T.VOID, (T.PTR, T.PTR, T.I64, T.I1)))
        return b.call(fn, [dst, src, nbytes, ConstantInt(T.I1, 0)])

    def call_memset_zero(self, b: Builder, dst: Value, nbytes: Value) -> Value:
        """`memset(dst, 0, nbytes)` (not volatile)."""
        size = nbytes.type
        space = getattr(dst.type, "addrspace", 0)
        fn = self.module.declare_function(f"llvm.memset.p{space}.{size}",
                                          T.FunctionType(T.VOID, (dst.type, T.I8, size, T.I1)))
        return b.call(fn, [dst, ConstantInt(T.I8, 0), nbytes, ConstantInt(T.I1, 0)])
