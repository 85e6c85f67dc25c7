"""LLVM types.

Invariants: types are immutable and compare by structure, except identified structs
(`%struct.S`), which compare by name and whose body is set once by the module that owns them.
`str(t)` is the LLVM spelling of the type. Pointers are opaque (`ptr`), as in LLVM 22.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class Type:
    """Base of all types."""

    __slots__ = ()

    @property
    def is_float(self) -> bool:
        """A scalar floating point type (`half` ... `fp128`)."""
        return False

    @property
    def is_fp_or_fp_vector(self) -> bool:
        """A floating point scalar or a vector of them: the types that carry derivatives."""
        return False

    @property
    def is_int(self) -> bool:
        return False

    @property
    def is_pointer(self) -> bool:
        return False

    @property
    def is_void(self) -> bool:
        return False

    @property
    def is_aggregate(self) -> bool:
        return False

    @property
    def scalar(self) -> Type:
        """The element type of a vector, or the type itself."""
        return self


@dataclass(frozen=True, slots=True)
class VoidType(Type):
    def __str__(self) -> str:
        return "void"

    @property
    def is_void(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class LabelType(Type):
    def __str__(self) -> str:
        return "label"


@dataclass(frozen=True, slots=True)
class MetadataType(Type):
    def __str__(self) -> str:
        return "metadata"


@dataclass(frozen=True, slots=True)
class TokenType(Type):
    def __str__(self) -> str:
        return "token"


@dataclass(frozen=True, slots=True)
class IntType(Type):
    bits: int

    def __str__(self) -> str:
        return f"i{self.bits}"

    @property
    def is_int(self) -> bool:
        return True


FLOAT_KINDS = ("half", "bfloat", "float", "double", "x86_fp80", "fp128", "ppc_fp128")
FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64, "x86_fp80": 80,
              "fp128": 128, "ppc_fp128": 128}


@dataclass(frozen=True, slots=True)
class FloatType(Type):
    kind: str

    def __str__(self) -> str:
        return self.kind

    @property
    def bits(self) -> int:
        return FLOAT_BITS[self.kind]

    @property
    def is_float(self) -> bool:
        return True

    @property
    def is_fp_or_fp_vector(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class PointerType(Type):
    addrspace: int = 0

    def __str__(self) -> str:
        return "ptr" if self.addrspace == 0 else f"ptr addrspace({self.addrspace})"

    @property
    def is_pointer(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class VectorType(Type):
    count: int
    element: Type
    scalable: bool = False

    def __str__(self) -> str:
        vs = "vscale x " if self.scalable else ""
        return f"<{vs}{self.count} x {self.element}>"

    @property
    def is_fp_or_fp_vector(self) -> bool:
        return self.element.is_float

    @property
    def scalar(self) -> Type:
        return self.element


@dataclass(frozen=True, slots=True)
class ArrayType(Type):
    count: int
    element: Type

    def __str__(self) -> str:
        return f"[{self.count} x {self.element}]"

    @property
    def is_aggregate(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class StructType(Type):
    """A literal struct type `{ i32, double }` (or packed `<{ ... }>`)."""

    elements: tuple[Type, ...]
    packed: bool = False

    def __str__(self) -> str:
        if not self.elements:
            return "<{}>" if self.packed else "{}"
        body = ", ".join(str(e) for e in self.elements)
        return f"<{{ {body} }}>" if self.packed else f"{{ {body} }}"

    @property
    def is_aggregate(self) -> bool:
        return True


@dataclass(eq=False, slots=True)
class IdentifiedStructType(Type):
    """A named struct `%struct.S`; `elements is None` while opaque or not yet defined."""

    name: str
    elements: tuple[Type, ...] | None = None
    packed: bool = False

    def __str__(self) -> str:
        from enzyme_py.ir.names import local_ref

        return local_ref(self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IdentifiedStructType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("%struct", self.name))

    @property
    def is_aggregate(self) -> bool:
        return True

    @property
    def is_opaque(self) -> bool:
        return self.elements is None

    def body_text(self) -> str:
        """The right-hand side of `%name = type ...`."""
        if self.elements is None:
            return "opaque"
        return str(StructType(self.elements, self.packed))


@dataclass(frozen=True, slots=True)
class TargetExtType(Type):
    """`target("name", params...)`: kept as text; never differentiated."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class OtherType(Type):
    """Rare scalar types kept by name (`x86_amx`)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class FunctionType(Type):
    ret: Type
    params: tuple[Type, ...] = field(default=())
    vararg: bool = False

    def __str__(self) -> str:
        ps = [str(p) for p in self.params]
        if self.vararg:
            ps.append("...")
        return f"{self.ret} ({', '.join(ps)})"


# Shared instances: use these rather than constructing new ones in hot code.
VOID = VoidType()
LABEL = LabelType()
METADATA = MetadataType()
TOKEN = TokenType()
I1 = IntType(1)
I8 = IntType(8)
I16 = IntType(16)
I32 = IntType(32)
I64 = IntType(64)
HALF = FloatType("half")
FLOAT = FloatType("float")
DOUBLE = FloatType("double")
PTR = PointerType(0)


def struct_elements(t: Type) -> tuple[Type, ...]:
    """Element types of a literal or identified struct (empty for opaque)."""
    if isinstance(t, StructType):
        return t.elements
    if isinstance(t, IdentifiedStructType):
        return t.elements or ()
    raise TypeError(f"{t} is not a struct type")


def element_type_at(t: Type, index: int) -> Type:
    """The type reached by one aggregate index (for extractvalue/insertvalue/GEP)."""
    if isinstance(t, (ArrayType, VectorType)):
        return t.element
    return struct_elements(t)[index]


def carries_pointer(t: Type) -> bool:
    """Types whose values can hold a pointer (a vector or an aggregate of them too)."""
    if t.is_pointer:
        return True
    if isinstance(t, (ArrayType, VectorType)):
        return carries_pointer(t.element)
    if isinstance(t, (StructType, IdentifiedStructType)):
        return any(carries_pointer(e) for e in struct_elements(t))
    return False


def carries_float(t: Type) -> bool:
    """Types whose values can carry a derivative (float data, in aggregates too)."""
    if t.is_fp_or_fp_vector:
        return True
    if isinstance(t, ArrayType):
        return carries_float(t.element)
    if isinstance(t, (StructType, IdentifiedStructType)):
        return any(carries_float(e) for e in struct_elements(t))
    return False
