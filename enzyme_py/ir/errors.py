"""Errors raised by the IR core.

Invariant: every error the package raises on purpose derives from `EnzymePyError`, so a caller
(the CLI above all) can catch one class and print one clear message without a traceback.
"""

from __future__ import annotations


class EnzymePyError(Exception):
    """Base of every error enzyme_py raises on purpose."""


class ParseError(EnzymePyError):
    """Malformed or unsupported LLVM text.

    Carries `line` and `col` (1-based), the offending `source_line`, and `expected`.
    `str(err)` reads like a compiler diagnostic::

        input.ll:12:17: error: expected type, found '%x'
          %3 = fadd %x, 1.0
                    ^
    """

    def __init__(self, message: str, *, filename: str = "<string>", line: int = 0,
                 col: int = 0, source_line: str = "", expected: str = "") -> None:
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.expected = expected
        super().__init__(self._render())

    def _render(self) -> str:
        head = f"{self.filename}:{self.line}:{self.col}: error: {self.message}"
        if not self.source_line:
            return head
        caret = " " * max(self.col - 1, 0) + "^"
        return f"{head}\n  {self.source_line}\n  {caret}"


class VerifyError(EnzymePyError):
    """A module that breaks an IR invariant; the message names function, block, instruction."""
