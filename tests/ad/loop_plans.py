"""Helpers of the tests of the plans that rearrange reversed loops (`ad/load_windows.py`,
`ad/overwritten_loads.py`): a gradient compiled with a plan switched off, and central finite
differences with respect to the first argument."""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

from enzyme_py.ad import reverse


def gradient_without(plan: str, empty: Any, f: Callable, args: tuple,
                     grad: Callable[[Callable, str], Callable]) -> Callable:
    """`grad(g, name)` of a fresh copy g of `f` (its own cache), compiled (on `args`) while
    `reverse.<plan>` makes `empty`."""
    g = types.FunctionType(f.__code__, f.__globals__, f.__name__ + "_plain")
    orig = getattr(reverse, plan)
    setattr(reverse, plan, lambda *a, **k: empty)
    try:
        out = grad(g, f.__name__)
        out(*args)  # compiled now, while the plan is off
    finally:
        setattr(reverse, plan, orig)
    return out


def fd_first(f: Callable, args: tuple, eps: float = 1e-6) -> np.ndarray:
    """Central differences of `f(*args)` in each element of the 1-D array `args[0]`."""
    u = np.array(args[0], dtype=float)
    out = np.empty_like(u)
    for j in range(u.size):
        up, dn = u.copy(), u.copy()
        up[j] += eps
        dn[j] -= eps
        out[j] = (f(up, *args[1:]) - f(dn, *args[1:])) / (2 * eps)
    return out
