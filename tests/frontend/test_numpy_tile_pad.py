"""np.tile, np.repeat and np.pad: values as NumPy's, gradients as JAX's (of the same source run
on jax.numpy), on contiguous, strided and transposed inputs; the forms not supported are a
`FrontendError` naming the call."""

from __future__ import annotations

import numpy as np
import pytest

import enzyme_py as ez
from tests.frontend.against_numpy_and_jax import check, refused

RNG = np.random.default_rng(11)
x = RNG.standard_normal(7)
X = RNG.standard_normal((3, 4))
Q = RNG.standard_normal((2, 3, 4))
W = RNG.standard_normal((4, 3))  # W.T has X's shape, with strides (1, 3)


def weighted(y):
    """A loss that tells every element of `y` apart (its gradient differs per position)."""
    return np.sum(np.sin(y) * np.arange(1, y.size + 1).reshape(y.shape))


# --- np.tile ----------------------------------------------------------------------------------


def tile_int(a):
    return weighted(np.tile(a, 3))


def tile_tuple(a):
    return weighted(np.tile(a, (2, 1, 3)))  # promotes a 1-D or 2-D a to 3-D


def tile_short(a):
    return weighted(np.tile(a, (2,)))  # reps prepended with 1s for an N-D a


def tile_constant(a):
    return weighted(np.tile(a, [2, 3])) + np.sum(np.tile(np.exp(a), reps=1) ** 2)


def tile_run_time(a, n):
    return weighted(np.tile(a * 2.0, n))


@pytest.mark.parametrize("f, a", [
    (tile_int, x), (tile_int, x[::-2]), (tile_int, X), (tile_int, W.T), (tile_int, Q),
    (tile_tuple, x), (tile_tuple, X), (tile_tuple, W.T), (tile_short, X), (tile_short, Q),
    (tile_constant, x), (tile_constant, W.T),
], ids=lambda v: getattr(v, "__name__", None))
def test_tile_values_and_gradients(f, a) -> None:
    check(f, a)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_tile_by_a_run_time_count(n) -> None:
    check(tile_run_time, X, n)
    check(tile_run_time, x[::2], n)


def tiled(a, n):
    return np.tile(a, n)


def tiled_3d(a):
    return np.tile(a, (2, 1, 2))


def test_tile_results_are_numpy_s() -> None:
    for a, n in ((X, 0), (X, 2), (W.T, 3), (x[:0], 4)):
        got = ez.jit(tiled)(a, n)
        np.testing.assert_array_equal(got, np.tile(a, n))
    np.testing.assert_array_equal(ez.jit(tiled_3d)(W.T), np.tile(W.T, (2, 1, 2)))
    ints = np.arange(6).reshape(2, 3)
    got = ez.jit(tiled_3d)(ints)
    assert got.dtype == ints.dtype
    np.testing.assert_array_equal(got, np.tile(ints, (2, 1, 2)))


def tile_store(u):
    u[:] = np.tile(u[:2], 3)  # reads u's own memory at other indexes
    return u


def test_storing_a_tile_into_the_memory_it_reads_reads_the_old_values() -> None:
    u = np.arange(6.0) ** 2
    np.testing.assert_array_equal(ez.jit(tile_store)(u.copy()), tile_store(u.copy()))


def tile_negative(a):
    return np.sum(np.tile(a, (2, -1)))


def tile_float(a):
    return np.sum(np.tile(a, 1.5))


def tile_number(a):
    return np.sum(np.tile(2.0, 3)) + np.sum(a)


def test_tile_forms_not_supported_are_errors_naming_np_tile() -> None:
    refused(tile_negative, X, match=r"np.tile: reps must not be negative, got \(2, -1\)")
    refused(tile_float, X, match="np.tile: the count must be an integer")
    refused(tile_number, X, match="np.tile of float is not supported")


def test_tile_by_a_negative_run_time_count_is_numpy_s_value_error() -> None:
    with pytest.raises(ValueError, match="negative"):
        ez.jit(tiled)(X, -1)


# --- np.repeat --------------------------------------------------------------------------------


def repeat_flat(a, n):
    return weighted(np.repeat(a, n))


def repeat_axes(a, n):
    return (weighted(np.repeat(a, n, axis=0)) + weighted(np.repeat(a, n, axis=-1))
            + np.sum(np.repeat(np.cos(a), 2, axis=None) ** 2))


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("a", [x, x[::-2], X, W.T, Q, Q[:, ::-1, ::2]],
                         ids=["x", "x_strided", "X", "W.T", "Q", "Q_strided"])
def test_repeat_values_and_gradients(a, n) -> None:
    check(repeat_flat, a, n)
    check(repeat_axes, a, n)


def repeated(a, n):
    return np.repeat(a, n)


def repeated_axis(a, n):
    return np.repeat(a, n, axis=1)


def repeated_keywords(a):
    return np.repeat(a, repeats=2, axis=0)


def repeated_method(a, n):
    return a.repeat(n) + np.sum(a.repeat(n, axis=-1))


def test_repeat_results_are_numpy_s() -> None:
    for a, n in ((X, 0), (X, 2), (W.T, 3), (Q, 2), (x[:0], 3)):
        np.testing.assert_array_equal(ez.jit(repeated)(a, n), np.repeat(a, n))
        np.testing.assert_array_equal(ez.jit(repeated_axis)(np.atleast_2d(a), n),
                                      np.repeat(np.atleast_2d(a), n, axis=1))
    np.testing.assert_array_equal(ez.jit(repeated_keywords)(W.T), np.repeat(W.T, 2, axis=0))
    np.testing.assert_allclose(ez.jit(repeated_method)(W.T, 2), repeated_method(W.T, 2),
                               rtol=1e-12, atol=1e-12)
    ints = np.arange(6, dtype=np.int32).reshape(3, 2)
    got = ez.jit(repeated_axis)(ints, 2)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.repeat(ints, 2, axis=1))


