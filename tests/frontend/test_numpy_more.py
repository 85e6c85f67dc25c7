"""np.flip, np.roll, np.logaddexp, np.diag and `a.reshape(b.shape)`: values as NumPy's,
gradients as JAX's (of the same source run on jax.numpy), on contiguous and strided inputs;
the forms not supported are a `FrontendError` naming the call."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError
from tests.frontend.against_numpy_and_jax import check, refused

RNG = np.random.default_rng(7)
x = RNG.standard_normal(7)
X = RNG.standard_normal((3, 4))
Q = RNG.standard_normal((2, 3, 4))
W = RNG.standard_normal((4, 3))  # W.T has X's shape, with strides (1, 3)


# --- np.flip ----------------------------------------------------------------------------------


def flip_all(a):
    return np.sum(np.flip(a) * np.arange(a.size).reshape(a.shape) ** 2)


def flip_rows(a):
    return np.sum(np.flip(a, 0)[0] * a[0] ** 2) + np.sum(np.flip(a, axis=-1)[:, 0] ** 3)


def flip_tuple(a):
    return np.sum(np.flip(a, (0, -1)) * np.sin(a)) + np.sum(np.flip(a, None)[0] ** 2)


def flip_lazy(a):
    return np.sum(np.flip(np.exp(a), 0)[0] * np.arange(1, a.shape[-1] + 1))


@pytest.mark.parametrize("f, a", [
    (flip_all, x), (flip_all, x[::2]), (flip_all, X), (flip_all, W.T), (flip_all, Q),
    (flip_rows, X), (flip_rows, W.T), (flip_rows, Q[:, ::-1]),
    (flip_tuple, X), (flip_tuple, W.T), (flip_tuple, Q),
    (flip_lazy, x), (flip_lazy, X),
], ids=lambda v: getattr(v, "__name__", None))
def test_flip_values_and_gradients(f, a) -> None:
    check(f, a)


def write_through_flip(a):
    y = np.flip(a)
    y[0] = 10.0  # a view: a's last element
    return a


def test_flip_is_a_view_of_the_same_memory() -> None:
    got = ez.jit(write_through_flip)(np.arange(5.0))
    np.testing.assert_array_equal(got, write_through_flip(np.arange(5.0)))
    assert got[-1] == 10.0


def flip_store(u):
    u[:] = np.flip(u)
    return u


def test_storing_a_flip_into_its_own_memory_reads_the_old_values() -> None:
    np.testing.assert_array_equal(ez.jit(flip_store)(np.arange(6.0)), np.arange(6.0)[::-1])


def flip_out_of_bounds(a):
    return np.sum(np.flip(a, 2))


def flip_repeated(a):
    return np.sum(np.flip(a, (1, -1)))


def test_flip_axes_numpy_rejects_are_errors_naming_np_flip() -> None:
    refused(flip_out_of_bounds, X, match="np.flip: axis 2 is out of bounds for an array of dimension 2")
    refused(flip_repeated, X, match="np.flip: duplicate value in .axis.")


# --- np.roll ----------------------------------------------------------------------------------


def stencil(u, s):
    lap = np.roll(u, s) - 2 * u + np.roll(u, -s)  # (0 for a shift of 0 or of the extent)
    return np.sum((lap + 0.5 * np.roll(u, -s)) ** 2 * np.arange(1, u.shape[0] + 1))


def rolled_weighted(u, s):
    return np.sum(np.roll(u, s) * np.arange(u.shape[0]) ** 2)


SHIFTS = [0, 1, -1, 3, -3, 7, -7, 10, -16, 23]


@pytest.mark.parametrize("s", SHIFTS)
def test_roll_of_a_vector_matches_numpy_for_every_shift(s) -> None:
    for a in (x, x[::2], x[::-1]):
        check(rolled_weighted, a, s)
        check(stencil, a, s)


def periodic_heat(u, k, s):
    for _ in range(4):
        u = u + k * (np.roll(u, s) - 2 * u + np.roll(u, -s))
    return np.sum(u ** 3)


def test_a_periodic_stencil_loop_is_differentiated_as_jax_does() -> None:
    check(periodic_heat, x, 0.2, 1, argnums=(0, 1))
    check(periodic_heat, x[::2], 0.2, -5, argnums=(0, 1))


def roll_axes(a, s):
    w = np.arange(a.size).reshape(a.shape)
    return (np.sum(np.roll(a, s, axis=0) * w) + np.sum(np.roll(a, s, axis=-1) * w ** 2)
            + np.sum(np.roll(a, -s, 1) ** 3))


def roll_flat(a, s):
    return np.sum(np.roll(a, s) * np.arange(a.size).reshape(a.shape) ** 2)


def roll_flat_none(a, s):
    return np.sum(np.roll(a, s, axis=None) * np.cos(a)) + np.sum(np.roll(a, s, None)[0] ** 2)


@pytest.mark.parametrize("s", [0, 1, -2, 5, -13, 29])
@pytest.mark.parametrize("a", [X, W.T], ids=["contiguous", "transposed"])
def test_roll_of_a_matrix_along_an_axis_and_flattened(a, s) -> None:
    check(roll_axes, a, s)
    check(roll_flat, a, s)
    check(roll_flat_none, a, s)


def test_roll_of_a_3d_array_flattened_and_along_the_middle_axis() -> None:
    for s in (0, 5, -7, 50):
        check(roll_flat, Q, s)
        check(roll_flat, Q[:, ::-1, ::2], s)
        check(roll_axes, Q.transpose(2, 0, 1), s)


def roll_lazy(a, s):
    return np.sum(np.roll(np.sin(a) * 2.0, s) * np.arange(a.shape[0]))


def test_roll_of_an_expression() -> None:
    check(roll_lazy, x, 4)
    check(roll_lazy, x[::-2], -9)


def roll_empty(a, s):
    return np.sum(np.roll(a[:0], s)) + np.sum(np.roll(a, s) * a)


def test_roll_of_an_empty_array_is_empty_for_any_shift() -> None:
    for s in (0, 3, -3):
        assert ez.jit(roll_empty)(x, s) == pytest.approx(roll_empty(x, s), rel=1e-14)


def roll_store(u, s):
    u[:] = np.roll(u, s)
    return u


def roll_update(u, s):
    u += np.roll(u, s)
    return u


def roll_stencil_store(u, s):
    u[1:-1] = np.roll(u[:-2], s) + u[2:]  # reads u's own memory at other indexes
    return u


@pytest.mark.parametrize("f", [roll_store, roll_update, roll_stencil_store])
@pytest.mark.parametrize("s", [1, -2, 9])
def test_storing_a_roll_into_the_memory_it_reads_reads_the_old_values(f, s) -> None:
    u = np.arange(8.0) ** 2
    np.testing.assert_array_equal(ez.jit(f)(u.copy(), s), f(u.copy(), s))


def roll_tuple_shift(a, s):
    return np.sum(np.roll(a, (s, 1), axis=(0, 1)))


def roll_tuple_axis(a, s):
    return np.sum(np.roll(a, s, axis=(0, 1)))


def roll_float_shift(a):
    return np.sum(np.roll(a, 1.5))


def roll_bad_axis(a, s):
    return np.sum(np.roll(a, s, axis=2))


def test_roll_forms_not_supported_are_errors_naming_np_roll() -> None:
    refused(roll_tuple_shift, X, 1, match="np.roll with a tuple of shifts is not supported")
    refused(roll_tuple_axis, X, 1, match="np.roll along a tuple of axes is not supported")
    refused(roll_float_shift, X, match="np.roll: the shift must be an integer")
    refused(roll_bad_axis, X, 1, match="np.roll: axis 2 is out of bounds for an array of dimension 2")


# --- np.logaddexp -----------------------------------------------------------------------------


def lae(a, b):
    return np.sum(np.logaddexp(a, b) * np.arange(1, a.shape[-1] + 1))


def lae_elements(a, b):
    return np.logaddexp(a, b)


def test_logaddexp_values_and_gradients() -> None:
    y = RNG.standard_normal(7)
    check(lae, x, y, argnums=(0, 1))
    check(lae, x[::-1], y, argnums=(0, 1))
    check(lae, X, x[:4], argnums=(0, 1))  # broadcasting a row
    check(lae, W.T, X[:, :1], argnums=(0, 1))  # a transposed matrix and a column


def test_logaddexp_is_numpy_s_at_ties_infinities_and_large_values() -> None:
    a = np.array([0.3, 1000.0, -1000.0, -np.inf, -np.inf, 2.0, np.inf, np.inf, -5.0, 700.0])
    b = np.array([0.3, 1000.0, -1000.5, -np.inf, 1.5, -np.inf, 1.0, np.inf, 30.0, -700.0])
    got = ez.jit(lae_elements)(a, b)
    np.testing.assert_array_equal(got, np.logaddexp(a, b))
    assert got[0] == 0.3 + np.log(2.0) and got[1] == 1000.0 + np.log(2.0)


def lae_sum(a, b):
    return np.sum(np.logaddexp(a, b))


def test_logaddexp_gradient_is_one_half_at_ties_and_finite_at_minus_infinity() -> None:
    a = np.array([0.3, -2.0, -np.inf, 4.0, -np.inf, 1e300])
    b = np.array([0.3, -2.0, 1.5, -np.inf, -np.inf, 1e300])
    ga, gb = ez.grad(lae_sum, argnums=(0, 1))(a, b)
    np.testing.assert_array_equal(ga, [0.5, 0.5, 0.0, 1.0, 0.5, 0.5])
    np.testing.assert_array_equal(gb, [0.5, 0.5, 1.0, 0.0, 0.5, 0.5])
    with jax.enable_x64(True):
        ja, jb = jax.grad(lambda p, q: jnp.sum(jnp.logaddexp(p, q)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga[:4], np.asarray(ja)[:4], rtol=1e-15)  # NumPy's value finite
    np.testing.assert_allclose(gb[:4], np.asarray(jb)[:4], rtol=1e-15)


def lae_scalars(a):
    return np.logaddexp(a[0], 2.0) + np.logaddexp(a[1], a[1])


def test_logaddexp_of_numbers() -> None:
    check(lae_scalars, x)


def test_logaddexp_keeps_float32() -> None:
    a, b = x.astype(np.float32), x[::-1].astype(np.float32)
    got = ez.jit(lae_elements)(a, b)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.logaddexp(a, b), rtol=1e-6)


def lae_three(a):
    return np.sum(np.logaddexp(a, a, a))


def test_logaddexp_takes_two_arguments() -> None:
    refused(lae_three, x, match="np.logaddexp takes 2 arguments")


# --- np.diag ----------------------------------------------------------------------------------


def diag_of_vector(v):
    n = v.shape[0]
    w = np.arange((n + 2) ** 2).reshape(n + 2, n + 2)
    return (np.sum(np.diag(v) * w[:n, :n]) + np.sum(np.diag(v, 2) * w) ** 2
            + np.sum(np.diag(v, k=-1) * np.sin(w[1:, 1:])))


def diag_of_expression(v):
    return np.sum(np.diag(np.exp(v)) @ np.diag(v * 2.0, 1)[:-1, 1:])


def diag_of_matrix(m):
    return (np.sum(np.diag(m) ** 3) + np.sum(np.diag(m, 1) * np.arange(3))
            + np.sum(np.diag(m, -2) ** 2) + np.sum(np.diag(m, k=7)))


@pytest.mark.parametrize("f, a", [
    (diag_of_vector, x), (diag_of_vector, x[::2]), (diag_of_vector, x[::-3]),
    (diag_of_expression, x), (diag_of_expression, x[1::2]),
    (diag_of_matrix, X), (diag_of_matrix, W.T), (diag_of_matrix, W[::-1].T),
], ids=lambda v: getattr(v, "__name__", None))
def test_diag_values_and_gradients(f, a) -> None:
    check(f, a)


def diag_matrix(v):
    return np.diag(v, -2)


def diagonal_view(m):
    return np.diag(m, 1)


def test_diag_results_are_numpy_s() -> None:
    np.testing.assert_array_equal(ez.jit(diag_matrix)(x[::2]), np.diag(x[::2], -2))
    for m in (X, W.T, W[::-1]):
        np.testing.assert_array_equal(ez.jit(diagonal_view)(m), np.diag(m, 1))


def diag_3d(a):
    return np.sum(np.diag(a))


def diag_runtime_k(m, k):
    return np.sum(np.diag(m, k))


def test_diag_of_other_ranks_and_run_time_offsets_are_errors() -> None:
    refused(diag_3d, Q, match="np.diag of a 3-D array is not supported")
    refused(diag_runtime_k, X, 1, match="compile-time constant")


# --- reshape to another array's shape ---------------------------------------------------------


def reshaped_like(a, b):
    return np.sum(a.reshape(b.shape) * b) + np.sum(np.reshape(a, b.shape)[1] ** 2)


def reshaped_keyword(a, b):
    return np.sum(np.reshape(a, shape=b.shape) * np.exp(b))


def test_reshape_to_the_shape_of_another_array() -> None:
    check(reshaped_like, np.arange(12.0) / 5, X, argnums=(0, 1))
    check(reshaped_like, X, Q[0].T, argnums=(0, 1))  # b transposed: only its shape matters
    check(reshaped_like, np.arange(24.0) / 7, Q, argnums=(0, 1))
    check(reshaped_keyword, np.arange(12.0) / 5, W.T)


def test_reshape_to_another_shape_checks_sizes_and_layout() -> None:
    with pytest.raises(ValueError):
        ez.jit(reshaped_like)(np.arange(10.0), X)
    with pytest.raises(ValueError):
        ez.jit(reshaped_like)(W.T, X)  # (not C-contiguous: NumPy would copy)


# --- np.moveaxis and np.tensordot (constant axes) -----------------------------------------------


def move_first_last(a):
    return np.sum(np.moveaxis(a, 0, -1) * np.arange(a.size).reshape(a.shape[1], a.shape[2],
                                                                     a.shape[0]))


def move_two(a):
    return np.sum(np.sin(np.moveaxis(a, (0, 1), (-1, -2)))[0] * 2.0)


def contract_last_two(a, b):
    return np.sum(np.tensordot(a, b) ** 2)


def contract_one(a, b):
    return np.sum(np.tanh(np.tensordot(a, b, axes=1)))


def contract_listed(a, b):
    return np.sum(np.tensordot(a, b, axes=([2, 0], [0, 2])) * 0.5)


def outer_by_tensordot(a, b):
    return np.sum(np.tensordot(a, b, axes=0) ** 3)


B34 = RNG.standard_normal((3, 4))
R42 = RNG.standard_normal((4, 5, 2))


@pytest.mark.parametrize("f, args", [
    (move_first_last, (Q,)), (move_first_last, (Q[:, ::-1],)), (move_two, (Q,)),
    (contract_last_two, (Q, B34)), (contract_one, (Q, R42)), (contract_one, (X, x[:4])),
    (contract_listed, (Q, R42)), (outer_by_tensordot, (x, X)),
], ids=lambda v: getattr(v, "__name__", None))
def test_moveaxis_and_tensordot_values_and_gradients(f, args) -> None:
    check(f, *args, argnums=tuple(range(len(args))))


def write_through_moved(a):
    u = a.copy()
    y = np.moveaxis(u, 0, -1)
    y[1, 2, 0] = 7.0  # a view: u[0, 1, 2]
    return u


def test_moveaxis_is_a_view_and_tensordot_a_new_array() -> None:
    got = ez.jit(write_through_moved)(Q)
    np.testing.assert_array_equal(got, write_through_moved(Q))
    assert got[0, 1, 2] == 7.0
    np.testing.assert_allclose(ez.jit(tensordot_pair)(Q, R42), tensordot_pair(Q, R42),
                               rtol=1e-14)  # (NumPy sums by BLAS, in its own order)


def tensordot_pair(a, b):
    return np.tensordot(a, b, axes=([2, 0], [0, 2]))


def bad_move(a):
    return np.moveaxis(a, 3, 0)


def repeated_move(a):
    return np.moveaxis(a, (0, 0), (1, 2))


def bad_axes(a, b):
    return np.tensordot(a, b, axes=([0, 1], [0]))


def too_many_axes(a, b):
    return np.tensordot(a, b, axes=3)


def mismatched_extents(a, b):
    return np.tensordot(a, b, axes=1)


def test_moveaxis_and_tensordot_errors_name_the_call() -> None:
    refused(bad_move, Q, match="np.moveaxis: source axis 3 is out of bounds")
    refused(repeated_move, Q, match="repeated axis in `source`")
    refused(bad_axes, Q, R42, match="shape-mismatch for sum")
    refused(too_many_axes, X, B34, match="axes=3 for arrays of dimensions 2 and 2")
    with pytest.raises((ValueError, FrontendError)):
        ez.jit(mismatched_extents)(X, X)  # (4 against 3: NumPy's ValueError too)
