"""Binding a call's arguments to the callee's parameters: positional, keyword, defaults.

For calls of the module's own Python functions (and local functions): `f(x, delta=0.5)` and
`f(x)` with `def f(r, delta=1.0)` both give every parameter a value, as Python would.

Invariants: a parameter gets exactly one value (a duplicate or unknown keyword, a missing
argument and too many arguments are clear errors naming the function); a default must be a
number, a bool, a string or None (passed as a constant; a string and None are compile-time
values), since defaults are evaluated once, when the function is defined, and only these
cannot change since then.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Binding:
    """Where parameter k's value comes from: positional argument `index`, keyword node
    `keyword`, or the constant `default`."""

    index: int | None = None
    keyword: ast.expr | None = None
    default: Any = None


def signature(fn: object) -> tuple[list[str], dict[str, Any]]:
    """The callee's parameter names and constant defaults."""
    from enzyme_py.frontend.local_functions import LocalFunction

    if isinstance(fn, LocalFunction):
        a = fn.fdef.args
        names = [p.arg for p in a.args]
        defaults: dict[str, Any] = {}
        for name, d in zip(names[len(names) - len(a.defaults):], a.defaults, strict=True):
            defaults[name] = d.value if isinstance(d, ast.Constant) else _NOT_CONSTANT
        return names, defaults
    target = getattr(fn, "fun", fn)  # a CustomRule wraps its function
    code = target.__code__  # type: ignore[attr-defined]
    names = list(code.co_varnames[:code.co_argcount])
    values = target.__defaults__ or ()  # type: ignore[attr-defined]
    return names, dict(zip(names[len(names) - len(values):], values, strict=True))


class _NotConstant:
    pass


_NOT_CONSTANT = _NotConstant()


def bind(src: Any, call: ast.Call, fn: object, n_positional: int) -> list[Binding]:
    """One `Binding` per parameter of `fn`, for `call` with `n_positional` arguments."""
    names, defaults = signature(fn)
    fname = getattr(fn, "__name__", "f")
    if n_positional > len(names):
        raise src.error(call, f"{fname}() takes {len(names)} arguments, {n_positional} given",
                        f"its parameters: {', '.join(names)}")
    out: list[Binding | None] = [Binding(index=k) for k in range(n_positional)]
    out += [None] * (len(names) - n_positional)
    for kw in call.keywords:
        if kw.arg is None:
            raise src.error(kw.value, "**kwargs in calls is not supported")
        if kw.arg not in names:
            raise src.error(kw.value, f"{fname}() got an unexpected keyword argument "
                            f"'{kw.arg}'", f"its parameters: {', '.join(names)}")
        k = names.index(kw.arg)
        if out[k] is not None:
            raise src.error(kw.value, f"{fname}() got multiple values for argument "
                            f"'{kw.arg}'", "each parameter once")
        out[k] = Binding(keyword=kw.value)
    for k, name in enumerate(names):
        if out[k] is not None:
            continue
        if name not in defaults:
            raise src.error(call, f"{fname}() missing argument '{name}'",
                            f"its parameters: {', '.join(names)}")
        value = defaults[name]
        if value is None or isinstance(value, bool | int | float | str):
            out[k] = Binding(default=value)  # (None, a str: compile-time values)
        else:
            raise src.error(call, f"the default of {fname}()'s parameter '{name}' is not a "
                            "number, a string or None", f"pass '{name}' explicitly")
    return out  # type: ignore[return-value]


def complete(fn: object, args: tuple, kwargs: dict) -> tuple:
    """The full positional argument list of a Python-level call (the API's entry)."""
    sig = inspect.signature(fn)  # type: ignore[arg-type]
    plain = (inspect.Parameter.POSITIONAL_OR_KEYWORD,)
    if any(p.kind not in plain for p in sig.parameters.values()) and not kwargs:
        return args  # *args and friends: the front end reports them
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments.values())
