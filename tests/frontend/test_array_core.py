"""The array layer's core behaviours: overlap semantics of slice writes, heap temporaries and
who frees them, run-time shape errors with the source line, masks and gathers, guarded
adjoints of speculated code, comprehensions, local functions, keywords and defaults.

Functions live at module level (the front end reads their source). Values are checked
against NumPy running the same function, gradients against JAX (`check_grad` with the same
source on `jax.numpy`) or finite differences.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend import FrontendError
from enzyme_py.testing import check_grad
from tests.finite_diff import fd_grad

ROOT = Path(__file__).resolve().parents[2]
RNG = np.random.default_rng(3)
V = RNG.uniform(-1.0, 1.0, 7)
M = RNG.uniform(-1.0, 1.0, (4, 5))


def _jax(f):
    """`f` with `np` bound to jax.numpy, and so the module's other functions it calls."""
    env = {**f.__globals__, "np": jnp}
    for name, g in f.__globals__.items():
        if isinstance(g, types.FunctionType) and g.__module__ == f.__module__:
            env[name] = types.FunctionType(g.__code__, env, g.__name__, g.__defaults__,
                                           g.__closure__)
    return types.FunctionType(f.__code__, env, f.__name__, f.__defaults__, f.__closure__)


def _same(f, *args):
    want = f(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    got = ez.jit(f)(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    return got


# --- slice writes read the right side whole first ------------------------------------------


def shift_in_place(u):
    u[1:-1] = u[:-2] + u[2:]
    return np.sum(u * u)


def reverse_in_place(u):
    u[:] = u[::-1]
    return u[0] * 2.0 + u[1]


def smooth_in_place(u, k):
    u[1:-1] += k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u ** 2)


@pytest.mark.parametrize("f", [shift_in_place, reverse_in_place])
def test_overlapping_writes_equal_numpy(f):
    _same(f, V)


def test_in_place_update_equals_numpy_and_differentiates():
    _same(smooth_in_place, V, 0.3)
    g = ez.grad(smooth_in_place)(V, 0.3)

    def ref(u, k):
        inner = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        return jnp.sum(u[:1] ** 2) + jnp.sum(inner ** 2) + jnp.sum(u[-1:] ** 2)

    check_grad(smooth_in_place, V, 0.3, argnums=(0, 1), reference=ref)
    assert g.shape == V.shape


# --- overlapping 1-D stores without a temporary (writes._carried_store) -----------------------


def heat_state(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return u


def heat_steps(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
    return np.sum(u ** 2)


def _jax_heat_steps(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = u.at[1:-1].set(u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]))
    return jnp.sum(u ** 2)


def carry_back(u0):
    u = u0.copy()
    u[1:] = u[:-1] * 2.0 + u[1:]  # reads the element before, as it was
    return u


def carry_back_two(u0):
    u = u0.copy()
    u[2:] = u[:-2] + u[2:]  # two back: through a temporary
    return u


def carry_ahead(u0):
    u = u0.copy()
    u[:-1] = u[1:] * 3.0
    return u


def carry_reversed(u0):
    u = u0.copy()
    v = u[::-1]
    v[1:] = v[:-1] + v[1:]  # negative strides
    return u


def carry_broadcast(u0):
    u = u0.copy()
    u[1:] = u[:1] * 0.5 + u[1:]  # u[:1] stretches: through a temporary
    return u


@pytest.mark.parametrize("f", [carry_back, carry_back_two, carry_ahead, carry_reversed,
                               carry_broadcast])
@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_overlapping_1d_store_equals_numpy(f, n):
    x = RNG.uniform(-1.0, 1.0, n)
    assert np.array_equal(ez.jit(f)(x), f(x.copy()))


@pytest.mark.parametrize("n", [2, 9])  # (no interior element; several)
def test_stencil_store_keeps_no_temporary(n):
    x = RNG.uniform(-1.0, 1.0, n)
    assert np.array_equal(ez.jit(heat_state)(x, 0.2, 3), heat_state(x, 0.2, 3))
    check_grad(heat_steps, x, 0.2, 3, argnums=(0, 1), reference=_jax_heat_steps)
    # the copy of u0 is the one block the primal asks for, and its only allocation site: the
    # slices u[1:-1], u[:-2] and u[2:] have one extent at compile time, so the store has no
    # form through a temporary to fall back to
    heap = ez.profile(heat_steps, x, 0.2, 3, argnums=(0, 1), repeat=1).primal_heap
    assert [(s.calls, s.bytes) for s in heap] == [(1, 8 * n)]


def carry_broadcast_steps(u0, k):
    u = u0.copy()
    for _ in range(2):
        u[1:] = u[:1] * k + u[1:]  # carried where n == 2, else through a temporary
    return np.sum(u * u)


def _jax_carry_broadcast_steps(u0, k):
    u = u0
    for _ in range(2):
        u = u.at[1:].set(u[:1] * k + u[1:])
    return jnp.sum(u * u)


@pytest.mark.parametrize("n", [2, 6])
def test_gradient_of_a_store_that_falls_back_to_a_temporary(n):
    """A gradient's first compile has the carried loop only; where it cannot run (u[:1]
    stretches), the gradient is the checked compile's, through the temporary."""
    check_grad(carry_broadcast_steps, RNG.uniform(-1.0, 1.0, n), 0.7, argnums=(0, 1),
               reference=_jax_carry_broadcast_steps)


def constant_slices(x):
    """Slices with constant bounds, those of one extent (trim) side by side in a statement."""
    ends = (np.sum(x[:0]) + x[:0].shape[0] + np.sum(x[0:]) + 2 * x[0:].shape[0] +
            np.sum(x[:3]) + 3 * x[:3].shape[0] + np.sum(x[2:5]) + 5 * x[2:5].shape[0] +
            np.sum(x[-3:]) + 7 * x[-3:].shape[0] + np.sum(x[-4:-1]) + 11 * x[-4:-1].shape[0])
    one = np.sum(x[1:] * x[:-1]) + 13 * x[1:].shape[0] + 17 * x[:-1].shape[0]
    two = np.sum(x[1:-1] * x[:-2] - x[2:]) + 19 * x[2:].shape[0] + 23 * x[:-2].shape[0]
    five = np.sum(x[2:-3] + x[5:] * x[:-5]) + 29 * x[5:].shape[0] + 31 * x[2:-3].shape[0]
    return ends + one + two + five


@pytest.mark.parametrize("n", range(8))
def test_constant_slices_have_python_extents(n):
    """Extents shared by `a:`, `:-b` and `a:-b` slices (views._trimmed) are Python's for
    every length, the empty ones included (`x[:0]` is empty, not the whole axis)."""
    x = RNG.uniform(-1.0, 1.0, n)
    assert ez.jit(constant_slices)(x) == pytest.approx(constant_slices(x), rel=1e-13, abs=1e-13)


# --- overlapping 2-D stores without a temporary (carried._carried_rows) ---------------------


def heat2d_state(u0, k, steps):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + k * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] +
                                             u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1])
    return u


