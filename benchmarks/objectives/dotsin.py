"""Dot-of-transcendentals objective (vectorizable math):

    f(x, y) = sum_i sin(x_i) cos(y_i) exp(-x_i^2)

over 10^6 elements; the gradient is taken with respect to `x` and `y`.  Each element costs
three libm calls in the primal and up to six in the gradient, so the speed of the vector
math library decides the benchmark.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

NAME = "dotsin"
TITLE = "sum sin(x) cos(y) exp(-x^2), 1e6"
ARGNUMS = (0, 1)
C_SOURCE = Path(__file__).with_suffix(".c")


@dataclass(frozen=True)
class Size:
    """`n` elements."""

    label: str
    n: int


def sizes(quick: bool) -> list[Size]:
    """The benchmarked sizes (one tiny size when `quick`)."""
    if quick:
        return [Size("n=1e4", 10_000)]
    return [Size("n=1e6", 1_000_000)]


def make_args(size: Size, seed: int = 0) -> tuple:
    """(x, y, n): uniform in [-2, 2]."""
    rng = np.random.default_rng(seed)
    return rng.uniform(-2.0, 2.0, size.n), rng.uniform(-2.0, 2.0, size.n), size.n


def primal(x, y, n):
    """sum_i sin(x_i) cos(y_i) exp(-x_i^2), summed in index order."""
    s = 0.0
    for i in range(n):
        s += math.sin(x[i]) * math.cos(y[i]) * math.exp(-(x[i] * x[i]))
    return s


def jax_primal(x, y, n):
    """`primal` in jax.numpy (`n` static; XLA may sum in any order)."""
    import jax.numpy as jnp

    return jnp.sum(jnp.sin(x[:n]) * jnp.cos(y[:n]) * jnp.exp(-(x[:n] * x[:n])))
