"""Python's errors for math functions and arithmetic on numbers (`jit(..., errors="python")`).

By default compiled code gives IEEE results, as NumPy does: `math.sqrt(-4.0)` is nan,
`math.log(0.0)` is -inf, `1.0 / 0.0` is inf. When the session asks for Python's errors
(`CompileSession.python_errors`), the front end emits a check after each such operation that
fails as CPython does (`Modules/mathmodule.c`, `Objects/floatobject.c`):

- a `math` function whose result is nan while no argument is nan: `ValueError: math domain
  error` (sqrt of a negative, log of x < 0, acos outside [-1, 1], sin of inf, fmod by 0 ...);
- an infinite result from finite arguments: `OverflowError: math range error` for the
  functions that overflow (exp, exp2, expm1, sinh, cosh, pow), a domain error for the poles
  (log(0.0), log1p(-1.0), atanh(1.0), pow(0.0, -1.0));
- `math.log(x, base)` with `log(base) == 0`, and `/`, `//`, `%`, whose divisor is zero:
  `ZeroDivisionError` with Python's message; `0.0 ** y` for a finite y < 0 too; a float `**`
  overflowing: `OverflowError`.

Invariants: checks are emitted only with `python_errors`, only for the functions of Python's
`math` module (NumPy's keep IEEE results) and only for arithmetic on numbers (never for the
element rule of array arithmetic); a nan argument never fails a check (Python returns nan);
each check is a `Compiling.check` site of a kind listed in `calling._FAILURES`. Integer `//`
and `%` by zero are checked in every mode (by the expression compiler): they must never
reach the hardware's division.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from enzyme_py.frontend.ftypes import Scalar
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value, const_float
from enzyme_py.rules.mathcalls import emit_math

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling

# A nan result from arguments that are not nan is a domain error for these (the others
# never give one: exp, atan, tanh, erf, cbrt, ...; atan2, hypot, copysign never raise).
_NAN_IS_DOMAIN = frozenset({"sqrt", "log", "log2", "log10", "log1p", "acos", "asin", "acosh",
                            "atanh", "sin", "cos", "tan", "fmod", "pow"})
# An infinite result from finite arguments: a pole (ValueError) or an overflow.
_INF_IS_DOMAIN = frozenset({"log", "log2", "log10", "log1p", "atanh"})
_INF_IS_RANGE = frozenset({"exp", "exp2", "expm1", "sinh", "cosh"})

# The kind of a division by zero, by operator (`calling._FAILURES` holds the messages).
_DIVISION_KINDS = {ast.Div: "float division by zero", ast.FloorDiv: "float floor division by zero",
                   ast.Mod: "float modulo by zero"}

_ZERO = ConstantInt(T.I64, 0)


def is_math_function(fn: object) -> bool:
    """Is `fn` a function of Python's `math` module (whose errors Python raises)?"""
    name = getattr(fn, "__name__", None)
    return isinstance(name, str) and getattr(math, name, None) is fn


def on_python_numbers(c: Compiling, node: ast.AST) -> bool:
    """Does the operator at `node` compute on numbers, not element by element on arrays (the
    scalar rule of array arithmetic sees the array expression's node)?"""
    target = node.target if isinstance(node, ast.AugAssign) else node
    return isinstance(target, ast.expr) and isinstance(c.typer.expr_type(target), Scalar)


