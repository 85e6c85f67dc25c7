"""2-D stencil objective in NumPy form: one 2-D slice assignment per time step.

The mathematics, sizes and data are those of `stencil2d` (the loop form; see its
docstring): each step assigns the interior `u[1:-1, 1:-1]` from the four shifted interior
slices.  NumPy evaluates the right side before it writes, so the step is the loop form's
Jacobi step (its ping-pong between two buffers) and the values agree.

The JAX reference is the same statement as `u.at[1:-1, 1:-1].set(...)` in a
`lax.fori_loop` (a Python loop of `steps` iterations under `jax.jit` would unroll).
Invariants: the value equals the loop form's to rounding; the arguments are never written.
"""

from __future__ import annotations

import numpy as np

from benchmarks.objectives.stencil2d import Size, make_args, sizes

NAME = "stencil2d_numpy"
TITLE = "Stencil 2-D (heat), NumPy form"
FORM = "numpy"
LOOP_FORM = "stencil2d"
ARGNUMS = (0, 1)
C_SOURCE = None  # the C form is the loop form's

__all__ = ["ARGNUMS", "C_SOURCE", "FORM", "LOOP_FORM", "NAME", "TITLE", "Size", "jax_primal",
           "make_args", "primal", "sizes"]


def primal(u0, kappa, w, r, n, steps):
    """sum(w * u) after `steps` explicit steps from u0, in array form."""
    u = u0.copy()
    rk = r * kappa[1:-1, 1:-1]
    for _ in range(steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + rk * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return np.sum(w * u)


def jax_primal(u0, kappa, w, r, n, steps):
    """`primal`'s statement as `.at[1:-1, 1:-1].set` in a `lax.fori_loop` (ints static)."""
    import jax
    import jax.numpy as jnp

    rk = r * kappa[1:-1, 1:-1]

    def step(_, u):
        return u.at[1:-1, 1:-1].set(u[1:-1, 1:-1] + rk * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]))

    return jnp.sum(w * jax.lax.fori_loop(0, steps, step, u0))