def heat2d_steps(u0, k, steps):
    return np.sum(heat2d_state(u0, k, steps) ** 2)


def heat2d_three_steps(u0, k):
    return heat2d_steps(u0, k, 3)


def _jax_heat2d_steps(u0, k, steps):
    u = u0
    for _ in range(steps):
        u = u.at[1:-1, 1:-1].set(u[1:-1, 1:-1] + k * (u[:-2, 1:-1] + u[2:, 1:-1] +
                                                      u[1:-1, :-2] + u[1:-1, 2:] -
                                                      4.0 * u[1:-1, 1:-1]))
    return jnp.sum(u ** 2)


def nine_points(u0, k):
    u = u0.copy()
    u[1:-1, 1:-1] = k * (u[:-2, :-2] + u[:-2, 1:-1] + u[:-2, 2:] + u[1:-1, :-2] + u[1:-1, 2:] +
                         u[2:, :-2] + u[2:, 1:-1] + u[2:, 2:]) + (1.0 - 8.0 * k) * u[1:-1, 1:-1]
    return u


def row_back_reaching_right(u0, k):
    u = u0.copy()
    u[1:, :-3] = u[:-1, 3:] * k + u[1:, 1:-2] - u[:-1, :-3]  # one row back, 3 columns right
    return u


def rows_ahead_any_column(u0, k):
    u = u0.copy()
    u[:-2, 2:] = u[2:, :-2] + k * u[1:-1, 1:-1]  # later rows, columns to the left
    return u


