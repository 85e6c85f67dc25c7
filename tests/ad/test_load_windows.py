"""Adjoint windows (`ad/load_windows.py`): the reverse of a loop's neighbouring loads adds
each shadow element once, from registers. Every case is compared with the same gradient
built without windows (only the order of sums may differ) and with finite differences or
JAX; the cases that should form windows are checked to form them."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.ad import load_windows
from tests.ad.loop_plans import fd_first, gradient_without

jax.config.update("jax_enable_x64", True)


def three_point(u, k, n):
    s = 0.0
    for i in range(1, n - 1):
        s += k[i] * math.sin(u[i - 1] - 2.0 * u[i] + u[i + 1])
    return s


def gapped(u, n):  # offsets -2 and +1, nothing between
    s = 0.0
    for i in range(2, n - 1):
        s += u[i - 2] * u[i + 1] + math.cos(u[i - 2])
    return s


def wide(u, n):  # lags up to 6
    s = 0.0
    for i in range(3, n - 3):
        s += u[i - 3] * u[i] + u[i + 3] * u[i + 3] + 0.5 * u[i - 1]
    return s


def descending(u, n):
    s = 0.0
    for i in reversed(range(1, n - 1)):
        s += u[i + 1] * math.exp(u[i - 1]) - u[i]
    return s


def duplicate_loads(u, n):
    s = 0.0
    for i in range(1, n):
        s += u[i] * u[i] + u[i] * u[i - 1]
    return s


def ping_pong(u0, k, n, steps):  # a heat stencil re-entering the window every step
    u = u0.copy()
    v = u0.copy()
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + k[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(1, n - 1):
            u[i] = v[i]
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


def in_place(u0, n):  # writes the array it reads: no window
    u = u0.copy()
    for i in range(1, n - 1):
        u[i] = 0.5 * (u[i - 1] + u[i + 1])
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


def mixed_reads(u, n):  # a strided read of the same array beside the window
    s = 0.0
    for i in range(1, n - 1):
        s += u[i - 1] * u[i + 1] + u[(3 * i) % n]
    return s


# (a descending loop or an index the front end cannot prove in bounds keeps its checks, and a
# loop with checks has several blocks: these run unchecked)
UNCHECKED = {"descending", "mixed_reads"}


def _grad(f, name=None):
    return ez.grad(f, argnums=0, bounds_check=(name or f.__name__) not in UNCHECKED)


def _without_windows(f):
    """`f`'s gradient compiled with no windows."""
    return gradient_without("plan_windows", load_windows.LoadWindows([]), f,
                            _ARGS[f.__name__], _grad)


def _windows_formed(f) -> int:
    text = ez.show(f, *_ARGS[f.__name__], stage="gradient", argnums=0, preoptimize=True,
                   bounds_check=f.__name__ not in UNCHECKED)
    return text.count(".window.flush:")


_RNG = np.random.default_rng(3)
_U = _RNG.uniform(-1.0, 1.0, 11)
_ARGS = {
    "three_point": (_U, _RNG.uniform(0.5, 1.5, 11), 11),
    "gapped": (_U, 11),
    "wide": (_U, 11),
    "descending": (_U, 11),
    "duplicate_loads": (_U, 11),
    "ping_pong": (_U, _RNG.uniform(0.1, 0.3, 11), 11, 5),
    "in_place": (_U, 11),
    "mixed_reads": (_U, 11),
}
FORMS = [three_point, gapped, wide, descending, duplicate_loads, ping_pong, mixed_reads]


