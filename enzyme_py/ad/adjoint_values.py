"""Adjoint arithmetic: the empty adjoint of a type and the sum of two adjoints.

Invariants: only float-carrying parts are summed; the other fields of an aggregate keep the
first operand's value (they carry no derivative). A sum of adjoints carries `reassoc` (and
the builder's fast-math flags): the chain rule adds the contributions of a value's uses in
no order the source gives, so LLVM may reorder these sums (a value used in every iteration
of a loop gets a vectorized sum of its contributions) while the primal's own arithmetic is
kept as written unless fast math is asked for.
"""

from __future__ import annotations

from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import ConstantAggregate, Value, const_float, zero


def adjoint_zero(t: T.Type) -> Value:
    """The empty adjoint: -0.0, the exact identity of fadd (+0.0 is not: -0.0 + 0.0 = +0.0),
    so LLVM folds the first accumulation `-0.0 + x` into `x`."""
    if t.is_fp_or_fp_vector:
        return const_float(t, -0.0)
    if isinstance(t, T.ArrayType):
        return ConstantAggregate(t, tuple(adjoint_zero(t.element) for _ in range(t.count)))
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        return ConstantAggregate(t, tuple(adjoint_zero(e) for e in T.struct_elements(t)))
    return zero(t)


def add_values(b: Builder, a: Value, x: Value) -> Value:
    """`a + x` for floats, float vectors, and aggregates of them (other fields keep `a`)."""
    t = a.type
    if t.is_fp_or_fp_vector:
        return b.fadd(a, x, flags=_sum_flags(b))
    if isinstance(t, (T.ArrayType, T.StructType, T.IdentifiedStructType)):
        count = t.count if isinstance(t, T.ArrayType) else len(T.struct_elements(t))
        out = a
        for k in range(count):
            et = T.element_type_at(t, k)
            if not carries_float(et):
                continue
            s = add_values(b, b.extractvalue(a, [k]), b.extractvalue(x, [k]))
            out = b.insertvalue(out, s, [k])
        return out
    return a


def _sum_flags(b: Builder) -> tuple[str, ...]:
    """The flags of an adjoint sum: the builder's fast-math flags and `reassoc`."""
    flags = tuple(b.fast_math or ())
    return flags if "reassoc" in flags or "fast" in flags else (*flags, "reassoc")