def two_rows_back(u0, k):
    u = u0.copy()
    u[2:] = u[:-2] + k * u[2:]  # two rows back: through a temporary
    return u


def two_columns_back(u0, k):
    u = u0.copy()
    u[:, 2:] = u[:, :-2] + k * u[:, 2:]  # two columns back in one row: through a temporary
    return u


def transposed_variable(u0, k):
    u = u0.copy()
    v = u.T  # a variable whose rows are u's columns
    v[1:, 1:] = v[:-1, :-1] * k + v[1:, :-1]
    return u


@pytest.mark.parametrize("f", [nine_points, row_back_reaching_right, rows_ahead_any_column,
                               two_rows_back, two_columns_back, transposed_variable])
@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (2, 3), (3, 3), (4, 9), (9, 4)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_overlapping_2d_store_equals_numpy(f, shape, order):
    x = np.asarray(RNG.uniform(-1.0, 1.0, shape), order=order)
    assert np.array_equal(ez.jit(f)(x, 0.3), f(x.copy(), 0.3))


def nine_points_loss(u0, k):
    return np.sum(nine_points(u0, k) ** 2 * np.arange(1.0, u0.size + 1.0).reshape(u0.shape))


def reaching_right_loss(u0, k):
    return np.sum(row_back_reaching_right(u0, k) ** 2 *
                  np.arange(1.0, u0.size + 1.0).reshape(u0.shape))


def rows_ahead_loss(u0, k):
    return np.sum(rows_ahead_any_column(u0, k) ** 2 *
                  np.arange(1.0, u0.size + 1.0).reshape(u0.shape))


def transposed_loss(u0, k):
    return np.sum(transposed_variable(u0, k) ** 2 *
                  np.arange(1.0, u0.size + 1.0).reshape(u0.shape))


def _jax_nine_points(u, k):
    return u.at[1:-1, 1:-1].set(k * (u[:-2, :-2] + u[:-2, 1:-1] + u[:-2, 2:] + u[1:-1, :-2] +
                                     u[1:-1, 2:] + u[2:, :-2] + u[2:, 1:-1] + u[2:, 2:]) +
                                (1.0 - 8.0 * k) * u[1:-1, 1:-1])


def _jax_reaching_right(u, k):
    return u.at[1:, :-3].set(u[:-1, 3:] * k + u[1:, 1:-2] - u[:-1, :-3])


def _jax_rows_ahead(u, k):
    return u.at[:-2, 2:].set(u[2:, :-2] + k * u[1:-1, 1:-1])


def _jax_transposed(u, k):
    v = u.T
    return v.at[1:, 1:].set(v[:-1, :-1] * k + v[1:, :-1]).T


def _weighted(step):
    def loss(u0, k):
        return jnp.sum(step(u0, k) ** 2 * jnp.arange(1.0, u0.size + 1.0).reshape(u0.shape))
    return loss


@pytest.mark.parametrize("f, ref", [
    (nine_points_loss, _jax_nine_points), (reaching_right_loss, _jax_reaching_right),
    (rows_ahead_loss, _jax_rows_ahead), (transposed_loss, _jax_transposed)],
    ids=["nine-points", "row-back-reaching-right", "rows-ahead", "transposed"])
