"""Central finite differences, the one copy the Python tests share (the C programs have
theirs in `tests/ad/c/enzyme_test.h` and `tests/ad/forward/c/fwd_test.h`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def fd_deriv(f: Callable[[float], float], x: float, h: float = 1e-6) -> float:
    """d f / d x at a scalar x: (f(x + h) - f(x - h)) / 2h."""
    return (f(x + h) - f(x - h)) / (2 * h)


def fd_grad(f: Callable[[np.ndarray], float], x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """The gradient of a scalar function of an array x (any shape), one element at a time:
    g[k] = (f(x + h e_k) - f(x - h e_k)) / 2h.  f gets fresh copies of x."""
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[k] += h
        xm[k] -= h
        g[k] = (f(xp) - f(xm)) / (2 * h)
    return g


def fd_dir(f: Callable[[np.ndarray], float | np.ndarray], x: np.ndarray, v: np.ndarray,
           h: float = 1e-6) -> np.ndarray:
    """d/dt f(x + t v) at t = 0, the step h scaled by max(1, max |x|)."""
    step = h * max(1.0, float(np.max(np.abs(x))) if x.size else 1.0)
    return (np.asarray(f(x + step * v)) - np.asarray(f(x - step * v))) / (2 * step)
