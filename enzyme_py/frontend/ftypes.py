"""Types of the Python subset, and how values of each type look in IR.

Invariants: scalars are `f64`, `f32`, `i64`, `i32`, `bool`; an array is a strided view of one
scalar dtype with `ndim` dimensions. As an argument it is passed as a data pointer followed by
`ndim` i64 extents, and, when `strided` (the caller's array is not C-contiguous), by `ndim` i64
strides in elements (any sign); a C-contiguous argument's strides are implied by its extents.
Inside a function every array value carries its strides, so `strided` matters for the ABI
only: types that differ in it alone unify. A tuple return is a literal IR struct. `unify`
implements Python's numeric promotion (bool < int < float) and never mixes arrays with
scalars.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from enzyme_py.ir import types as T


@dataclass(frozen=True)
class Scalar:
    name: str  # f64 f32 i64 i32 bool

    def __str__(self) -> str:
        return {"f64": "float", "f32": "float32", "i64": "int", "i32": "int32",
                "bool": "bool"}[self.name]

    @property
    def is_float(self) -> bool:
        return self.name in ("f64", "f32")

    @property
    def is_int(self) -> bool:
        return self.name in ("i64", "i32")

    @property
    def ir(self) -> T.Type:
        return _SCALAR_IR[self.name]

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(_SCALAR_DTYPE[self.name])


@dataclass(frozen=True)
class Array:
    elem: Scalar
    ndim: int
    strided: bool = False  # passed with explicit strides (a non-contiguous argument)

    def __str__(self) -> str:
        return f"{self.elem.dtype.name}[{', '.join(':' * self.ndim)}]"

    @property
    def value(self) -> Array:
        """The type of values (the ABI's `strided` flag dropped)."""
        return Array(self.elem, self.ndim) if self.strided else self

    @property
    def extents(self) -> int:
        """How many i64 words follow the data pointer in the ABI."""
        return self.ndim * (2 if self.strided else 1)

    def same_values(self, other: object) -> bool:
        return isinstance(other, Array) and other.elem == self.elem and \
            other.ndim == self.ndim


@dataclass(frozen=True)
class Tuple:
    items: tuple[Scalar, ...]

    def __str__(self) -> str:
        return f"tuple[{', '.join(str(i) for i in self.items)}]"

    @property
    def ir(self) -> T.Type:
        return T.StructType(tuple(i.ir for i in self.items))


@dataclass(frozen=True)
class NoneType:
    def __str__(self) -> str:
        return "None"


@dataclass(frozen=True)
class Text(NoneType):
    """A string known at compile time: a literal, a parameter's default, an argument bound
    to one (`np.convolve(a, v, mode="same")`, `def act(x, kind="relu")`).

    Like None it has no run-time value (no IR parameter, no result field: a `NoneType`),
    and each value is its own type, so a callee is specialized per string; a test of it
    (`kind == "relu"`) is decided while compiling (`static_conditions`). In the compiler a
    variable bound to one holds the Python `str`."""

    value: str = ""

    def __str__(self) -> str:
        return f"str {self.value!r}"


@dataclass(frozen=True)
class Tree:
    """A container of values whose structure is part of the type (a pytree, as in JAX): a
    tuple, list or dict, or a record (a `NamedTuple` or dataclass class `cls`).

    `items` are the children's types (numbers, arrays, `None`, or trees), in the order of
    their leaves: a dict's `keys` in sorted order (JAX's), a record's field names in
    declaration order; `keys` is empty for tuples and lists. As an argument or result a tree
    is its leaves' ABI, one after the other, in this order (a `None` child has none)."""

    kind: str  # "tuple" | "list" | "dict" | "record"
    items: tuple[FType, ...]
    keys: tuple = ()
    cls: type | None = None  # a record's class

    def __str__(self) -> str:
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {t}" for k, t in zip(self.keys, self.items,
                                                               strict=True)) + "}"
        inner = ", ".join(str(t) for t in self.items)
        if self.kind == "record":
            assert self.cls is not None
            return f"{self.cls.__name__}({inner})"
        return f"[{inner}]" if self.kind == "list" else f"({inner})"

    @property
    def value(self) -> Tree:
        return self

    def index_of(self, key: object) -> int | None:
        """The child for a subscript (`t[k]`) or attribute (`t.name`, records): its
        position, or None when there is no such child."""
        if self.kind in ("tuple", "list"):
            n = len(self.items)
            if isinstance(key, int) and not isinstance(key, bool) and -n <= key < n:
                return key % n
            return None
        return self.keys.index(key) if key in self.keys else None