@pytest.mark.parametrize("shape", [(3, 4), (5, 7)])
def test_2d_carried_stores_gradients_are_jax_s(f, ref, shape):
    x = RNG.uniform(-1.0, 1.0, shape)
    check_grad(f, x, 0.3, argnums=(0, 1), reference=_weighted(ref))
    check_grad(f, np.asfortranarray(x), 0.3, argnums=(0, 1), reference=_weighted(ref))


def test_2d_stencil_store_keeps_one_line_buffer():
    x = RNG.uniform(-1.0, 1.0, (5, 6))
    assert np.array_equal(ez.jit(heat2d_state)(x, 0.1, 3), heat2d_state(x, 0.1, 3))
    check_grad(heat2d_steps, x, 0.1, 3, argnums=(0, 1), reference=_jax_heat2d_steps)
    g = check_grad(heat2d_steps, x, 0.1, 3, argnums=(0, 1), reference=_jax_heat2d_steps)
    tx = RNG.uniform(-1.0, 1.0, x.shape)
    _, slope = ez.jvp(heat2d_three_steps, (x, 0.1), (tx, 0.5))
    assert slope == pytest.approx(np.sum(g[0] * tx) + g[1] * 0.5, rel=1e-12)
    # the copy of u0, then per step one line of the interior's width (the row above, as it
    # was); no temporary: the shifted slices have the interior's extents at compile time
    heap = ez.profile(heat2d_steps, x, 0.1, 3, argnums=(0, 1), repeat=1).primal_heap
    assert [(s.calls, s.bytes) for s in heap] == [(1, 8 * 30), (3, 3 * 8 * 4)]


# --- heap temporaries ----------------------------------------------------------------------


def time_steps(u, n):
    for _ in range(n):
        u = u + 0.1 * np.tanh(u)  # a fresh buffer every step; the old one is freed
    return np.sum(u)


def test_buffers_made_in_a_loop_are_freed():
    code = textwrap.dedent("""
        import numpy as np, resource, enzyme_py as ez
        from tests.frontend.test_array_core import time_steps
        f = ez.jit(time_steps)
        u = np.ones(100_000)
        f(u, 10)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        f(u, 2000)  # 2000 buffers of 0.8 MB each: 1.6 GB if none were freed
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(after - before)
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, check=True)
    assert int(r.stdout.strip()) < 50_000  # KiB


def test_time_steps_gradient():
    check_grad(time_steps, V, 5, argnums=0, reference=_jax(time_steps))


def made_here(x0):
    u = x0.copy()
    u[0] = 1.0
    return u  # the buffer u owns is handed to the caller, not copied


def made_in_a_loop(x0, n):
    u = x0 * 1.0
    for _ in range(n):
        u = u * 0.5 + 1.0
    return u


def rebound_to_a_part(x0):
    u = x0.copy()
    u = u[1:]  # u views part of its block: the result is a copy
    return u


def small_on_the_stack(x):
    u = np.zeros(3)
    u[0] = x
    return u


def returns_one_of_two(x0, c):
    u = x0.copy()
    if c > 0:
        return u
    return u[::-1] * 2.0


def calls_them(x0):
    a = made_here(x0)
    b = made_in_a_loop(x0, 3)
    return np.sum(a * b) + np.sum(rebound_to_a_part(x0)) + returns_one_of_two(x0, 1.0)[2]


def test_a_returned_variable_hands_over_its_buffer():
    for f, args in [(made_here, (V,)), (made_in_a_loop, (V, 3)), (rebound_to_a_part, (V,)),
                    (small_on_the_stack, (2.5,)), (returns_one_of_two, (V, 1.0)),
                    (returns_one_of_two, (V, -1.0))]:
        assert np.array_equal(ez.jit(f)(*args), f(*args)), f.__name__
    check_grad(calls_them, V, reference=_jax_calls_them)
    # the blocks the helpers make (the copies and products: 1 + 4 + 1 + 1) and the copy
    # of rebound_to_a_part's part; no copy of a buffer a returned variable owned (3 more)
    heap = ez.profile(calls_them, V, repeat=1).primal_heap
    assert sum(s.calls for s in heap) == 8, heap


def _jax_calls_them(x0):
    b = x0 * 1.0
    for _ in range(3):
        b = b * 0.5 + 1.0
    return jnp.sum(x0.at[0].set(1.0) * b) + jnp.sum(x0[1:]) + x0[2]


def test_handed_over_buffers_are_freed_once():
    code = textwrap.dedent("""
        import numpy as np, resource, enzyme_py as ez
        from tests.frontend.test_array_core import calls_them, made_here
        f, g = ez.jit(made_here), ez.grad(calls_them)
        u = np.ones(100_000)
        f(u), g(u)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        for _ in range(300):  # 0.8 MB each: 240 MB if the blocks were not freed
            f(u)
            g(u)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(after - before)
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, check=True, env={**os.environ, "MALLOC_CHECK_": "3"})
    assert int(r.stdout.strip()) < 50_000  # KiB


