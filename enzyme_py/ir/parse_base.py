"""Parser core: token cursor, diagnostics, types, constants and attribute lists.

Invariant: every failure raises `ParseError` with `line:col`, the source line and what was
expected; no other exception escapes `parse` (the module parser converts stray internal errors
into a `ParseError` at the current token). A literal that LLVM rejects for its type (`double
64`, `i32 0x7FF8000000000000`; see `literals`) is a `ParseError` at the literal, never
converted to the type.
"""

from __future__ import annotations

import functools
import struct
from typing import NoReturn

from enzyme_py.ir import literals
from enzyme_py.ir import types as T
from enzyme_py.ir.errors import ParseError
from enzyme_py.ir.lexer import EOF, LineIndex, tokenize
from enzyme_py.ir.module import Module
from enzyme_py.ir.names import unescape, unescape_bytes
from enzyme_py.ir.values import (
    CAST_OPCODES,
    BlockAddress,
    Constant,
    ConstantAggregate,
    ConstantExpr,
    ConstantFloat,
    ConstantInt,
    ConstantKeyword,
    ConstantSplat,
    ConstantString,
    InlineAsm,
    MetadataValue,
    RawConstant,
    Value,
)

TYPE_WORDS = frozenset({"void", "ptr", "label", "metadata", "token", "target", "x86_amx",
                        *T.FLOAT_KINDS})
CONSTANT_WORDS = frozenset({
    "true", "false", "null", "undef", "poison", "zeroinitializer", "none", "splat",
    "blockaddress", "dso_local_equivalent", "no_cfi", "asm", "ptrauth", "getelementptr",
    *CAST_OPCODES, "add", "sub", "mul", "xor", "shl", "and", "or",
})
# Attributes written `word N` rather than `word(N)`.
ATTRS_WITH_INT = frozenset({"align", "cc", "addrspace"})
_SIMPLE_TYPES: dict[str, T.Type] = {
    "void": T.VOID, "label": T.LABEL, "metadata": T.METADATA, "token": T.TOKEN,
    **{k: T.FloatType(k) for k in T.FLOAT_KINDS},
}


_FAST_TYPES: dict[str, T.Type] = {
    **{f"i{n}": T.IntType(n) for n in (1, 8, 16, 32, 64, 128)}, "ptr": T.PTR,
    **{k: T.FloatType(k) for k in T.FLOAT_KINDS}, "void": T.VOID,
}


@functools.lru_cache(maxsize=65536)
def _name_of(token_text: str) -> str:
    """The name in `%x`, `@"a b"`, `$c` or a label `x:` (quotes removed, escapes decoded)."""
    body = token_text[1:] if token_text[0] in "%@$" else token_text
    if body.endswith(":"):
        body = body[:-1]
    if body.startswith('"'):
        return unescape(body[1:-1])
    return body


