"""Tests that types alone decide: `v is None`, `v is not None`, `x.ndim == 2`,
`np.ndim(v) == 0`, `mode == "same"` (a string known at compile time, `ftypes.Text`), and
`not`, `and`, `or` of them.

An `if` statement or a conditional expression whose test is one is resolved at compile time:
only the branch it takes is typed and compiled, and the other may hold code that would not
type for these arguments. So a function can take an optional argument
(`def f(x, mask=None): if mask is not None: ...`) and one helper can serve several ranks
(`if x.ndim == 1: ... else: ...`), as NumPy code is written.

Invariants: `truth` reads only the test's syntax and the types `type_of` gives, so the typer
and the compiler resolve a test alike; `PENDING` (an operand not typed yet) tells the typer
to leave the statement for a later round of its fixpoint; a test not decided here is an
ordinary run-time test (`truth` gives None). `and`/`or` stop where Python stops: in
`w is not None and w.sum() > 0` with `w = None`, the right side is never typed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from enzyme_py.frontend.ftypes import Array, FType, NoneType, Scalar, Text


class _Pending:
    def __repr__(self) -> str:
        return "PENDING"


PENDING = _Pending()  # an operand's type is not known yet (the typer comes back)

TypeOf = Callable[[ast.expr], "FType | None"]  # None: not typed yet
Truth = "bool | None | _Pending"

_ORDER = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
          ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
          ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def is_none_test(e: ast.expr) -> bool:
    """`a is None`, `None is a`, `a is not None`: the identity tests the subset has."""
    return (isinstance(e, ast.Compare) and len(e.ops) == 1
            and isinstance(e.ops[0], ast.Is | ast.IsNot)
            and any(_is_none(x) for x in (e.left, e.comparators[0])))


def truth(test: ast.expr, type_of: TypeOf) -> bool | None | _Pending:
    """The value of `test` when the types decide it; None when it is a run-time test."""
    if isinstance(test, ast.Constant) and isinstance(test.value, bool):
        return test.value
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = truth(test.operand, type_of)
        return (not inner) if isinstance(inner, bool) else inner
    if isinstance(test, ast.BoolOp):
        stop = isinstance(test.op, ast.Or)  # the value that ends the chain
        for sub in test.values:
            v = truth(sub, type_of)
            if not isinstance(v, bool):
                return v
            if v is stop:
                return stop
        return not stop
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        if is_none_test(test):
            other = test.comparators[0] if _is_none(test.left) else test.left
            t = type_of(other)
            if t is None:
                return PENDING
            is_none = isinstance(t, NoneType) and not isinstance(t, Text)
            return is_none == isinstance(test.ops[0], ast.Is)
        if isinstance(test.ops[0], ast.Eq | ast.NotEq):
            a, b = _static_text(test.left, type_of), _static_text(test.comparators[0], type_of)
            if a is PENDING or b is PENDING:
                return PENDING
            if isinstance(a, str) and isinstance(b, str):
                return (a == b) == isinstance(test.ops[0], ast.Eq)
            if isinstance(a, str) or isinstance(b, str):  # (a string and a number)
                other = test.comparators[0] if isinstance(a, str) else test.left
                t = type_of(other)
                if t is None:
                    return PENDING
                if isinstance(t, Scalar | NoneType):
                    return isinstance(test.ops[0], ast.NotEq)
        compare = _ORDER.get(type(test.ops[0]))
        if compare is None:
            return None
        a, b = _static_int(test.left, type_of), _static_int(test.comparators[0], type_of)
        if a is PENDING or b is PENDING:
            return PENDING
        if isinstance(a, int) and isinstance(b, int):
            return bool(compare(a, b))
    return None


def _is_none(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value is None


def _static_text(e: ast.expr, type_of: TypeOf) -> str | None | _Pending:
    """A string known from types: a literal, or a name bound to one (`ftypes.Text`)."""
    if isinstance(e, ast.Constant):
        return e.value if isinstance(e.value, str) else None
    if isinstance(e, ast.Name):
        t = type_of(e)
        if t is None:
            return PENDING
        return t.value if isinstance(t, Text) else None
    return None


def _static_int(e: ast.expr, type_of: TypeOf) -> int | None | _Pending:
    """An integer known from types: a literal, `x.ndim`, `np.ndim(v)`, `len(x.shape)`."""
    if isinstance(e, ast.Constant) and isinstance(e.value, int) and \
            not isinstance(e.value, bool):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        v = _static_int(e.operand, type_of)
        return -v if isinstance(v, int) else v
    array = None
    if isinstance(e, ast.Attribute) and e.attr == "ndim":
        array = e.value
    elif (isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "ndim"
          and len(e.args) == 1 and not e.keywords):  # np.ndim(v): 0 for a number
        t = type_of(e.args[0])
        if t is None:
            return PENDING
        return t.ndim if isinstance(t, Array) else 0 if isinstance(t, Scalar) else None
    elif (isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "len"
          and len(e.args) == 1 and isinstance(e.args[0], ast.Attribute)
          and e.args[0].attr == "shape"):
        array = e.args[0].value
    if array is None:
        return None
    t = type_of(array)
    if t is None:
        return PENDING
    return t.ndim if isinstance(t, Array) else None