def aliased_rebind(x):
    y = x
    for _ in range(2):
        y = y * 2.0
    return np.sum(y)


def test_rebinding_a_view_of_a_parameter_in_a_loop():
    assert _same(aliased_rebind, V) == pytest.approx(4.0 * np.sum(V))


# --- run-time shape errors ------------------------------------------------------------------


def add_vectors(x, y):
    return np.sum(x + y)  # marker: broadcast


def matvec(A, x):
    return np.sum(A @ x)


def reshape_bad(x):
    return np.sum(x.reshape(4, 2))


def store_bad(x, y):
    x[1:] = y
    return x[0]


@pytest.mark.parametrize("f,args,match", [
    (add_vectors, (np.ones(3), np.ones(4)), r"could not be broadcast.*extents 3 and 4"),
    (matvec, (np.ones((3, 4)), np.ones(3)), r"inner sizes 4 and 3"),
    (reshape_bad, (np.ones(7),), r"cannot reshape an array of size 7"),
    (store_bad, (np.ones(4), np.ones(2)), r"shapes do not match"),
])
def test_shape_errors_are_value_errors_with_the_line(f, args, match):
    with pytest.raises(ValueError, match=match) as info:
        ez.jit(f)(*args)
    assert "test_array_core.py" in str(info.value)
    with pytest.raises(ValueError, match=match):
        ez.grad(f)(*args)


def test_broadcasting_size_one_extents_at_run_time():
    a, b = np.ones((3, 1)), np.arange(4.0)
    assert ez.jit(add_vectors)(a, b) == pytest.approx(np.sum(a + b))


# --- masks and gathers ----------------------------------------------------------------------


def sqrt_of_positive(x):
    return np.sum(np.sqrt(x[x > 0]))


def mean_of_selected(X):
    return np.mean(X[X > 0.0] ** 2)


def clamp_negative(x):
    y = x.copy()
    y[y < 0.0] = 0.0
    y[y > 0.5] *= 2.0
    return np.sum(y * x)


def gather_rows(X, idx):
    return np.sum(X[idx] ** 2)


def selected_then_stored(x):
    p = x[x > 0.0]
    return np.sum(p) * len(p)


def test_mask_reductions_evaluate_only_selected_elements():
    g = ez.grad(sqrt_of_positive)(V)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, np.where(V > 0, 0.5 / np.sqrt(np.abs(V)), 0.0), rtol=1e-12)
    _same(sqrt_of_positive, V)


def _fd(f, x, h=1e-6):
    """Central differences of `ez.jit(f)` at array x (JAX cannot trace boolean masks)."""
    return fd_grad(ez.jit(f), x, h)


@pytest.mark.parametrize("f,args", [(mean_of_selected, (M,)), (clamp_negative, (V,)),
                                    (selected_then_stored, (V,))])
def test_masks_equal_numpy_and_finite_differences(f, args):
    _same(f, *args)
    np.testing.assert_allclose(ez.grad(f)(*args), _fd(f, *args), rtol=1e-6, atol=1e-8)


