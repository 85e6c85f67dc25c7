"""Compile-time values of the front end: typed IR values for scalars, pointer+extents for
arrays, and conversions between scalar types.

Invariant: `convert` implements Python's (and numpy's) conversions exactly as the subset
defines them: bool -> int -> float promotion, float -> int truncates toward zero, float -> bool
is `x != 0`.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.frontend.ftypes import BOOL, Array, Scalar
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.values import ConstantFloat, ConstantInt, Value, const_float


@dataclass
class SVal:
    type: Scalar
    v: Value


@dataclass
class AVal:
    type: Array
    ptr: Value
    dims: list[Value]  # i64 extents, outermost first


def const(t: Scalar, x: float | int | bool) -> SVal:
    if t.is_float:
        return SVal(t, const_float(t.ir, float(x)))
    return SVal(t, ConstantInt(t.ir, int(x)))


def convert(b: Builder, x: SVal, to: Scalar) -> SVal:
    """`x` as type `to`."""
    f, t = x.type, to
    if f == t:
        return x
    v = x.v
    if isinstance(v, ConstantInt) and t.is_float:
        return SVal(t, const_float(t.ir, float(v.value)))
    if isinstance(v, ConstantInt) and t != BOOL:
        return SVal(t, ConstantInt(t.ir, v.value))
    if isinstance(v, ConstantFloat) and t.is_float:
        return SVal(t, const_float(t.ir, v.value))
    if t == BOOL:
        if f.is_float:
            return SVal(t, b.fcmp("une", v, const_float(f.ir, 0.0)))
        return SVal(t, b.icmp("ne", v, ConstantInt(f.ir, 0)))
    if f == BOOL:
        if t.is_float:
            return SVal(t, b.cast("uitofp", v, t.ir))
        return SVal(t, b.zext(v, t.ir))
    if f.is_int and t.is_float:
        return SVal(t, b.sitofp(v, t.ir))
    if f.is_float and t.is_int:
        return SVal(t, b.cast("fptosi", v, t.ir))
    if f.is_float and t.is_float:
        op = "fpext" if T.FLOAT_BITS[str(f.ir)] < T.FLOAT_BITS[str(t.ir)] else "fptrunc"
        return SVal(t, b.cast(op, v, t.ir))
    # int <-> int
    fb, tb = f.ir.bits, t.ir.bits  # type: ignore[attr-defined]
    if fb < tb:
        return SVal(t, b.sext(v, t.ir))
    return SVal(t, b.trunc(v, t.ir))
