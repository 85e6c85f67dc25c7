"""1-D stencil objective in NumPy form: one slice assignment per time step.

The mathematics, sizes and data are those of `stencil1d` (the loop form; see its
docstring): each step is `u[1:-1] = u[1:-1] + rk * (u[:-2] - 2 * u[1:-1] + u[2:])` on one
work copy of u0.  NumPy evaluates the right side before it writes, so the step is the
loop form's Jacobi step (its ping-pong between two buffers) and the values agree.

The JAX reference is the same statement as `u.at[1:-1].set(...)` in a `lax.fori_loop`
(a Python loop of `steps` iterations under `jax.jit` would unroll into the XLA graph).
Invariants: the value equals the loop form's to rounding; the arguments are never written.
"""

from __future__ import annotations

import numpy as np

from benchmarks.objectives.stencil1d import Size, make_args, sizes

NAME = "stencil1d_numpy"
TITLE = "Stencil 1-D (heat), NumPy form"
FORM = "numpy"
LOOP_FORM = "stencil1d"
ARGNUMS = (0, 1)
C_SOURCE = None  # the C form is the loop form's

__all__ = ["ARGNUMS", "C_SOURCE", "FORM", "LOOP_FORM", "NAME", "TITLE", "Size", "jax_primal",
           "make_args", "primal", "sizes"]


def primal(u0, kappa, w, r, n, steps):
    """w . u after `steps` explicit steps from u0, in array form."""
    u = u0.copy()
    rk = r * kappa[1:-1]
    for _ in range(steps):
        u[1:-1] = u[1:-1] + rk * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(w * u)


def jax_primal(u0, kappa, w, r, n, steps):
    """`primal`'s statement as `.at[1:-1].set` in a `lax.fori_loop` (ints static)."""
    import jax
    import jax.numpy as jnp

    rk = r * kappa[1:-1]

    def step(_, u):
        return u.at[1:-1].set(u[1:-1] + rk * (u[:-2] - 2.0 * u[1:-1] + u[2:]))

    return jnp.sum(w * jax.lax.fori_loop(0, steps, step, u0))