def tree_leaves(t: FType) -> list[FType]:
    """The leaf types of `t` in ABI order (`t` itself unless it is a tree; `None` has
    none)."""
    if isinstance(t, Tree):
        return [leaf for item in t.items for leaf in tree_leaves(item)]
    return [] if isinstance(t, NoneType) else [t]


FType = Scalar | Array | Tuple | NoneType | Tree

F64, F32, I64, I32, BOOL = Scalar("f64"), Scalar("f32"), Scalar("i64"), Scalar("i32"), \
    Scalar("bool")
NONE = NoneType()
_SCALAR_IR = {"f64": T.DOUBLE, "f32": T.FLOAT, "i64": T.I64, "i32": T.I32, "bool": T.I1}
_SCALAR_DTYPE = {"f64": "float64", "f32": "float32", "i64": "int64", "i32": "int32",
                 "bool": "bool"}
_DTYPE_SCALAR = {np.dtype("float64"): F64, np.dtype("float32"): F32, np.dtype("int64"): I64,
                 np.dtype("int32"): I32, np.dtype("bool"): BOOL}
_RANK = {"bool": 0, "i32": 1, "i64": 2, "f32": 3, "f64": 4}


def scalar_of_dtype(dtype: np.dtype) -> Scalar | None:
    return _DTYPE_SCALAR.get(np.dtype(dtype))


def type_of_value(value: object) -> FType | None:
    """The subset type of a Python argument value, or None when unsupported."""
    if isinstance(value, bool | np.bool_):
        return BOOL
    if isinstance(value, int | np.integer):
        if isinstance(value, np.integer):
            return scalar_of_dtype(value.dtype)
        return I64
    if isinstance(value, float | np.floating):
        if isinstance(value, np.floating):
            return scalar_of_dtype(value.dtype)
        return F64
    if isinstance(value, np.ndarray):
        elem = scalar_of_dtype(value.dtype)
        if elem is None or elem == BOOL or value.ndim == 0:
            return None
        return Array(elem, value.ndim, not value.flags.c_contiguous)
    return None


def element_strides(value: np.ndarray) -> list[int] | None:
    """The strides of an array in elements, or None when one is not a whole number of
    elements (a view of a structured array's field)."""
    size = value.itemsize
    if any(s % size for s in value.strides):
        return None
    return [s // size for s in value.strides]


def abi_extents(t: Array, value: np.ndarray) -> list[int]:
    """The i64 words after the data pointer: extents, then (strided) element strides."""
    if not t.strided:
        return list(value.shape)
    strides = element_strides(value)
    assert strides is not None  # checked when the type was chosen
    return [*value.shape, *strides]


def unify(a: FType, b: FType) -> FType | None:
    """The type holding both (Python's numeric promotion), or None if they do not mix."""
    if a == b:
        return a
    if isinstance(a, Array) and a.same_values(b):
        return a.value
    if isinstance(a, Scalar) and isinstance(b, Scalar):
        # float32 with a Python int stays float32 (numpy's scalar rule); f32 + f64 -> f64
        return a if _RANK[a.name] >= _RANK[b.name] else b
    return None


def arithmetic_result(a: Scalar, b: Scalar) -> Scalar:
    t = unify(a, b)
    assert isinstance(t, Scalar)
    return I64 if t == BOOL else t