def test_gather_with_negative_and_repeated_indices():
    idx = np.array([0, 3, 3, -1])
    _same(gather_rows, M, idx)
    g = ez.grad(gather_rows)(M, idx)
    want = np.zeros_like(M)
    for i in idx:
        want[i] += 2 * M[i]
    np.testing.assert_allclose(g, want, rtol=1e-12)
    with pytest.raises(IndexError, match="out of bounds"):
        ez.jit(gather_rows)(M, np.array([4]))


def masked_scatter(x, idx):
    x[idx] = 0.0
    return x[0]


def test_integer_scatter_is_a_clean_error():
    with pytest.raises(FrontendError, match="scatter"):
        ez.jit(masked_scatter)(V.copy(), np.array([1]))


# --- speculated code: guarded adjoints ------------------------------------------------------


def sqrt_if_positive(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.0:
            s += math.sqrt(x[i])
    return s


def log_where(x):
    return np.sum(np.where(x > 0.0, 1.0, 0.0) * x)


def test_code_speculated_out_of_a_branch_leaves_no_nan_in_the_gradient():
    g = ez.grad(sqrt_if_positive)(V)
    np.testing.assert_allclose(g, np.where(V > 0, 0.5 / np.sqrt(np.abs(V)), 0.0), rtol=1e-12)


# --- comprehensions, local functions, keywords and defaults ---------------------------------


def comprehension_sum(x):
    return sum(x[i] * x[i + 1] for i in range(len(x) - 1) if x[i] > -0.5)


def comprehension_array(x):
    v = np.array([x[i] ** 2 for i in range(0, len(x), 2)])
    return np.sum(v)


def rows_generator(X):
    return sum(np.sum(np.tanh(row)) for row in X)


def closure(x, a):
    scale = lambda v: a * v  # noqa: E731

    def act(v, power=2):
        return np.sum(scale(v) ** power)

    return act(x) + act(x[::-1], power=3)


def _huber(r, delta=1.0):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))


def keywords(x, delta=0.5):
    return np.sum(_huber(x, delta=delta)) + np.sum(_huber(x))


@pytest.mark.parametrize("f,args", [(comprehension_sum, (V,)), (comprehension_array, (V,)),
                                    (rows_generator, (M,)), (closure, (V, 0.7)),
                                    (keywords, (V,)), (keywords, (V, 0.2))])
def test_python_conveniences(f, args):
    _same(f, *args)
    check_grad(f, *args, argnums=tuple(i for i, a in enumerate(args)
                                        if isinstance(a, np.ndarray | float)),
               reference=_jax(f))


def test_entry_defaults_and_keywords():
    assert ez.jit(keywords)(V, delta=0.2) == pytest.approx(keywords(V, 0.2))
    np.testing.assert_allclose(ez.grad(keywords)(V, delta=0.2), ez.grad(keywords)(V, 0.2))


def comprehension_of_arrays(X, w):
    rows = np.array([np.tanh(row) * w for row in X])
    return np.sum(np.stack([X[i] * (i + 1) for i in range(3)]) ** 2) + np.sum(rows * X)


def comprehension_of_ragged(X):
    return np.sum(np.stack([X[i, :i + 1] for i in range(3)]))


def comprehension_of_nothing(X, n):
    return np.sum(np.stack([X[i] for i in range(n)]))


def test_comprehensions_of_arrays_stack():
    w = np.linspace(-1.0, 1.0, M.shape[1])
    _same(comprehension_of_arrays, M, w)
    check_grad(comprehension_of_arrays, M, w, argnums=(0, 1),
               reference=_jax(comprehension_of_arrays))
    with pytest.raises(ValueError, match="shapes do not match"):
        ez.jit(comprehension_of_ragged)(M)
    with pytest.raises(ValueError, match="need at least one array"):
        ez.jit(comprehension_of_nothing)(M, 0)


# --- np.squeeze, np.expand_dims -------------------------------------------------------------


