"""Which literal spellings LLVM accepts for which types (LangRef, "Simple Constants").

Invariant: each check returns None where LLVM 22's parser accepts the literal for the type, and
otherwise LLVM's own message, so no literal is ever silently converted to another type:

- a decimal integer (`64`, `-1`) or a signed/unsigned hexadecimal integer (`s0x80`, `u0xFF`)
  needs an integer type ("integer constant must have integer type");
- a decimal float (`1.5`, `1.0e+3`) and a plain hexadecimal float (`0x3FF0000000000000`, the
  bits of a double) need `half`, `bfloat`, `float` or `double`, and must be exactly
  representable in it ("floating point constant invalid for type");
- `0xK` is `x86_fp80`, `0xL` `fp128`, `0xM` `ppc_fp128`, `0xH` `half`, `0xR` `bfloat` only;
- `true` / `false` are `i1`, `null` a pointer, `none` a `token`.
"""

from __future__ import annotations

import math
import struct

from enzyme_py.ir import types as T

INT_ONLY = "integer constant must have integer type"
FLOAT_INVALID = "floating point constant invalid for type"

#: The type each prefixed hexadecimal float spells (`0xK...` is an x86_fp80, ...).
HEX_FLOAT_KINDS = {"K": "x86_fp80", "L": "fp128", "M": "ppc_fp128", "H": "half", "R": "bfloat"}
#: Mantissa bits of the kinds a double converts to, for NaN payloads.
_MANTISSA = {"half": 10, "bfloat": 7, "float": 23, "double": 52}


def int_literal(ty: T.Type, text: str) -> str | None:
    """An integer literal (decimal, `s0x`, `u0x`) of type `ty`."""
    if ty.is_int:
        return None
    if isinstance(ty, T.FloatType) and ty.kind in _MANTISSA and text[0] not in "su":
        return f"{INT_ONLY} (a {ty} is written {text}.0)"
    return INT_ONLY


def float_literal(ty: T.Type, value: float, text: str) -> str | None:
    """A decimal float, or a hexadecimal one (`text` starts with `0x`), of type `ty`.

    `value` is the double the literal spells (for a plain `0x`) or parses to (decimal)."""
    kind = ty.kind if isinstance(ty, T.FloatType) else None
    if text.startswith("0x") and text[2:3] in HEX_FLOAT_KINDS:
        want = HEX_FLOAT_KINDS[text[2]]
        if kind == want:
            return None
        if kind is None:
            return FLOAT_INVALID
        return f"floating point constant does not have type '{ty}' (a '0x{text[2]}' " \
               f"constant is {want})"
    if kind is None:
        if ty.is_int:
            return (f"{FLOAT_INVALID} (an integer is written in decimal, or in hexadecimal "
                    "as u0x... or s0x...)")
        return FLOAT_INVALID
    if kind not in _MANTISSA:
        prefix = {v: k for k, v in HEX_FLOAT_KINDS.items()}[kind]
        return (f"floating point constant does not have type '{ty}' (decimal and plain "
                f"'0x' constants are doubles; {ty} constants are written 0x{prefix}...)")
    if kind == "double" or _exact(kind, value):
        return None
    return f"{FLOAT_INVALID} (the value is not exactly representable as {kind})"


def _exact(kind: str, value: float) -> bool:
    """Whether the double `value` converts to `kind` without losing information."""
    if math.isnan(value):
        bits = struct.unpack("<Q", struct.pack("<d", value))[0]
        dropped = 52 - _MANTISSA[kind]
        return bits & ((1 << dropped) - 1) == 0
    if math.isinf(value):
        return True
    code = "e" if kind == "half" else "f"
    try:
        narrowed = struct.unpack("<" + code, struct.pack("<" + code, value))[0]
    except OverflowError:
        return False
    if narrowed != value:
        return False
    if kind == "bfloat":  # the upper half of a float
        return struct.unpack("<I", struct.pack("<f", value))[0] & 0xFFFF == 0
    return True


def keyword_literal(ty: T.Type, word: str) -> str | None:
    """`true`, `false`, `null` or `none` of type `ty`."""
    if word in ("true", "false"):
        if ty == T.I1:
            return None
        return f"constant expression type mismatch: got type 'i1' but expected '{ty}'"
    if word == "null" and not ty.is_pointer:
        return "null must be a pointer type"
    if word == "none" and not isinstance(ty, T.TokenType):
        return "invalid type for none constant"
    return None


def hex_int_value(text: str, ty: T.Type) -> int:
    """The value of `s0x...` / `u0x...` in `ty`, as LLVM computes it: the digits are an
    integer of their active bits, signed for `s` (so `s0x7F` is -1), then extended or
    truncated to the type's width. Returned as a signed number of that width."""
    value = int(text[3:], 16)
    if text[0] == "s" and value:
        value -= 1 << value.bit_length()
    bits = ty.bits if isinstance(ty, T.IntType) else 64
    value &= (1 << bits) - 1
    return value - (1 << bits) if bits and value >> (bits - 1) else value