class ParserBase:
    def __init__(self, text: str, filename: str = "<string>") -> None:
        self.text = text
        self.filename = filename
        toks = tokenize(text)
        self.kinds = toks.kinds
        self.texts = toks.texts
        self.offsets = toks.offsets
        self.i = 0
        self._lines: LineIndex | None = None
        self._line_mark = (0, 1)  # (offset, its line): `line_at` counts on from here
        self.module = Module(filename)
        self.type_names: set[str] = set()

    # --- cursor -----------------------------------------------------------------------------

    @property
    def lines(self) -> LineIndex:
        if self._lines is None:
            self._lines = LineIndex(self.text)
        return self._lines

    def line_at(self, offset: int) -> int:
        """The 1-based line of `offset`, counted on from the last one asked for (offsets are
        asked for in increasing order while parsing, so the whole count is linear)."""
        mark, line = self._line_mark
        if offset < mark:
            return self.lines.position(offset)[0]
        line += self.text.count("\n", mark, offset)
        self._line_mark = (offset, line)
        return line

    def peek(self, ahead: int = 0) -> str:
        j = self.i + ahead
        return self.texts[j] if j < len(self.texts) else ""

    def kind(self, ahead: int = 0) -> str:
        j = self.i + ahead
        return self.kinds[j] if j < len(self.kinds) else EOF

    def next(self) -> str:
        t = self.texts[self.i]
        if self.kinds[self.i] == EOF:
            self.error("unexpected end of input")
        self.i += 1
        return t

    def accept(self, text: str) -> bool:
        if self.texts[self.i] == text and self.kinds[self.i] != "string":
            self.i += 1
            return True
        return False

    def expect(self, text: str, what: str | None = None) -> None:
        i = self.i
        if self.texts[i] == text and self.kinds[i] != "string":
            self.i = i + 1
            return
        self.error(f"expected '{text}'" + (f" {what}" if what else ""), expected=text)

    def expect_kind(self, kind: str, what: str) -> str:
        if self.kinds[self.i] != kind:
            self.error(f"expected {what}", expected=what)
        return self.next()

    def expect_int(self, what: str = "integer") -> int:
        return int(self.expect_kind("int", what))

    def error(self, message: str, *, at: int | None = None, expected: str = "") -> NoReturn:
        j = self.i if at is None else at
        j = min(j, len(self.offsets) - 1)
        offset = self.offsets[j]
        if self.kinds[j] == EOF and j > 0:  # point just past the last token, not at nothing
            offset = self.offsets[j - 1] + len(self.texts[j - 1])
        line, col = self.lines.position(offset)
        found = self.texts[j]
        if self.kinds[j] == "openstring":
            message += ", found a quoted string with no closing '\"' on its line"
        elif at is None and "found" not in message:
            message += f", found {_quoted(found) if found else 'end of input'}"
        raise ParseError(message, filename=self.filename, line=line, col=col,
                         source_line=self.lines.line_text(line), expected=expected)

    def slice_text(self, start: int, end: int) -> str:
        """Source text of tokens [start, end)."""
        if end <= start:
            return ""
        last = end - 1
        return self.text[self.offsets[start]:self.offsets[last] + len(self.texts[last])]

    def skip_balanced(self) -> int:
        """At an opening bracket: move past its match; return the index of the opener."""
        start = self.i
        pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
        stack = [pairs[self.next()]]
        while stack:
            k = self.kinds[self.i]
            if k == EOF:
                self.error("unbalanced brackets", at=start)
            t = self.next()
            if k == "string" or k == "cstring":
                continue
            if t in pairs:
                stack.append(pairs[t])
            elif t == stack[-1]:
                stack.pop()
        return start

    # --- types ------------------------------------------------------------------------------

    def at_type(self) -> bool:
        k, t = self.kinds[self.i], self.texts[self.i]
        if k == "word":
            return t in TYPE_WORDS or (t[0] == "i" and t[1:].isdigit())
        if k == "local":
            return True
        return k == "punct" and t in ("{", "[", "<")

    def parse_type(self, allow_function: bool = False) -> T.Type:
        k, t = self.kinds[self.i], self.texts[self.i]
        fast = _FAST_TYPES.get(t) if k == "word" else None
        if fast is not None and self.texts[self.i + 1] not in ("addrspace", "*", "("):
            self.i += 1  # the common case: a plain scalar type
            return fast
        start = self.i
        ty: T.Type
        if k == "word":
            self.i += 1
            if t[0] == "i" and t[1:].isdigit():
                ty = T.IntType(int(t[1:]))
            elif t == "ptr":
                ty = T.PTR
                if self.peek() == "addrspace":
                    self.i += 1
                    self.expect("(")
                    ty = T.PointerType(self.expect_int("address space"))
                    self.expect(")")
            elif t in _SIMPLE_TYPES:
                ty = _SIMPLE_TYPES[t]
            elif t == "target":
                if self.peek() != "(":
                    self.error("expected '(' after 'target'")
                self.skip_balanced()
                ty = T.TargetExtType(self.slice_text(start, self.i))
            elif t == "x86_amx":
                ty = T.OtherType(t)
            else:
                self.i -= 1
                self.error("expected a type")
        elif k == "local":
            name = _name_of(t)
            if name not in self.type_names and name not in self.module.types:
                self.error("expected a type")
            self.i += 1
            ty = self.module.get_or_create_struct(name)
        elif t == "[":
            self.i += 1
            n = self.expect_int("array length")
            self.expect("x")
            ty = T.ArrayType(n, self.parse_type())
            self.expect("]")
        elif t == "<":
            self.i += 1
            if self.peek() == "{":
                ty = self._struct_body(packed=True)
                self.expect(">")
            else:
                scalable = self.accept("vscale")
                if scalable:
                    self.expect("x")
                n = self.expect_int("vector length")
                self.expect("x")
                ty = T.VectorType(n, self.parse_type(), scalable)
                self.expect(">")
        elif t == "{":
            ty = self._struct_body(packed=False)
        else:
            self.error("expected a type")
        if self.peek() == "*":
            self.error("typed pointers ('T*') are not LLVM 22 IR; use 'ptr'")
        while allow_function and self.peek() == "(":
            ty = self._function_type(ty)
        return ty

    def _struct_body(self, packed: bool) -> T.StructType:
        self.expect("{")
        elems: list[T.Type] = []
        if not self.accept("}"):
            elems.append(self.parse_type())
            while self.accept(","):
                elems.append(self.parse_type())
            self.expect("}")
        return T.StructType(tuple(elems), packed)

    def _function_type(self, ret: T.Type) -> T.FunctionType:
        self.expect("(")
        params: list[T.Type] = []
        vararg = False
        if not self.accept(")"):
            while True:
                if self.accept("..."):
                    vararg = True
                    break
                params.append(self.parse_type())
                self.parse_attributes()
                if not self.accept(","):
                    break
            self.expect(")")
        return T.FunctionType(ret, tuple(params), vararg)

    # --- attributes -------------------------------------------------------------------------

    def at_line_start(self) -> bool:
        """True when a newline separates the current token from the previous one."""
        j = self.i
        if j == 0:
            return True
        return "\n" in self.text[self.offsets[j - 1] + len(self.texts[j - 1]):self.offsets[j]]

    def parse_attributes(self, stop: frozenset[str] = frozenset(),
                         same_line: bool = False) -> list[str]:
        """Attribute words (`noundef`, `align 8`, `dereferenceable(16)`, `"k"="v"`, `#3`).

        With `same_line`, stop at a line break: trailing attributes never continue on the next
        line in LLVM's output, and the next line starts a new instruction or entity.
        """
        out: list[str] = []
        while True:
            k, t = self.kinds[self.i], self.texts[self.i]
            start = self.i
            if same_line and self.at_line_start():
                return out
            if (k == "word" and t not in CONSTANT_WORDS and t not in stop
                    and t not in TYPE_WORDS and not (t[0] == "i" and t[1:].isdigit())):
                self.i += 1
                if self.texts[self.i] == "(" and self.kinds[self.i] == "punct":
                    self.skip_balanced()
                elif t in ATTRS_WITH_INT and self.kinds[self.i] == "int":
                    self.i += 1
            elif k == "attrgrp":
                self.i += 1
            elif k == "string" and self.texts[self.i + 1] == "=":
                self.i += 3
            elif k == "string" and self.kinds[self.i + 1] != "punct":
                self.i += 1
            else:
                return out
            out.append(self.slice_text(start, self.i))

    # --- values -----------------------------------------------------------------------------

    def parse_typed_value(self) -> Value:
        ty = self.parse_type()
        return self.parse_value(ty)

    def parse_local(self, ty: T.Type) -> Value:
        self.error("local value outside a function")

    def parse_value(self, ty: T.Type) -> Value:
        k = self.kinds[self.i]
        if k == "local":
            return self.parse_local(ty)
        return self.parse_constant(ty)

    def parse_global_ref(self) -> Constant:
        t = self.texts[self.i]
        sym = self.module.symbols.get(_name_of(t))
        if sym is None:
            self.error(f"use of undefined global {t}")
        self.i += 1
        return sym

    def parse_constant(self, ty: T.Type) -> Constant:
        k, t = self.kinds[self.i], self.texts[self.i]
        start = self.i
        if k == "global":
            return self.parse_global_ref()
        if k == "int" or k == "hexint":
            self._literal(literals.int_literal(ty, t), ty, t)
            self.i += 1
            return ConstantInt(ty, int(t) if k == "int" else literals.hex_int_value(t, ty))
        if k == "float":
            value = float(t)
            self._literal(literals.float_literal(ty, value, t), ty, t)
            self.i += 1
            return ConstantFloat(ty, value)
        if k == "hexfp":
            if t[2] not in literals.HEX_FLOAT_KINDS and int(t[2:], 16) >> 64:
                self.error(f"hexadecimal constant {t} has more than 64 bits", at=self.i)
            self._literal(literals.float_literal(ty, _double_bits(t), t), ty, t)
            self.i += 1
            return self._hex_constant(ty, t)
        if k == "cstring":
            self.i += 1
            return ConstantString(ty, unescape_bytes(t[2:-1]))
        if k == "meta" or ty == T.METADATA:
            return MetadataValue(self._metadata_text())
        if k == "word":
            if t in ("true", "false"):
                self._literal(literals.keyword_literal(ty, t), ty, t)
                self.i += 1
                return ConstantInt(ty, 1 if t == "true" else 0)
            if t in ConstantKeyword.KEYWORDS:
                self._literal(literals.keyword_literal(ty, t), ty, t)
                self.i += 1
                return ConstantKeyword(ty, t)
            if t == "splat":
                self.i += 1
                self.expect("(")
                elem = self.parse_typed_value()
                self.expect(")")
                return ConstantSplat(ty, elem)
            if t == "blockaddress":
                return self._blockaddress(ty)
            if t in ("dso_local_equivalent", "no_cfi"):
                self.i += 1
                return ConstantExpr(ty, t, (self.parse_global_ref(),))
            if t == "asm":
                return self._inline_asm(ty)
            if t == "ptrauth":
                self.i += 1
                self.skip_balanced()
                return RawConstant(ty, self.slice_text(start, self.i))
            if t in CONSTANT_WORDS:
                return self._constant_expr(ty)
        if t == "[" or t == "{" or (t == "<" and k == "punct"):
            return self._aggregate(ty)
        self.error(f"expected a constant of type {ty}")

    def _literal(self, problem: str | None, ty: T.Type, t: str) -> None:
        """Reject a literal LLVM rejects for `ty` (see `literals`), at the literal."""
        if problem is not None:
            self.error(f"{problem}: '{ty} {t}'", at=self.i)

    def _hex_constant(self, ty: T.Type, t: str) -> Constant:
        if t[2] in "KLMHR" or ty not in (T.DOUBLE, T.FLOAT):
            value = float("nan")
            if t[2] == "H" and ty == T.HALF:
                value = struct.unpack("<e", int(t[3:], 16).to_bytes(2, "little"))[0]
            return ConstantFloat(ty, value, raw=t)
        value = _double_bits(t)
        return ConstantFloat(ty, value, raw=t if value != value else None)

    def _aggregate(self, ty: T.Type) -> Constant:
        t = self.next()
        close = {"[": "]", "{": "}", "<": ">"}[t]
        if t == "<" and self.peek() == "{":
            self.i += 1
            close = "}"
        elems: list[Value] = []
        if not self.accept(close):
            elems.append(self.parse_typed_value())
            while self.accept(","):
                elems.append(self.parse_typed_value())
            self.expect(close)
        if t == "<" and close == "}":
            self.expect(">")
        return ConstantAggregate(ty, tuple(elems))

    def _blockaddress(self, ty: T.Type) -> Constant:
        self.i += 1
        self.expect("(")
        fn = self.parse_global_ref()
        self.expect(",")
        label = self.expect_kind("local", "block label")
        self.expect(")")
        ba = BlockAddress(ty, fn, None)
        self.pending_blockaddresses.append((ba, _name_of(label), self.i - 2))
        return ba

    pending_blockaddresses: list[tuple[BlockAddress, str, int]]

    def _inline_asm(self, ty: T.Type) -> Value:
        start = self.i
        self.i += 1
        while self.kinds[self.i] == "word":
            self.i += 1
        self.expect_kind("string", "inline asm string")
        self.expect(",")
        self.expect_kind("string", "inline asm constraints")
        return InlineAsm(ty, self.slice_text(start, self.i))

    def _constant_expr(self, ty: T.Type) -> Constant:
        op = self.next()
        flags: list[str] = []
        extra = ""
        while self.kinds[self.i] == "word":
            if self.peek() == "inrange":
                s = self.i
                self.i += 1
                self.skip_balanced()
                extra = self.slice_text(s, self.i)
            else:
                flags.append(self.next())
        self.expect("(")
        if op == "getelementptr":
            src = self.parse_type()
            self.expect(",")
            ops = [self.parse_typed_value()]
            while self.accept(","):
                ops.append(self.parse_typed_value())
            self.expect(")")
            return ConstantExpr(ty, op, tuple(ops), tuple(flags), src, extra)
        if op in CAST_OPCODES:
            v = self.parse_typed_value()
            self.expect("to")
            to = self.parse_type()
            self.expect(")")
            return ConstantExpr(to, op, (v,), tuple(flags))
        ops = [self.parse_typed_value()]
        while self.accept(","):
            ops.append(self.parse_typed_value())
        self.expect(")")
        return ConstantExpr(ty, op, tuple(ops), tuple(flags))

    def _metadata_text(self) -> str:
        """One metadata operand (`!5`, `!"s"`, `!{...}`, `!DIExpression(...)`) as text."""
        start = self.i
        k, t = self.kinds[self.i], self.texts[self.i]
        if t == "distinct":
            self.i += 1
            k, t = self.kinds[self.i], self.texts[self.i]
        if k != "meta":
            # `metadata i32 0` / `metadata ptr %x`: a value wrapped as metadata.
            self.parse_typed_value()
            return self.slice_text(start, self.i)
        self.i += 1
        if t == "!":
            nk = self.kinds[self.i]
            if nk == "string":
                self.i += 1
            elif self.texts[self.i] == "{":
                self.skip_balanced()
            else:
                self.error("expected metadata")
        elif self.texts[self.i] == "(" and t[1:2].isalpha() and not t[1:].isdigit():
            self.skip_balanced()
        return self.slice_text(start, self.i)


def _double_bits(t: str) -> float:
    """The double whose bits a plain `0x` literal spells (NaN for a prefixed one)."""
    if t[2] in literals.HEX_FLOAT_KINDS:
        return float("nan")
    return struct.unpack("<d", int(t[2:], 16).to_bytes(8, "little"))[0]


def _quoted(token: str, limit: int = 40) -> str:
    """A token for a message: its first line, at most `limit` characters."""
    first = token.split("\n", 1)[0]
    return repr(first if len(first) <= limit else first[:limit] + "...")