def check_math(c: Compiling, node: ast.AST, fn: object, name: str, args: Sequence[Value],
               result: Value) -> None:
    """After `result = math.<name>(*args)`: Python's domain and range errors."""
    if not (c.session.python_errors and is_math_function(fn)):
        return
    b = c.b
    domain = None
    if name in _NAN_IS_DOMAIN:
        domain = b.binop("and", b.fcmp("uno", result, result), _all_numbers(c, args))
    pole = overflow = None
    if name in _INF_IS_DOMAIN or name in _INF_IS_RANGE or name == "pow":
        inf_from_finite = b.binop("and", _is_infinite(c, result), _all_finite(c, args))
        if name == "pow":  # (+-0.0) ** negative is a pole, everything else an overflow
            base_zero = b.fcmp("oeq", args[0], const_float(args[0].type, 0.0))
            pole = b.binop("and", inf_from_finite, base_zero)
            overflow = b.binop("and", inf_from_finite, _not(c, base_zero))
        elif name in _INF_IS_DOMAIN:
            pole = inf_from_finite
        else:
            overflow = inf_from_finite
    if pole is not None:
        domain = pole if domain is None else b.binop("or", domain, pole)
    if domain is not None:
        c.check(_not(c, domain), node, "math domain error", _ZERO, _ZERO, 0)
    if overflow is not None:
        c.check(_not(c, overflow), node, "math range error", _ZERO, _ZERO, 0)


def check_log_base(c: Compiling, node: ast.AST, fn: object, log_base: Value) -> None:
    """`math.log(x, base)` divides by `log(base)`: zero (base 1) is a ZeroDivisionError."""
    if c.session.python_errors and is_math_function(fn):
        nonzero = c.b.fcmp("une", log_base, const_float(log_base.type, 0.0))
        c.check(nonzero, node, "float division by zero", _ZERO, _ZERO, 0)


def check_division(c: Compiling, op: ast.operator, operands: Sequence[Scalar], divisor: Value,
                   node: ast.AST) -> None:
    """Before a float `/`, `//` or `%` (`divisor` converted to the result type): zero is a
    ZeroDivisionError, with the message Python gives for these operand types."""
    if not (c.session.python_errors and on_python_numbers(c, node)):
        return
    kind = "division by zero" if isinstance(op, ast.Div) and all(
        t.is_int for t in operands) else _DIVISION_KINDS[type(op)]
    nonzero = c.b.fcmp("une", divisor, const_float(divisor.type, 0.0))
    c.check(nonzero, node, kind, _ZERO, _ZERO, 0)


def check_power(c: Compiling, base: Value, exponent: Value | None, result: Value,
                node: ast.AST) -> None:
    """After a float `base ** exponent` (None: a small constant integer exponent):
    `0.0 ** y` for a finite y < 0 is a ZeroDivisionError, an overflow an OverflowError."""
    if not (c.session.python_errors and on_python_numbers(c, node)):
        return
    b = c.b
    operands = [base] if exponent is None else [base, exponent]
    if exponent is not None:
        zero = const_float(base.type, 0.0)
        negative = b.binop("and", b.fcmp("olt", exponent, zero), _finite(c, exponent))
        pole = b.binop("and", b.fcmp("oeq", base, zero), negative)
        c.check(_not(c, pole), node, "zero to a negative power", _ZERO, _ZERO, 0)
    overflow = b.binop("and", _is_infinite(c, result), _all_finite(c, operands))
    c.check(_not(c, overflow), node, "float power overflow", _ZERO, _ZERO, 0)


def _all_numbers(c: Compiling, args: Sequence[Value]) -> Value:
    """No argument is nan."""
    out: Value | None = None
    for x in args:
        ordered = c.b.fcmp("ord", x, x)
        out = ordered if out is None else c.b.binop("and", out, ordered)
    assert out is not None
    return out


def _all_finite(c: Compiling, args: Sequence[Value]) -> Value:
    out: Value | None = None
    for x in args:
        fin = _finite(c, x)
        out = fin if out is None else c.b.binop("and", out, fin)
    assert out is not None
    return out


def _finite(c: Compiling, x: Value) -> Value:
    return c.b.fcmp("one", _fabs(c, x), const_float(x.type, math.inf))


def _is_infinite(c: Compiling, x: Value) -> Value:
    return c.b.fcmp("oeq", _fabs(c, x), const_float(x.type, math.inf))


def _fabs(c: Compiling, x: Value) -> Value:
    return emit_math(c.b, c.fn.parent, "fabs", [x])


def _not(c: Compiling, v: Value) -> Value:
    return c.b.binop("xor", v, ConstantInt(T.I1, 1))
