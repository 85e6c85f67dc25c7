"""The activities a pass is given (`acts=`, `ret=`), checked, with Enzyme's defaults.

Defaults, as Enzyme's for an unmarked argument: integers `const`; in reverse mode floats
`out` and pointers `dup`; in forward mode floats and pointers `dup`. The return is active when
it carries floating point data, unless `ret=const`.

Invariant: activities are passed on as given (the transform checks them with
`transform_activities`: its errors name the function and the argument); only a bad `ret=` word
is an error here (`PipelineError`).
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.analysis.activities import RETURN_WORDS, WORDS, Activity
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.types import carries_float
from enzyme_py.pass_spec import PipelineError


def default_activity(fn: Function, forward: bool) -> list[Activity]:
    """Enzyme's activity of each unmarked argument of `fn`."""
    out = []
    for a in fn.args:
        if a.type.is_int:
            out.append(Activity.CONST)
        elif forward:
            out.append(Activity.DUP)
        else:
            out.append(Activity.OUT if carries_float(a.type) else
                       Activity.DUP if a.type.is_pointer else Activity.CONST)
    return out


def transform_activities(fn: Function, words: Sequence[str | Activity]) -> list[Activity]:
    """The activities a transform was given for `fn`, parsed (a `DifferentiationError` naming
    the argument for an unknown word; which activity fits which argument is the transform's
    check)."""
    out = []
    for i, w in enumerate(words):
        try:
            out.append(Activity.parse(w))
        except ValueError:
            raise DifferentiationError(f"argument {i} of @{fn.name}: unknown activity {w!r} "
                                       f"(one of {', '.join(WORDS)})") from None
    return out


def function_named(module: Module, name: str) -> Function:
    """The function `name` of `module` (a `DifferentiationError` naming those defined when
    there is none)."""
    try:
        return module.get_function(name)
    except KeyError as exc:
        raise DifferentiationError(str(exc.args[0])) from None


def activities_for(fn: Function, acts: list[str] | None,
                   forward: bool = False) -> list[str | Activity]:
    """`acts`, or the defaults when None (not given; `acts=` is an empty list). The
    transform checks them: its errors name the function and the argument."""
    return list(acts) if acts is not None else default_activity(fn, forward)


def return_active(pass_name: str, fn: Function, ret: str | None) -> bool:
    """Whether the return of `fn` is active: `ret=active` (or `out`), `ret=const`, or by
    default when it carries floating point data."""
    if ret is None:
        return carries_float(fn.return_type)
    if ret not in RETURN_WORDS:
        raise PipelineError(f"{pass_name}: ret= is active or const, not {ret!r}")
    return RETURN_WORDS[ret]
