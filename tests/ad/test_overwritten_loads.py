"""Overwritten loads (`ad/overwritten_loads.py`): the reverse of a loop that reads each
element one trip before it overwrites it stores the load's adjoint instead of zeroing and
adding. Every case is compared with the same gradient built without the pairs (only the order
of sums may differ), and with finite differences or JAX; the cases that should form a pair are
checked to form it, and the others not to."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.ad import overwritten_loads
from tests.ad.loop_plans import fd_first, gradient_without
from tests.ad.test_load_windows import in_place  # Gauss-Seidel: u[i + 1] is read, then written

jax.config.update("jax_enable_x64", True)


def heat_numpy(u0, kappa, steps):  # NumPy's in-place slice update, one loop per time step
    u = u0.copy()
    rk = 0.2 * kappa[1:-1]
    for _ in range(steps):
        u[1:-1] = u[1:-1] + rk * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u * u * u)


def shift_down(u0, n):  # descending: trip t reads u[i - 1], which trip t + 1 overwrites
    # (LLVM addresses the read by a second counter lagging one trip behind the loop's)
    u = u0.copy()
    for i in range(n - 1, 0, -1):
        u[i] = u[i - 1] * u[i - 1] + 0.25
    s = 0.0
    for i in range(n):
        s += u[i] * (i + 1.0)
    return s


def two_ahead(u0, n):  # reads two elements ahead: no pair (the load is two trips ahead)
    u = u0.copy()
    for i in range(n - 2):
        u[i] = u[i] + u[i + 2] * u[i + 2]
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


def also_read_elsewhere(u0, n):  # another read of the array beside the pair: no pair
    u = u0.copy()
    for i in range(1, n - 1):
        u[i] = u[i + 1] * 0.5 + u[(3 * i) % n] * 0.25
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


_RNG = np.random.default_rng(5)
_U = _RNG.uniform(-1.0, 1.0, 12)
_ARGS = {
    "in_place": (_U, 12),
    "heat_numpy": (_U, _RNG.uniform(0.5, 1.5, 12), 7),
    "shift_down": (_U, 12),
    "two_ahead": (_U, 12),
    "also_read_elsewhere": (_U, 12),
}
PAIRED = [in_place, heat_numpy, shift_down]
UNPAIRED = [two_ahead, also_read_elsewhere]
UNCHECKED = {"shift_down", "also_read_elsewhere"}  # (checks would split the loop's block)


def _grad(f, name=None):
    return ez.grad(f, argnums=0, bounds_check=(name or f.__name__) not in UNCHECKED)


def _without_pairs(f):
    """`f`'s gradient compiled with no pairs."""
    return gradient_without("plan_overwrites", overwritten_loads.OverwrittenLoads([]), f,
                            _ARGS[f.__name__], _grad)


def _pairs_formed(f, args=None) -> int:
    text = ez.show(f, *(args or _ARGS[f.__name__]), stage="gradient", argnums=0,
                   preoptimize=True, bounds_check=f.__name__ not in UNCHECKED)
    return text.count(".overwritten:")


@pytest.mark.parametrize("f", PAIRED + UNPAIRED, ids=lambda f: f.__name__)
def test_same_gradient_with_and_without_pairs(f) -> None:
    args = _ARGS[f.__name__]
    got = _grad(f)(*args)
    np.testing.assert_allclose(got, _without_pairs(f)(*args), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got, fd_first(f, args), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", PAIRED, ids=lambda f: f.__name__)
def test_pairs_form(f) -> None:
    assert _pairs_formed(f) == 1


@pytest.mark.parametrize("f", UNPAIRED, ids=lambda f: f.__name__)
def test_no_pair_without_the_pattern(f) -> None:
    assert _pairs_formed(f) == 0


def test_numpy_heat_matches_jax() -> None:
    u0, kappa, steps = _ARGS["heat_numpy"]

    def ref(u, k):
        rk = 0.2 * k[1:-1]
        for _ in range(steps):
            u = u.at[1:-1].set(u[1:-1] + rk * (u[:-2] - 2.0 * u[1:-1] + u[2:]))
        return jnp.sum(u * u * u)

    got = ez.grad(heat_numpy, argnums=(0, 1))(u0, kappa, steps)
    want = jax.grad(ref, argnums=(0, 1))(jnp.asarray(u0), jnp.asarray(kappa))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("n", [3, 4, 17, 64])
def test_short_and_long_loops(n) -> None:
    """One trip (its first reversed trip is its last), two, and sizes the vectorized loop
    runs with a remainder."""
    u = np.random.default_rng(n).uniform(-1.0, 1.0, n)
    got = _grad(in_place)(u, n)
    np.testing.assert_allclose(got, fd_first(in_place, (u, n)), rtol=1e-6, atol=1e-8)
    down = _grad(shift_down)(u, n)
    np.testing.assert_allclose(down, fd_first(shift_down, (u, n)), rtol=1e-6, atol=1e-8)


def test_gradient_of_the_overwritten_array_is_seeded_once() -> None:
    """The array's shadow held an adjoint before the loop reversed (the loss reads u after
    the loop): the element only the first reversed trip's load reads keeps it, the others
    get their loads' adjoints alone, and the element only the last trip's store wrote is 0."""

    def f(u0, n):
        u = u0.copy()
        for i in range(n - 1):
            u[i] = 2.0 * u[i + 1]
        return u[0] + 3.0 * u[n - 1] + 5.0 * u[n - 2]

    n = 6
    u = np.arange(1.0, n + 1.0)
    got = ez.grad(f)(u, n)
    # u[i] (new) = 2 u0[i + 1], i < n - 1; u[n - 1] = u0[n - 1]
    want = np.zeros(n)
    want[1] += 2.0  # u[0]
    want[n - 1] += 3.0 + 5.0 * 2.0  # u[n - 1] is read as itself and by u[n - 2]
    np.testing.assert_array_equal(got, want)
    assert _pairs_formed(f, (u, n)) == 1


def heat2d_numpy(u0, kappa, steps):  # the 2-D step: its row loop reads the next row too
    u = u0.copy()
    rk = 0.2 * kappa[1:-1, 1:-1]
    for _ in range(steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + rk * (
            u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return np.sum(u * u * u)


def test_numpy_heat_2d_forms_a_pair_and_matches_jax() -> None:
    """A gradient's row loop reads the rows ahead from copies (`carried._rows_ahead`), so it
    touches u only where it stores and one column ahead: a pair."""
    rng = np.random.default_rng(11)
    u0, kappa, steps = rng.uniform(-1.0, 1.0, (6, 9)), rng.uniform(0.5, 1.5, (6, 9)), 4

    def ref(u, k):
        rk = 0.2 * k[1:-1, 1:-1]
        for _ in range(steps):
            u = u.at[1:-1, 1:-1].set(u[1:-1, 1:-1] + rk * (
                u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]))
        return jnp.sum(u * u * u)

    got = ez.grad(heat2d_numpy, argnums=(0, 1))(u0, kappa, steps)
    want = jax.grad(ref, argnums=(0, 1))(jnp.asarray(u0), jnp.asarray(kappa))
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-14)
    assert _pairs_formed(heat2d_numpy, (u0, kappa, steps)) == 1