def test_repeat_by_a_negative_count_is_numpy_s_value_error() -> None:
    with pytest.raises(ValueError, match="negative"):
        ez.jit(repeated)(X, -2)


def repeat_per_element(a):
    return np.sum(np.repeat(a, [1, 2, 3], axis=0))


def repeat_array_counts(a, k):
    return np.sum(np.repeat(a, k))


def repeat_float(a):
    return np.sum(np.repeat(a, 2.0))


def repeat_bad_axis(a):
    return np.sum(np.repeat(a, 2, axis=2))


def repeat_tuple_axis(a):
    return np.sum(np.repeat(a, 2, axis=(0, 1)))


def test_repeat_forms_not_supported_are_errors_naming_np_repeat() -> None:
    refused(repeat_per_element, X,
            match="np.repeat with a count per element is not supported")
    refused(repeat_array_counts, x, np.arange(7),
            match="np.repeat with an array or tuple of counts is not supported")
    refused(repeat_float, X, match="np.repeat: the count must be an integer")
    refused(repeat_bad_axis, X, match="np.repeat: axis 2 is out of bounds for an array of dimension 2")
    refused(repeat_tuple_axis, X, match="np.repeat along a tuple of axes is not supported")


# --- np.pad -----------------------------------------------------------------------------------


def pad_int(a):
    return weighted(np.pad(a, 2))


def pad_pair(a):
    return weighted(np.pad(a, (1, 3), constant_values=-0.5))


def pad_lazy(a):
    return weighted(np.pad(np.tanh(a), (1, 2), "constant", constant_values=1.5))


def pad_edge(a):
    return weighted(np.pad(a, (2, 3), mode="edge"))


def pad_wrap(a):
    return weighted(np.pad(a, (4, 9), mode="wrap"))  # wider than the axes: wraps again


def pad_mixed(a):
    return weighted(np.pad(a, ((0, 2),), mode="edge")) + weighted(np.pad(a, (1,), "wrap"))


@pytest.mark.parametrize("f", [pad_int, pad_pair, pad_lazy, pad_edge, pad_wrap,
                               pad_mixed],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("a", [x, x[::-2], X, W.T, Q[:, ::-1]],
                         ids=["x", "x_strided", "X", "W.T", "Q_strided"])
def test_pad_values_and_gradients(f, a) -> None:
    check(f, a)


def pad_axes_tuple(a):
    return weighted(np.pad(a, ((1, 2), (3, 0)))) + weighted(np.pad(a, ((2, 1), (0, 1)),
                                                                   mode="wrap"))


def test_pad_with_one_pair_per_axis() -> None:
    check(pad_axes_tuple, X)
    check(pad_axes_tuple, W.T)


def pad_run_time_constant(a, v):
    return weighted(np.pad(a, ((1, 2), (2, 1)), constant_values=v))


def test_pad_gradient_of_a_run_time_constant_sums_the_padding() -> None:
    check(pad_run_time_constant, X, 0.75, argnums=(0, 1))


def padded(a):
    return np.pad(a, ((1, 2), (0, 3)), constant_values=7)


def padded_edge(a):
    return np.pad(a, (3, 1), "edge")


def padded_wrap(a):
    return np.pad(a, 5, mode="wrap")


def test_pad_results_are_numpy_s() -> None:
    ints = np.arange(12, dtype=np.int64).reshape(3, 4)
    for f in (padded, padded_edge, padded_wrap):
        for a in (X, W.T, ints, ints.T.astype(np.float32)):
            got = ez.jit(f)(a)
            assert got.dtype == a.dtype
            np.testing.assert_array_equal(got, f(a))
    np.testing.assert_array_equal(ez.jit(padded)(X[:0]), padded(X[:0]))


def test_pad_of_an_empty_axis_by_edge_or_wrap_is_an_error_as_numpy_s() -> None:
    with pytest.raises(ValueError):
        padded_wrap(X[:0])
    with pytest.raises(ValueError, match="can't extend empty axis 0 using modes other than"):
        ez.jit(padded_wrap)(X[:0])
    with pytest.raises(ValueError, match="can't extend empty axis 0 using modes other than"):
        ez.jit(padded_edge)(x[:0])


def pad_reflect(a):
    return np.sum(np.pad(a, 1, mode="reflect"))


def pad_run_time_width(a, n):
    return np.sum(np.pad(a, n))


def pad_negative(a):
    return np.sum(np.pad(a, (1, -1)))


def pad_too_many(a):
    return np.sum(np.pad(a, ((1, 1), (1, 1), (1, 1))))


def pad_values_per_side(a):
    return np.sum(np.pad(a, 1, constant_values=(0.0, 1.0)))


def pad_edge_values(a):
    return np.sum(np.pad(a, 1, mode="edge", constant_values=1.0))


def test_pad_forms_not_supported_are_errors_naming_np_pad() -> None:
    refused(pad_reflect, X, match=r"np.pad with mode='reflect' is not supported(.|\n)*"
                                  "'constant', 'edge', 'wrap'")
    refused(pad_run_time_width, X, 1, match="np.pad: pad_width must be a compile-time")
    refused(pad_negative, X, match=r"np.pad: pad_width must not be negative")
    refused(pad_too_many, X, match="does not fit a 2-D array")
    refused(pad_values_per_side, X, match="constant_values per axis or side is not supported")
    refused(pad_edge_values, X, match="constant_values is not an option of mode='edge'")
