"""Compile-time values of the front end: typed IR values for scalars, strided views for
arrays, and conversions between scalar types.

Invariant: `convert` implements Python's (and numpy's) conversions exactly as the subset
defines them: bool -> int -> float promotion, float -> int truncates toward zero, float -> bool
is `x != 0`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    """A strided view: element (i0, i1, ...) is at `ptr + sum(i_k * strides[k])` (elements).

    `contiguous` is a compile-time fact: the strides are those of a C-contiguous array of
    these extents. `root` names the memory the view reads (a parameter, a variable's buffer,
    or a temporary), to tell views that may overlap; `base` is the heap block to free when
    the view is the only owner of a temporary. `origin` is set on a slice `a[k0:..., k1:...]`
    of a variable with constant starts k >= 0 and step 1 on every axis: (the variable's
    name, the pointer sliced, the starts), so two such slices of one variable are known to be
    one shifted by a constant from the other wherever their extents are not 0 (see
    `carried`). `moved` marks a read
    recorded by a lazy that loads element i of this view for some other result index
    (`np.roll`): a store into this memory is never the in-place read of it (see `writes`)."""

    type: Array
    ptr: Value
    dims: list[Value]  # i64 extents, outermost first
    strides: list[Value] = field(default_factory=list)  # i64, in elements
    contiguous: bool = True
    root: object = None
    base: Value | None = None
    origin: tuple[str, Value, tuple[int, ...]] | None = None
    moved: bool = False

    def __post_init__(self) -> None:
        assert len(self.strides) == len(self.dims) == self.type.ndim, "AVal needs strides"


def c_strides(b: Builder, dims: list[Value]) -> list[Value]:
    """The strides of a C-contiguous array with these extents (innermost 1)."""
    out: list[Value] = []
    s: Value = ConstantInt(T.I64, 1)
    for k, d in enumerate(reversed(dims)):
        out.append(s)
        if k < len(dims) - 1:
            s = mul_i64(b, s, d)
    return out[::-1]


def mul_i64(b: Builder, x: Value, y: Value) -> Value:
    """x * y on i64, folded when either is a constant 0 or 1 or both are constants."""
    if isinstance(x, ConstantInt) and isinstance(y, ConstantInt):
        return ConstantInt(T.I64, x.value * y.value)
    for p, q in ((x, y), (y, x)):
        if isinstance(p, ConstantInt) and p.value == 1:
            return q
        if isinstance(p, ConstantInt) and p.value == 0:
            return p
    return b.mul(x, y, flags=("nsw",))


def add_i64(b: Builder, x: Value, y: Value) -> Value:
    """x + y on i64, folded when either is a constant 0 or both are constants."""
    if isinstance(x, ConstantInt) and isinstance(y, ConstantInt):
        return ConstantInt(T.I64, x.value + y.value)
    if isinstance(x, ConstantInt) and x.value == 0:
        return y
    if isinstance(y, ConstantInt) and y.value == 0:
        return x
    return b.add(x, y, flags=("nsw",))


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