def squeeze_column(X):
    col = np.sum(X, axis=1, keepdims=True)
    return np.sum(np.squeeze(col, axis=1) * X[:, 0]) + np.sum(col.squeeze(1))


def expand_then_broadcast(x):
    return np.sum(np.expand_dims(x, 0) * np.expand_dims(x, axis=1))


def squeeze_wrong_axis(X):
    return np.sum(np.squeeze(X, axis=0))


def squeeze_without_axis(X):
    return np.sum(np.squeeze(X))


def test_squeeze_and_expand_dims():
    for f, args in ((squeeze_column, (M,)), (expand_then_broadcast, (V,))):
        _same(f, *args)
        check_grad(f, *args, reference=_jax(f))
    with pytest.raises(ValueError, match="shapes do not match"):
        ez.jit(squeeze_wrong_axis)(M)
    with pytest.raises(FrontendError, match="squeeze without axis"):
        ez.jit(squeeze_without_axis)(M)


def positional_dtypes(x):
    a = np.zeros(3, float)
    b = np.ones((2, 2), np.float32)
    c = np.full(3, 2, np.float64)
    return np.sum(a + x[:3]) + np.sum(b) + np.sum(c * x[:3])


def test_constructor_dtype_given_positionally():
    _same(positional_dtypes, V)
    check_grad(positional_dtypes, V, reference=_jax(positional_dtypes))


# --- a shared variable rebound inside a loop (array_vars._loop_slot) -----------------------


def view_before_the_loop(x):
    tmp = x * 2.0
    view = tmp[1:]  # reads the first buffer, kept until the exit
    for i in range(3):
        tmp = np.tanh(tmp + x * (i + 1.0))
    return np.sum(view) + np.sum(tmp)


def view_after_the_loop(x):
    acc = np.zeros_like(x)
    for i in range(4):
        acc = np.tanh(acc + x * (i + 1.0))
    last = acc[1:]  # reads the loop's last buffer
    return np.sum(last * last)


def views_between_loops(x):
    acc = np.zeros_like(x)
    for i in range(3):
        acc = acc + x * (i + 1.0)
    first = acc[::-1]  # the first loop's last buffer must outlive the second loop
    for _ in range(2):
        acc = np.sin(acc) * x
    return np.sum(first * acc) + np.sum(first)


def rows_after_nested_loops(x):
    acc = np.ones((3, 4))
    for _ in range(2):
        for j in range(2):
            acc = acc * 0.5 + x[j]
    out = 0.0
    for row in acc:  # a view of the last buffer, after the loops
        out += np.sum(row * row)
    return out


@pytest.mark.parametrize("f", [view_before_the_loop, view_after_the_loop, views_between_loops,
                               rows_after_nested_loops])
def test_shared_variable_rebound_in_a_loop(f):
    """A variable that another array views may take new arrays inside a loop in which no
    view of it is taken: each iteration frees the buffer of the one before (the view, taken
    before or after the loop, reads a buffer that stays until the exit)."""
    x = RNG.uniform(-1.0, 1.0, 4)
    assert ez.jit(f)(x) == pytest.approx(f(x), rel=1e-13)
    check_grad(f, x)


def halving_steps(x, n):
    acc = np.zeros_like(x)
    for _ in range(n):
        acc = acc * 0.5 + x
    tail = acc[1:]
    return np.sum(tail)


def test_shared_variable_loop_buffers_are_freed():
    """1000 iterations binding a 0.8 MB array to a variable viewed after the loop: each
    iteration frees the previous one (1000 buffers would be 800 MB)."""
    code = textwrap.dedent("""
        import numpy as np, resource, enzyme_py as ez
        from tests.frontend.test_array_core import halving_steps
        g = ez.jit(halving_steps)
        x = np.ones(100_000)
        g(x, 10)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        g(x, 1000)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(after - before)
    """)
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, check=True)
    assert int(r.stdout.strip()) < 50_000  # KiB
