"""Sizes and alignments of types under LLVM's default x86-64 data layout.

Invariant: `alloc_size(t)` is what `getelementptr t, ptr p, i64 1` advances by (size rounded up
to the ABI alignment), matching LLVM for the layouts clang-22 emits on x86-64 and AArch64
(`i64:64-i128:128-f80:128`); other layouts are rejected by the caller, not guessed.
"""

from __future__ import annotations

from enzyme_py.ir import types as T

_FLOAT_SIZE = {"half": (2, 2), "bfloat": (2, 2), "float": (4, 4), "double": (8, 8),
               "x86_fp80": (10, 16), "fp128": (16, 16), "ppc_fp128": (16, 16)}


def _round_up(n: int, align: int) -> int:
    return (n + align - 1) // align * align


def abi_align(t: T.Type) -> int:
    if isinstance(t, T.IntType):
        return min(16, max(1, 1 << max(0, (t.bits - 1).bit_length() - 3)))
    if isinstance(t, T.FloatType):
        return _FLOAT_SIZE[t.kind][1]
    if isinstance(t, T.PointerType):
        return 8
    if isinstance(t, T.VectorType):
        return min(64, _pow2_at_least(store_size(t.element) * t.count))
    if isinstance(t, T.ArrayType):
        return abi_align(t.element)
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        if t.packed:
            return 1
        return max((abi_align(e) for e in T.struct_elements(t)), default=1)
    raise ValueError(f"no layout for type {t}")


def _pow2_at_least(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def store_size(t: T.Type) -> int:
    if isinstance(t, T.IntType):
        return (t.bits + 7) // 8
    if isinstance(t, T.FloatType):
        return _FLOAT_SIZE[t.kind][0]
    if isinstance(t, T.PointerType):
        return 8
    if isinstance(t, T.VectorType):
        return (t.count * _bits(t.element) + 7) // 8
    return alloc_size(t)


def _bits(t: T.Type) -> int:
    if isinstance(t, T.IntType):
        return t.bits
    if isinstance(t, T.FloatType):
        return t.bits
    return store_size(t) * 8


def alloc_size(t: T.Type) -> int:
    if isinstance(t, T.ArrayType):
        return t.count * alloc_size(t.element)
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        offset = 0
        for e in T.struct_elements(t):
            if not t.packed:
                offset = _round_up(offset, abi_align(e))
            offset += alloc_size(e)
        return offset if t.packed else _round_up(offset, abi_align(t))
    return _round_up(store_size(t), abi_align(t))


def field_offset(t: T.Type, index: int) -> int:
    """Byte offset of struct field `index`."""
    offset = 0
    for i, e in enumerate(T.struct_elements(t)):
        if not t.packed:  # type: ignore[union-attr]
            offset = _round_up(offset, abi_align(e))
        if i == index:
            return offset
        offset += alloc_size(e)
    raise IndexError(index)
