"""Source locations: the file and line an instruction was parsed from.

Invariant: `Instruction.loc` is the `SourceLoc` of the line the parser read the instruction
from (its first token), or None for an instruction a transform built. Clones keep it; code
that LLVM's passes return is new code, parsed from LLVM's text, so it has the locations of that
text, whose file name says so (`<LLVM output of ...>`).
"""

from __future__ import annotations

from typing import NamedTuple


class SourceLoc(NamedTuple):
    """`file:line` (1-based), as compilers print it."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"
