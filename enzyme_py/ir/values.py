"""SSA values: the base class, function arguments, constants, and opaque operands.

Invariants: every value has a `type`; `name` is `None` for anonymous values (the printer numbers
them `%0, %1, ...` in order, so numbers are never stored). Constants are immutable and print
without context (`ref()`); locals (arguments, instructions, blocks) are printed by the printer,
which owns their numbering.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from typing import TYPE_CHECKING

from enzyme_py.ir import types as T
from enzyme_py.ir.names import escape_bytes, global_ref

if TYPE_CHECKING:
    from enzyme_py.ir.module import Block, Function


class Value:
    """Anything that can be an operand."""

    __slots__ = ("type", "name")

    def __init__(self, type: T.Type, name: str | None = None) -> None:
        self.type = type
        self.name = name

    def ref(self) -> str:  # pragma: no cover - overridden where context-free
        raise NotImplementedError(f"{type(self).__name__} is printed by the printer")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name or '?'}: {self.type}>"


class Argument(Value):
    """A formal parameter; `attrs` are its parameter attributes as LLVM spells them."""

    __slots__ = ("attrs", "parent", "index")

    def __init__(self, type: T.Type, name: str | None = None, attrs: list[str] | None = None,
                 parent: Function | None = None, index: int = 0) -> None:
        super().__init__(type, name)
        self.attrs = attrs if attrs is not None else []
        self.parent = parent
        self.index = index


class Placeholder(Value):
    """A forward reference met by the parser; replaced before parsing returns."""

    __slots__ = ("key", "pos")

    def __init__(self, type: T.Type, key: str, pos: int) -> None:
        super().__init__(type, None)
        self.key = key
        self.pos = pos


# --- constants --------------------------------------------------------------------------------


class Constant(Value):
    """Base of constants. Subclasses are immutable after construction."""

    __slots__ = ()

    def operands(self) -> tuple[Value, ...]:
        return ()

    def walk(self) -> Iterator[Value]:
        """This constant and every constant nested in it (depth first)."""
        yield self
        for op in self.operands():
            if isinstance(op, Constant):
                yield from op.walk()
            else:
                yield op


class ConstantInt(Constant):
    __slots__ = ("value",)

    def __init__(self, type: T.Type, value: int) -> None:
        super().__init__(type)
        self.value = value

    def ref(self) -> str:
        if self.type == T.I1:
            return "true" if self.value & 1 else "false"
        return str(self.value)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConstantInt) and other.type == self.type
                and other.value == self.value)

    def __hash__(self) -> int:
        return hash((self.type, self.value))


def format_double(x: float) -> str:
    """LLVM's spelling of a double constant: `%e` with 6 digits when exact, hex otherwise."""
    if math.isfinite(x):
        s = f"{x:.6e}"
        if float(s) == x:
            return s
    bits = struct.unpack("<Q", struct.pack("<d", x))[0]
    return f"0x{bits:016X}"


class ConstantFloat(Constant):
    """A floating point constant; `raw` keeps the spelling of kinds other than float/double."""

    __slots__ = ("value", "raw")

    def __init__(self, type: T.Type, value: float, raw: str | None = None) -> None:
        super().__init__(type)
        self.value = value
        self.raw = raw

    def ref(self) -> str:
        if self.raw is not None:
            return self.raw
        return format_double(self.value)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConstantFloat) and other.type == self.type
                and other.ref() == self.ref())

    def __hash__(self) -> int:
        return hash((self.type, self.ref()))


class ConstantKeyword(Constant):
    """`null`, `undef`, `poison`, `zeroinitializer`, `none`."""

    __slots__ = ("keyword",)

    KEYWORDS = ("null", "undef", "poison", "zeroinitializer", "none")

    def __init__(self, type: T.Type, keyword: str) -> None:
        super().__init__(type)
        self.keyword = keyword

    def ref(self) -> str:
        return self.keyword

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConstantKeyword) and other.type == self.type
                and other.keyword == self.keyword)

    def __hash__(self) -> int:
        return hash((self.type, self.keyword))


def typed(v: Value) -> str:
    return f"{v.type} {v.ref()}"


class ConstantAggregate(Constant):
    """`[...]`, `{...}`, `<{...}>` or `<...>` built from element constants."""

    __slots__ = ("elements",)

    def __init__(self, type: T.Type, elements: tuple[Value, ...]) -> None:
        super().__init__(type)
        self.elements = elements

    def operands(self) -> tuple[Value, ...]:
        return self.elements

    def ref(self) -> str:
        body = ", ".join(typed(e) for e in self.elements)
        t = self.type
        if isinstance(t, T.ArrayType):
            return f"[{body}]"
        if isinstance(t, T.VectorType):
            return f"<{body}>"
        packed = t.packed if isinstance(t, (T.StructType, T.IdentifiedStructType)) else False
        if not self.elements:
            return "<{}>" if packed else "{}"
        return f"<{{ {body} }}>" if packed else f"{{ {body} }}"


class ConstantString(Constant):
    """`c"..."`: an `[N x i8]` array given as bytes."""

    __slots__ = ("data",)

    def __init__(self, type: T.Type, data: bytes) -> None:
        super().__init__(type)
        self.data = data

    def ref(self) -> str:
        return f'c"{escape_bytes(self.data)}"'


class ConstantSplat(Constant):
    """`splat (double 1.0)`: a vector with every lane equal."""

    __slots__ = ("element",)

    def __init__(self, type: T.Type, element: Value) -> None:
        super().__init__(type)
        self.element = element

    def operands(self) -> tuple[Value, ...]:
        return (self.element,)

    def ref(self) -> str:
        return f"splat ({typed(self.element)})"


