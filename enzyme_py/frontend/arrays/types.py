"""Type rules of array expressions (NumPy's), as pure functions of the operand types.

Invariants: the result rank of an element-wise operation is the largest operand rank; dtype
promotion is NumPy's with Python scalars weak (a Python float or int scalar never widens an
array: float32 stays float32, int32 stays int32; an int array with a float scalar is float64);
true division of integers gives float64; comparisons give bool arrays.
"""

from __future__ import annotations

import ast

from enzyme_py.frontend.ftypes import BOOL, F64, I64, Array, FType, Scalar

_RANK = {"bool": 0, "i32": 1, "i64": 2, "f32": 3, "f64": 4}


def is_arrayish(t: FType | None) -> bool:
    return isinstance(t, Array)


def promote(types: list[FType]) -> Scalar:
    """The element type of an element-wise operation on `types` (arrays and scalars)."""
    arrays = [t.elem for t in types if isinstance(t, Array)]
    scalars = [t for t in types if isinstance(t, Scalar)]
    best = max(arrays, key=lambda s: _RANK[s.name]) if arrays else None
    for s in scalars:  # weak Python scalars: they change only the kind
        if best is None or (s.is_float and not best.is_float):
            best = F64 if s.is_float else (best if best is not None else s)
        elif s.is_int and best == BOOL:
            best = I64
    assert best is not None
    return best


def binop_elem(op: ast.operator, types: list[FType]) -> Scalar:
    """The element type of `a op b` where at least one operand is an array."""
    t = promote(types)
    if isinstance(op, ast.Div):
        return t if t.is_float else F64
    if isinstance(op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        if t.is_float:
            raise TypeError("bitwise operators need integer or boolean arrays")
        return t
    if isinstance(op, (ast.LShift, ast.RShift)):
        if t.is_float or t == BOOL:
            raise TypeError("shifts need integer arrays")
        return t
    if t == BOOL:  # NumPy's booleans: + is or, * is and, - is refused; others count
        if isinstance(op, (ast.Add, ast.Mult)):
            return BOOL
        if isinstance(op, ast.Sub):
            raise TypeError("the - operator is not supported on boolean arrays (as in "
                            "NumPy): use ^ or np.logical_xor, or .astype(int) to count")
        return I64
    return t


def result_rank(types: list[FType]) -> int:
    return max((t.ndim for t in types if isinstance(t, Array)), default=0)


def elementwise(op_elem: Scalar, types: list[FType]) -> Array:
    return Array(op_elem, result_rank(types))


def float_elem(t: Scalar) -> Scalar:
    """The float type a ufunc such as np.exp computes in for elements of type `t`."""
    return t if t.is_float else F64
