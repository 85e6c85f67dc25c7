"""1-D stencil objective: explicit heat equation with a variable diffusivity, in place.

    u_i <- u_i + r kappa_i (u_{i-1} - 2 u_i + u_{i+1}),   i = 1 .. n-2 (ends held fixed)

`steps` (even) time steps ping-pong between two work buffers that each step overwrites
(memory-heavy: the gradient with respect to `kappa` needs every intermediate field);
the loss is the weighted sum w . u of the final field.  The gradient is taken with respect
to the initial field `u0` and the diffusivity `kappa`.  The inputs are never written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

NAME = "stencil1d"
TITLE = "Stencil 1-D (heat, in place)"
ARGNUMS = (0, 1)
C_SOURCE = Path(__file__).with_suffix(".c")

R = 0.2  # r = dt / dx^2; stable since r * max(kappa) < 0.5


@dataclass(frozen=True)
class Size:
    """`n` grid points, `steps` time steps (even)."""

    label: str
    n: int
    steps: int


def sizes(quick: bool) -> list[Size]:
    """The benchmarked sizes (one tiny size when `quick`)."""
    if quick:
        return [Size("n=256, 64 steps", 256, 64)]
    return [Size("n=4096, 1000 steps", 4096, 1000)]


def make_args(size: Size, seed: int = 0) -> tuple:
    """(u0, kappa, w, r, n, steps): a smooth bump plus noise, kappa in [0.5, 1.5]."""
    rng = np.random.default_rng(seed)
    s = np.linspace(0.0, 1.0, size.n)
    u0 = np.sin(np.pi * s) + 0.1 * rng.uniform(-1.0, 1.0, size.n)
    kappa = rng.uniform(0.5, 1.5, size.n)
    w = rng.uniform(-1.0, 1.0, size.n)
    return u0, kappa, w, R, size.n, size.steps


def _step(src, dst, kappa, r, n):
    """dst[1:n-1] = one explicit step of src (dst's end points are left as they are)."""
    for i in range(1, n - 1):
        dst[i] = src[i] + r * kappa[i] * (src[i - 1] - 2.0 * src[i] + src[i + 1])


def primal(u0, kappa, w, r, n, steps):
    """w . u after `steps` explicit steps from u0 (`steps` even)."""
    u = np.zeros(n)
    v = np.zeros(n)
    for i in range(n):
        u[i] = u0[i]
        v[i] = u0[i]
    for _ in range(steps // 2):
        _step(u, v, kappa, r, n)
        _step(v, u, kappa, r, n)
    s = 0.0
    for i in range(n):
        s += w[i] * u[i]
    return s


def jax_primal(u0, kappa, w, r, n, steps):
    """`primal` in jax.numpy (`n`, `steps` static)."""
    import jax
    import jax.numpy as jnp

    rk = r * kappa[1:n - 1]

    def step(_, u):
        return u.at[1:n - 1].set(u[1:n - 1] + rk * (u[0:n - 2] - 2.0 * u[1:n - 1] + u[2:n]))

    return jnp.dot(w, jax.lax.fori_loop(0, steps, step, u0))
