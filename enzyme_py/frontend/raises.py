"""`raise ValueError("...")` and `assert cond, "..."` in compiled code.

A `raise` of a builtin exception class (or `np.linalg.LinAlgError`,
`np.exceptions.AxisError`), with no argument or one string literal, records a failure at its
line and leaves the function, as a failed index check does; the caller raises that class
with that message and the source line (`calling.ErrorRecord`). `assert cond` and
`assert cond, "message"` raise AssertionError the same way when `cond` is false. The class
and message are the site's kind (`raise:<class>:<message>`, see `failure`), so nothing but
the record crosses at run time.

Invariants: only the classes in `RAISABLE` are raised (others, and messages that are not
string literals, are a `FrontendError` naming what is supported); the code after a `raise` in
its block is not compiled (it is never reached).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

import numpy as np

from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling

#: the classes compiled code may raise, by name (what a site records)
RAISABLE: dict[str, type[Exception]] = {cls.__name__: cls for cls in (
    ValueError, TypeError, IndexError, KeyError, ZeroDivisionError, ArithmeticError,
    OverflowError, FloatingPointError, RuntimeError, AssertionError, NotImplementedError,
    np.linalg.LinAlgError, np.exceptions.AxisError)}

_PREFIX = "raise:"
_SUPPORTED = ("raise ValueError('message'), or another builtin exception class: " +
              ", ".join(sorted(RAISABLE)))


def failure(what: str) -> tuple[type[Exception], str] | None:
    """The class and message template (for `str.format`) of a `raise`/`assert` site's kind;
    None for the kinds of other checks."""
    if not what.startswith(_PREFIX):
        return None
    name, _, message = what[len(_PREFIX):].partition(":")
    return RAISABLE[name], message.replace("{", "{{").replace("}", "}}")


def compile_raise(c: Compiling, s: ast.Raise) -> None:
    """`raise E` / `raise E("message")`: record the failure and leave."""
    if s.cause is not None:
        raise c.src.error(s.cause, "'raise ... from ...' is not supported", _SUPPORTED)
    if s.exc is None:
        raise c.src.error(s, "a bare 'raise' (re-raising) is not supported", _SUPPORTED)
    cls_node, args = (s.exc.func, s.exc.args) if isinstance(s.exc, ast.Call) else \
        (s.exc, [])
    if isinstance(s.exc, ast.Call) and s.exc.keywords:
        raise c.src.error(s.exc, "keyword arguments of an exception are not supported",
                          _SUPPORTED)
    cls = c.typer.resolve_global(cls_node)
    if not (isinstance(cls, type) and RAISABLE.get(cls.__name__) is cls):
        raise c.src.error(cls_node, f"raising {ast.unparse(cls_node)} is not supported",
                          _SUPPORTED)
    _leave(c, s, cls, _message(c, args))


def compile_assert(c: Compiling, s: ast.Assert) -> None:
    """`assert cond[, "message"]`: AssertionError when cond is false."""
    message = _message(c, [s.msg] if s.msg is not None else [])
    zero = ConstantInt(T.I64, 0)
    c.check(c.condition(s.test), s, f"{_PREFIX}AssertionError:{message}", zero, zero, 0)


def _message(c: Compiling, args: list[ast.expr]) -> str:
    if not args:
        return ""
    if len(args) == 1 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
        return args[0].value
    raise c.src.error(args[0], "an exception's message must be one string literal",
                      "raise ValueError('x must be positive')")


def _leave(c: Compiling, s: ast.stmt, cls: type[Exception], message: str) -> None:
    zero = ConstantInt(T.I64, 0)
    c.check(ConstantInt(T.I1, 0), s, f"{_PREFIX}{cls.__name__}:{message}", zero, zero, 0)
    c.b.unreachable()  # (the block after a raise is never entered)
