"""All error classes of enzyme_py in one place (the IR's own ones are re-exported)."""

from __future__ import annotations

from enzyme_py.ir.errors import EnzymePyError, ParseError, VerifyError

__all__ = ["EnzymePyError", "ParseError", "VerifyError", "BackendError", "CallError"]


class BackendError(EnzymePyError):
    """LLVM (through llvmlite) rejected a module, or a symbol could not be found or compiled."""


class CallError(EnzymePyError, TypeError):
    """Arguments to a compiled function do not match its signature (checked before native code)."""
