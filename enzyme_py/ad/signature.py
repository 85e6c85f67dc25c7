"""The signature of a derivative: each argument of `f`, followed by what the mode adds after it
(a shadow pointer, tangents), then the mode's trailing parameters (a seed, `%shadow.out`).

Invariants: the type is known from the activities before the body is built (a recursive call
inside `f` calls the derivative under construction by that type), and the parameters the body
is finally given have exactly that type; several results travel as one struct, in order.

Example::

    params, extra = derivative_parameters(work.args, acts, reverse_follows)
    install_signature(work, T.FunctionType(ret, tuple(p.type for p in params)), params)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import Argument

# What follows an argument with an activity: the parameters the mode adds after it.
Follows = Callable[[Argument, str], list[Argument]]


def derivative_parameters(args: Sequence[Argument], activities: Sequence[str],
                          follows: Follows) -> tuple[list[Argument], dict[Argument,
                                                                           list[Argument]]]:
    """The parameters for `args` (the primal's or its copy's), and what follows each."""
    params: list[Argument] = []
    extra: dict[Argument, list[Argument]] = {}
    for arg, act in zip(args, activities, strict=True):
        params.append(arg)
        more = follows(arg, act)
        if more:
            extra[arg] = more
            params.extend(more)
    return params, extra


def parameter_types(args: Sequence[Argument], activities: Sequence[str],
                    follows: Follows) -> list[T.Type]:
    return [p.type for p in derivative_parameters(args, activities, follows)[0]]


def result_type(types: Sequence[T.Type]) -> T.Type:
    """Nothing, one value, or a struct of several, in order."""
    if not types:
        return T.VOID
    return types[0] if len(types) == 1 else T.StructType(tuple(types))


def install_signature(work: Function, ftype: T.FunctionType, params: list[Argument],
                      keep_attrs: Callable[[Argument], list[str]] = lambda a: []) -> None:
    """Give the finished body its final parameters (attributes: `keep_attrs`, none unless
    told) and type; linkage and trailing attributes of `f` do not carry over."""
    assert ftype.params == tuple(a.type for a in params)
    for a in params:
        a.attrs = keep_attrs(a)
    work.set_type(ftype, params)
    work.prefix = []
    work.suffix = []
