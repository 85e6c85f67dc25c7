"""Spelling of LLVM identifiers (`%x`, `@"a b"`) and of string literals.

Invariant: `unescape(escape(s)) == s` for every string, and a printed reference lexes back to
the same name.
"""

from __future__ import annotations

import re

_PLAIN = re.compile(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*\Z")


def escape(s: str) -> str:
    """Escape the body of a quoted LLVM string (no quotes added)."""
    data = s.encode("utf-8", "surrogateescape")
    return "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}" for b in data)


def escape_bytes(data: bytes) -> str:
    """Escape raw bytes for a `c"..."` constant."""
    return "".join(chr(b) if 32 <= b < 127 and b not in (34, 92) else f"\\{b:02X}" for b in data)


def unescape_bytes(body: str) -> bytes:
    """The bytes of a quoted LLVM string body (`\\XX` and `\\\\` escapes)."""
    if "\\" not in body:
        return body.encode("utf-8", "surrogateescape")
    out = bytearray()
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "\\" and i + 1 < n:
            if body[i + 1] == "\\":
                out.append(92)
                i += 2
                continue
            pair = body[i + 1:i + 3]
            if len(pair) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in pair):
                out.append(int(pair, 16))
                i += 3
                continue
        out.extend(c.encode("utf-8", "surrogateescape"))
        i += 1
    return bytes(out)


def unescape(body: str) -> str:
    return unescape_bytes(body).decode("utf-8", "surrogateescape")


def ident(name: str) -> str:
    """A name as it follows `%`, `@` or `$`: bare when possible, quoted otherwise."""
    if _PLAIN.match(name):
        return name
    return f'"{escape(name)}"'


def local_ref(name: str) -> str:
    return "%" + ident(name)


def global_ref(name: str) -> str:
    return "@" + ident(name)


def label_def(name: str) -> str:
    return ident(name) + ":"


def is_numeric(name: str) -> bool:
    return name.isdigit()
