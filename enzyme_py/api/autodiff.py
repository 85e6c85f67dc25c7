"""Enzyme-style `autodiff` with `Const`/`Active`/`Duplicated` markers, and `inactive`.

Invariants: `Duplicated` shadows accumulate (`+=`), as Enzyme's do; `Active` arguments' adjoints
are returned in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from enzyme_py.analysis.activities import Activity
from enzyme_py.api.gradients import grad_cache_of, run_gradient
from enzyme_py.errors import (
    ArgumentValueError,
    CallError,
    NotDifferentiableError,
)


def inactive(f: Callable) -> Callable:
    """Mark a Python function as carrying no derivative (`__enzyme_inactivefn`): calls to it
    from differentiated code contribute nothing to gradients.

    Example::

        @inactive
        def log_value(x):
            return x
    """
    f._enzyme_inactive = True  # type: ignore[attr-defined]
    return f


# --- Enzyme-style autodiff ----------------------------------------------------------------------


@dataclass
class Const:
    """An argument that is not differentiated."""

    value: Any


@dataclass
class Active:
    """A float argument whose adjoint `autodiff` returns."""

    value: float


@dataclass
class Duplicated:
    """An array argument with its shadow `dval`; the gradient is *added* to `dval`."""

    value: np.ndarray
    dval: np.ndarray


@dataclass
class DuplicatedNoNeed(Duplicated):
    """Like `Duplicated`, but the primal results written into `value` are not needed:
    the gradient may leave them unwritten (and not compute them), as Enzyme's
    `enzyme_dupnoneed`. Only the shadow `dval` is meaningful after the call."""


@dataclass
class _Marked:
    args: list = field(default_factory=list)


def autodiff(f: Callable, *args: Any, seed: float = 1.0) -> tuple[float, ...]:
    """Enzyme's `autodiff` in reverse mode: returns the adjoints of `Active` arguments in order;
    `Duplicated` shadows accumulate the gradients of arrays (seeded by their initial contents
    for outputs, as in Enzyme).

    Example::

        x, dx = np.array([1.0, 2.0]), np.zeros(2)
        (da,) = autodiff(f, Duplicated(x, dx), Active(3.0), Const(5))
    """
    cache = grad_cache_of(f)
    values, active, shadows = [], [], {}
    for i, a in enumerate(args):
        if isinstance(a, Duplicated):
            if not isinstance(a.value, np.ndarray) or not isinstance(a.dval, np.ndarray) or \
                    a.dval.dtype != a.value.dtype:
                raise CallError(f"autodiff: argument {i}: the value and its shadow must be "
                                "arrays of the same dtype")
            if a.dval.shape != a.value.shape:
                raise ArgumentValueError(f"autodiff: argument {i}: the shadow has shape "
                                         f"{a.dval.shape}, the value {a.value.shape}")
            values.append(a.value)
            active.append(True)
            shadows[i] = a.dval
        elif isinstance(a, Active):
            if not isinstance(a.value, float | np.floating):
                raise NotDifferentiableError(
                    f"autodiff: argument {i}: Active takes a float, not "
                    f"{type(a.value).__name__}" + ("; pass an array as Duplicated(x, dx)"
                                                   if isinstance(a.value, np.ndarray) else ""))
            values.append(a.value)
            active.append(True)
        elif isinstance(a, Const):
            values.append(a.value)
            active.append(False)
        else:
            raise CallError(f"autodiff: argument {i} must be Const(...), Active(...) or "
                            f"Duplicated(...), not {type(a).__name__}")
    # A shadow that shares memory with a value or with another shadow would have the gradient
    # overwrite what it reads (`Duplicated(x, x)` would leave a wrong gradient in x).
    arrays = [(j, "value", v) for j, v in enumerate(values) if isinstance(v, np.ndarray)]
    arrays += [(j, "shadow", d) for j, d in shadows.items()]
    for i, dval in shadows.items():
        for j, kind, other in arrays:
            if (j, kind) == (i, "shadow") or not np.may_share_memory(dval, other):
                continue
            try:
                overlap = np.shares_memory(dval, other, max_work=10**6)
            except RuntimeError:  # numpy's TooHardError: too costly to decide, so refuse
                overlap = True
            if overlap:
                whose = "its value" if (j, kind) == (i, "value") else \
                    f"the {kind} of argument {j}"
                raise ArgumentValueError(f"autodiff: argument {i}: the shadow shares memory "
                                         f"with {whose}; give each shadow its own array "
                                         "(np.zeros_like(value))")
    noneed = tuple(isinstance(a, DuplicatedNoNeed) for a in args)
    g = cache.get(values, tuple(active), False, dupnoneed=noneed if any(noneed) else ())
    for i, act in enumerate(g.activities):
        if act == Activity.DUP and i not in shadows:
            shadows[i] = np.zeros_like(values[i])  # written but not differentiated
    _, outs = run_gradient(g, values, seed, shadows)
    return tuple(float(o) for o in outs)
