"""2-D stencil objective: explicit heat equation with a variable diffusivity, in place.

    u_ij <- u_ij + r kappa_ij (u_{i-1,j} + u_{i+1,j} + u_{i,j-1} + u_{i,j+1} - 4 u_ij)

on the interior of an n x n grid (the border is held fixed); `steps` (even) time steps
ping-pong between two work buffers; the loss is the weighted sum of the final field.  The
gradient is taken with respect to `u0` and `kappa`.  The inputs are never written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

NAME = "stencil2d"
TITLE = "Stencil 2-D (heat, in place)"
ARGNUMS = (0, 1)
C_SOURCE = Path(__file__).with_suffix(".c")

R = 0.1  # r = dt / dx^2; stable since r * max(kappa) < 0.25


@dataclass(frozen=True)
class Size:
    """An `n` x `n` grid, `steps` time steps (even)."""

    label: str
    n: int
    steps: int


def sizes(quick: bool) -> list[Size]:
    """The benchmarked sizes (one tiny size when `quick`)."""
    if quick:
        return [Size("32x32, 16 steps", 32, 16)]
    return [Size("128x128, 400 steps", 128, 400)]


def make_args(size: Size, seed: int = 0) -> tuple:
    """(u0, kappa, w, r, n, steps): a smooth bump plus noise, kappa in [0.5, 1.5]."""
    rng = np.random.default_rng(seed)
    n = size.n
    s = np.linspace(0.0, 1.0, n)
    u0 = np.outer(np.sin(np.pi * s), np.sin(np.pi * s)) + 0.1 * rng.uniform(-1.0, 1.0, (n, n))
    kappa = rng.uniform(0.5, 1.5, (n, n))
    w = rng.uniform(-1.0, 1.0, (n, n))
    return u0, kappa, w, R, n, size.steps


def _step(src, dst, kappa, r, n):
    """The interior of dst = one explicit step of src (dst's border is left as it is)."""
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            dst[i, j] = src[i, j] + r * kappa[i, j] * (
                src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1] - 4.0 * src[i, j])


def primal(u0, kappa, w, r, n, steps):
    """sum(w * u) after `steps` explicit steps from u0 (`steps` even)."""
    u = np.zeros((n, n))
    v = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            u[i, j] = u0[i, j]
            v[i, j] = u0[i, j]
    for _ in range(steps // 2):
        _step(u, v, kappa, r, n)
        _step(v, u, kappa, r, n)
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += w[i, j] * u[i, j]
    return s


def jax_primal(u0, kappa, w, r, n, steps):
    """`primal` in jax.numpy (`n`, `steps` static)."""
    import jax
    import jax.numpy as jnp

    m = n - 1
    rk = r * kappa[1:m, 1:m]

    def step(_, u):
        lap = u[0:m - 1, 1:m] + u[2:n, 1:m] + u[1:m, 0:m - 1] + u[1:m, 2:n] - 4.0 * u[1:m, 1:m]
        return u.at[1:m, 1:m].set(u[1:m, 1:m] + rk * lap)

    return jnp.sum(w * jax.lax.fori_loop(0, steps, step, u0))