@pytest.mark.parametrize("f", FORMS + [in_place], ids=lambda f: f.__name__)
def test_same_gradient_with_and_without_windows(f) -> None:
    args = _ARGS[f.__name__]
    got = _grad(f)(*args)
    plain = _without_windows(f)(*args)
    np.testing.assert_allclose(got, plain, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(got, fd_first(f, args), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_windows_are_formed(f) -> None:
    assert _windows_formed(f) >= 1


def test_no_window_where_the_loop_writes_what_it_reads() -> None:
    assert _windows_formed(in_place) == 0


# --- in-place shifts: a loop storing u[i] and loading u[i + d] (no window) -----------------


def _shifted_back(d):
    """u[i] = f(u[i + d]) in place, d a constant, in a time loop."""
    source = f"""
def shift_back_{d}(u0, c, n, steps):
    u = u0.copy()
    for _ in range(steps):
        for i in range(n - {d}):
            u[i] = c * u[i + {d}] + math.sin(u[i + {d}])
    s = 0.0
    for i in range(n):
        s += u[i] * u[i] * (i + 1)
    return s
"""
    path = f"<shift_back_{d}>"
    import linecache
    linecache.cache[path] = (len(source), None, source.splitlines(True), path)
    scope = {"math": math}
    exec(compile(source, path, "exec"), scope)
    return scope[f"shift_back_{d}"]


def heat_in_place(u0, k, steps):  # the NumPy stencil: u[i] carried from the load of u[i + 1]
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u ** 2 * np.arange(1.0, u.shape[0] + 1.0))


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 9])
def test_in_place_shifts_give_the_plain_gradient(n, d) -> None:
    # (n - d trips: 0 to 8 of them, fewer than d too)
    u = _RNG.uniform(-1.0, 1.0, n)
    shift_back = _shifted_back(d)
    args = (u, 0.7, n, 3)
    got = ez.grad(shift_back, argnums=(0, 1))(*args)
    plain = gradient_without("plan_windows", load_windows.LoadWindows([]), shift_back, args,
                             lambda g, _: ez.grad(g, argnums=(0, 1)))(*args)
    np.testing.assert_allclose(got[0], plain[0], rtol=1e-13, atol=1e-15)
    assert got[1] == pytest.approx(plain[1], rel=1e-13, abs=1e-15)
    if n:
        np.testing.assert_allclose(got[0], fd_first(shift_back, args), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("n", [2, 3, 5, 12])
def test_the_numpy_heat_stencil_matches_jax(n) -> None:
    u = _RNG.uniform(-1.0, 1.0, n)

    def ref(u0, k):
        w = u0
        for _ in range(4):
            w = w.at[1:-1].set(w[1:-1] + k * (w[:-2] - 2.0 * w[1:-1] + w[2:]))
        return jnp.sum(w ** 2 * jnp.arange(1.0, n + 1.0))

    got = ez.grad(heat_in_place, argnums=(0, 1))(u, 0.3, 4)
    want = jax.grad(ref, argnums=(0, 1))(jnp.asarray(u), 0.3)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-14)
    assert got[1] == pytest.approx(float(want[1]), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7])
def test_fewer_trips_than_the_lag(n) -> None:
    # wide: 6 trips of lag; gapped: 3; n - 6 or fewer trips leave lines partly empty
    for f, lo in ((wide, 7), (gapped, 4), (three_point, 3)):
        if n < lo:
            continue
        u = _U[:n].copy()
        args = (u, _ARGS["three_point"][1][:n], n) if f is three_point else (u, n)
        got = ez.grad(f, argnums=0)(*args)
        np.testing.assert_allclose(got, fd_first(f, args), rtol=1e-7, atol=1e-8)


def test_heat_stencil_against_jax() -> None:
    u0, k, n, steps = _ARGS["ping_pong"]

    def ref(u0):
        def step(u, _):
            return u.at[1:n - 1].set(u[1:n - 1] + k[1:n - 1] * (
                u[:n - 2] - 2.0 * u[1:n - 1] + u[2:])), None
        u, _ = jax.lax.scan(step, u0, None, length=steps)
        return jnp.sum(u * u)

    np.testing.assert_allclose(ez.grad(ping_pong)(u0, k, n, steps),
                               jax.grad(ref)(jnp.asarray(u0)), rtol=1e-13, atol=1e-15)


def test_float32() -> None:
    u = _U.astype(np.float32)
    k = _ARGS["three_point"][1].astype(np.float32)
    got = ez.grad(three_point)(u, k, 11)
    want = fd_first(three_point, (u.astype(float), k.astype(float), 11))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