class ConstantExpr(Constant):
    """A constant expression: casts, `getelementptr`, binary ops, and the few keyword forms.

    `source_type` is the GEP source element type; `extra` keeps text that has no meaning for
    AD (`inrange(...)`), printed where LLVM puts it.
    """

    __slots__ = ("opcode", "ops", "flags", "source_type", "extra")

    def __init__(self, type: T.Type, opcode: str, ops: tuple[Value, ...],
                 flags: tuple[str, ...] = (), source_type: T.Type | None = None,
                 extra: str = "") -> None:
        super().__init__(type)
        self.opcode = opcode
        self.ops = ops
        self.flags = flags
        self.source_type = source_type
        self.extra = extra

    def operands(self) -> tuple[Value, ...]:
        return self.ops

    def ref(self) -> str:
        flags = "".join(f" {f}" for f in self.flags)
        extra = f" {self.extra}" if self.extra else ""
        if self.opcode == "getelementptr":
            args = ", ".join(typed(o) for o in self.ops)
            return f"getelementptr{flags}{extra} ({self.source_type}, {args})"
        if self.opcode in CAST_OPCODES:
            return f"{self.opcode}{flags} ({typed(self.ops[0])} to {self.type})"
        if self.opcode in ("dso_local_equivalent", "no_cfi"):
            return f"{self.opcode} {self.ops[0].ref()}"
        args = ", ".join(typed(o) for o in self.ops)
        return f"{self.opcode}{flags} ({args})"


CAST_OPCODES = frozenset({
    "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
    "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "ptrtoaddr",
})


class BlockAddress(Constant):
    """`blockaddress(@f, %bb)`; `block` is resolved when the whole module is parsed."""

    __slots__ = ("function", "block")

    def __init__(self, type: T.Type, function: Value, block: Block | None) -> None:
        super().__init__(type)
        self.function = function
        self.block = block

    def operands(self) -> tuple[Value, ...]:
        return (self.function,)

    def ref(self) -> str:  # the printer spells the block with the function's numbering
        from enzyme_py.ir.printer import block_ref_in

        return f"blockaddress({self.function.ref()}, {block_ref_in(self.block)})"


class RawConstant(Constant):
    """A constant kept as text because it has no meaning for AD (`ptrauth (...)`)."""

    __slots__ = ("text",)

    def __init__(self, type: T.Type, text: str) -> None:
        super().__init__(type)
        self.text = text

    def ref(self) -> str:
        return self.text


class MetadataValue(Value):
    """A `metadata ...` call operand, kept as text (`!12`, `!"round.dynamic"`)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        super().__init__(T.METADATA)
        self.text = text

    def ref(self) -> str:
        return self.text


class InlineAsm(Value):
    """`asm sideeffect "...", "..."` as a callee, kept as text."""

    __slots__ = ("text",)

    def __init__(self, type: T.Type, text: str) -> None:
        super().__init__(type)
        self.text = text

    def ref(self) -> str:
        return self.text


class GlobalValue(Constant):
    """Base of functions, global variables and aliases: a constant `ptr` to a named symbol."""

    __slots__ = ("prefix",)

    def __init__(self, name: str, prefix: list[str] | None = None) -> None:
        super().__init__(T.PTR, name)
        self.prefix = prefix if prefix is not None else []

    def ref(self) -> str:
        assert self.name is not None
        return global_ref(self.name)

    @property
    def linkage(self) -> str:
        """The linkage keyword (`internal`, `linkonce_odr`, ...) or `external` when implicit."""
        for word in self.prefix:
            if word in LINKAGES:
                return word
        return "external"


def global_pointer_type(prefix: list[str]) -> T.Type:
    """The type of a global's address: `ptr`, or `ptr addrspace(N)` when its definition says
    `addrspace(N)` among the words before `global`."""
    for word in prefix:
        if word.startswith("addrspace(") and word.endswith(")"):
            return T.PointerType(int(word[len("addrspace("):-1]))
    return T.PTR


LINKAGES = frozenset({
    "private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
    "extern_weak", "linkonce_odr", "weak_odr", "external",
})


def const_int(type: T.Type, value: int) -> ConstantInt:
    return ConstantInt(type, value)


def round_to(kind: str, x: float) -> float:
    """`x` rounded to the precision of float kind `kind` (LLVM rejects inexact constants)."""
    if kind == "float":
        return struct.unpack("<f", struct.pack("<f", x))[0]
    if kind == "half":
        return struct.unpack("<e", struct.pack("<e", x))[0]
    if kind == "bfloat":
        bits = struct.unpack("<I", struct.pack("<f", x))[0]
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round to nearest even
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return x


def const_float(type: T.Type, value: float) -> ConstantFloat:
    """A float constant of `type` (scalar, or a vector splat when `type` is a vector), rounded
    to the type's precision."""
    if isinstance(type, T.VectorType):
        return ConstantSplat(type, const_float(type.element, value))  # type: ignore[return-value]
    kind = type.kind if isinstance(type, T.FloatType) else "double"
    return ConstantFloat(type, round_to(kind, value))


def zero(type: T.Type) -> Constant:
    """The zero of any first-class type (`0.0`, `0`, `null`, `zeroinitializer`)."""
    if type.is_float:
        return ConstantFloat(type, 0.0)
    if type.is_int:
        return ConstantInt(type, 0)
    if type.is_pointer:
        return ConstantKeyword(type, "null")
    return ConstantKeyword(type, "zeroinitializer")


def strip_constant_casts(v: Value) -> Value:
    """`v` without the `bitcast` / `addrspacecast` constant expressions around it."""
    while isinstance(v, ConstantExpr) and v.opcode in ("bitcast", "addrspacecast"):
        v = v.ops[0]
    return v
