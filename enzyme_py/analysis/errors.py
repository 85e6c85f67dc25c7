"""Errors of the analyses and transforms."""

from __future__ import annotations

from enzyme_py.ir.errors import EnzymePyError


class AnalysisError(EnzymePyError):
    """The code cannot be analysed (irreducible control flow, undecidable activity ...)."""


class DifferentiationError(EnzymePyError):
    """The code cannot be differentiated; the message names function, block and instruction,
    and says what to do (where a rule belongs, how to mark a callee inactive)."""
