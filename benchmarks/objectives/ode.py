"""ODE objective: classical RK4 on the Lotka-Volterra system, the four rates active.

    x' = a x - b x y,    y' = d x y - c y,    p = (a, b, c, d)

integrated from `y0` over `nsteps` steps of size `h` (loop-heavy: 10^5 dependent steps of a
few dozen flops each); the loss is the squared distance of the final state to `target`.
The gradient is taken with respect to `p`.  Every form (Python subset, C, JAX) performs the
same operations in the same order, so values agree to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

NAME = "ode"
TITLE = "ODE (RK4 Lotka-Volterra, 1e5 steps)"
ARGNUMS = (0,)
C_SOURCE = Path(__file__).with_suffix(".c")

T_END = 10.0  # integration time; the step is T_END / nsteps


@dataclass(frozen=True)
class Size:
    """`nsteps` RK4 steps over [0, T_END]."""

    label: str
    nsteps: int


def sizes(quick: bool) -> list[Size]:
    """The benchmarked sizes (one tiny size when `quick`)."""
    if quick:
        return [Size("1e3 steps", 1_000)]
    return [Size("1e5 steps", 100_000)]


def make_args(size: Size, seed: int = 0) -> tuple:
    """(p, y0, target, h, nsteps): rates near (0.6, 0.4, 0.8, 0.2), a positive start."""
    rng = np.random.default_rng(seed)
    p = np.array([0.6, 0.4, 0.8, 0.2]) * (1.0 + 0.05 * rng.uniform(-1.0, 1.0, 4))
    y0 = np.array([2.0, 1.5])
    target = np.array([1.0, 1.0])
    return p, y0, target, T_END / size.nsteps, size.nsteps


def primal(p, y0, target, h, nsteps):
    """Squared distance between the RK4 state after `nsteps` steps and `target`."""
    a = p[0]
    b = p[1]
    c = p[2]
    d = p[3]
    x = y0[0]
    y = y0[1]
    for _ in range(nsteps):
        k1x = a * x - b * x * y
        k1y = d * x * y - c * y
        x2 = x + 0.5 * h * k1x
        y2 = y + 0.5 * h * k1y
        k2x = a * x2 - b * x2 * y2
        k2y = d * x2 * y2 - c * y2
        x3 = x + 0.5 * h * k2x
        y3 = y + 0.5 * h * k2y
        k3x = a * x3 - b * x3 * y3
        k3y = d * x3 * y3 - c * y3
        x4 = x + h * k3x
        y4 = y + h * k3y
        k4x = a * x4 - b * x4 * y4
        k4y = d * x4 * y4 - c * y4
        x = x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        y = y + h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y)
    ex = x - target[0]
    ey = y - target[1]
    return ex * ex + ey * ey


def jax_primal(p, y0, target, h, nsteps):
    """`primal` in jax.numpy (`nsteps` must be static: the loop is a `lax.fori_loop`)."""
    import jax

    a, b, c, d = p[0], p[1], p[2], p[3]

    def step(_, state):
        x, y = state
        k1x = a * x - b * x * y
        k1y = d * x * y - c * y
        x2 = x + 0.5 * h * k1x
        y2 = y + 0.5 * h * k1y
        k2x = a * x2 - b * x2 * y2
        k2y = d * x2 * y2 - c * y2
        x3 = x + 0.5 * h * k2x
        y3 = y + 0.5 * h * k2y
        k3x = a * x3 - b * x3 * y3
        k3y = d * x3 * y3 - c * y3
        x4 = x + h * k3x
        y4 = y + h * k3y
        k4x = a * x4 - b * x4 * y4
        k4y = d * x4 * y4 - c * y4
        return (x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
                y + h / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y))

    x, y = jax.lax.fori_loop(0, nsteps, step, (y0[0], y0[1]))
    return (x - target[0]) ** 2 + (y - target[1]) ** 2
