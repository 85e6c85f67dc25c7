"""Tokens of LLVM text.

Invariant: `tokenize` covers the whole input; whitespace and `;` comments are dropped; anything
that is not a token becomes a `bad` token that the parser reports with its line and column.
No token spans lines: LLVM never prints a raw newline inside a string (it writes `\0A`), so a
quote left open at the end of its line is an `openstring` token, reported there, instead of a
string running on to the next quote in the file.
Tokens are three parallel lists (kind, text, offset) for speed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

_NAME = r'(?:[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+|"[^"\n]*")'

_TOKEN = re.compile(
    r"""
    [ \t\r\n]*(?:;[^\n]*[ \t\r\n]*)*   # whitespace and comments, folded into the next token
    (?:
      (?P<hexint>[su]0x[0-9A-Fa-f]+)(?![-$:a-zA-Z0-9_."])
    | (?P<word>[a-zA-Z_][a-zA-Z0-9_.]*)(?![-$:a-zA-Z0-9_."])
    | (?P<punct>\.\.\.|[=,()\[\]{}<>*|])
    | (?P<local>%""" + _NAME + r""")
    | (?P<hexfp>0x[KLMHR]?[0-9A-Fa-f]+)
    | (?P<float>[-+]?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?)
    | (?P<int>-?[0-9]+)(?![-$:a-zA-Z_.0-9])
    | (?P<meta>![-a-zA-Z$._0-9\\]*)
    | (?P<global>@""" + _NAME + r""")
    | (?P<label>(?:[-a-zA-Z$._0-9]+|"[^"\n]*"):)
    | (?P<attrgrp>\#[0-9]+)
    | (?P<dbgrec>\#dbg_[a-z_]+)
    | (?P<cstring>c"[^"\n]*")
    | (?P<string>"[^"\n]*")
    | (?P<openstring>[%@$c]?"[^"\n]*)
    | (?P<comdat>\$""" + _NAME + r""")
    | (?P<bad>.)
    | (?P<end>\Z)
    )
    """,
    re.VERBOSE | re.DOTALL,
)

EOF = "eof"


@dataclass(slots=True)
class Tokens:
    kinds: list[str]
    texts: list[str]
    offsets: list[int]


def tokenize(text: str) -> Tokens:
    kinds: list[str] = []
    texts: list[str] = []
    offsets: list[int] = []
    ak, at, ao = kinds.append, texts.append, offsets.append
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "end":
            break
        ak(kind)  # type: ignore[arg-type]
        at(m.group(kind))  # type: ignore[arg-type]
        ao(m.start(kind))  # type: ignore[arg-type]
    ak(EOF)
    at("")
    ao(len(text))
    return Tokens(kinds, texts, offsets)


class LineIndex:
    """Maps character offsets to 1-based (line, column) and back to source lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1

    def line_text(self, line: int) -> str:
        if line < 1 or line > len(self.starts):
            return ""
        start = self.starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def line_end(self, offset: int) -> int:
        end = self.text.find("\n", offset)
        return len(self.text) if end < 0 else end
