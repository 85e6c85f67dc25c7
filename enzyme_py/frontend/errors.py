"""`FrontendError`: an unsupported or ill-typed construct in a Python function.

Invariant: the message names the file, line and column, shows the source line with a caret
under the construct, says what was found and what is supported.
"""

from __future__ import annotations

import ast

from enzyme_py.errors import EnzymePyError


class FrontendError(EnzymePyError):
    def __init__(self, message: str, *, filename: str = "<unknown>", line: int = 0,
                 col: int = 0, source_line: str = "", caret: int = 0,
                 supported: str = "") -> None:
        self.message = message
        self.filename = filename
        self.line = line
        self.col = col  # 1-based column in the file
        self.source_line = source_line
        self.supported = supported
        text = f"{filename}:{line}:{col}: {message}"
        if source_line:
            text += f"\n    {source_line}\n    {' ' * caret}^"
        if supported:
            text += f"\n  supported: {supported}"
        super().__init__(text)


class SourceInfo:
    """Where a function's source lives, to point errors at it."""

    def __init__(self, filename: str, lines: list[str], first_line: int, indent: int) -> None:
        self.filename = filename
        self.lines = lines  # the function's source lines, dedented by `indent`
        self.first_line = first_line  # file line number of lines[0]
        self.indent = indent

    def error(self, node: ast.AST | None, message: str, supported: str = "") -> FrontendError:
        line = getattr(node, "lineno", 1) if node is not None else 1
        col = getattr(node, "col_offset", 0) if node is not None else 0
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        lead = len(text) - len(text.lstrip())
        return FrontendError(message, filename=self.filename, line=self.first_line + line - 1,
                             col=col + self.indent + 1, source_line=text.strip(),
                             caret=max(col - lead, 0), supported=supported)
