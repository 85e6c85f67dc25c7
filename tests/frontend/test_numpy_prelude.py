"""NumPy functions compiled from Python stand-ins (`frontend/numpy_prelude.py`): values as
NumPy's, gradients as JAX's, a keyword the stand-in lacks refused by name, and kept by the
persistent cache like any call."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError


def differences(x, X):
    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(X) * X[:, 1:])


def spreads(x):
    return np.ptp(x) * np.count_nonzero(x > 0.5)


def triangles(X):
    return np.sum(np.tril(X) * X) + np.sum(np.triu(X, 1) ** 2) + np.sum(np.tril(X, -1))


def flips(X):
    return np.sum(np.flipud(X) * X) + np.sum(np.fliplr(X) * X * 0.5)


def ufunc_names(x, y):
    picked = np.where(np.logical_or(x > 0.5, y < 0), np.multiply(x, y), np.add(x, -y))
    return (np.sum(picked) + np.sum(np.reciprocal(x + 2.0)) + np.sum(np.divide(x, y + 3.0))
            + np.sum(np.negative(x)) + np.sum(np.subtract(x, y) ** 2)
            + np.sum(np.logical_not(x > 0.5) * y) + np.sum(np.logical_xor(x > 0.5, y > 0) * x)
            + np.sum(np.logical_and(x, y) * x))


def nan_aware(u, v):
    return np.nansum(u * v) + np.nanmean(u) * 2.0 + np.sum(np.isnan(u) * v)


def infinite_parts(w, v):
    return np.sum(np.where(np.isfinite(w), w, 0.0) ** 2 * v) + np.sum(np.isinf(w) * v)


def angles_and_steps(x, y):
    return (np.sum(np.deg2rad(x) * y) + np.sum(np.degrees(x) * y) + np.sum(np.radians(y))
            + np.sum(np.rad2deg(x) ** 2) + np.sum(np.mod(x, 0.3) * y)
            + np.sum(np.remainder(y, x + 2.0)) + np.sum(np.heaviside(x - 0.5, y) * x)
            + np.sum(np.heaviside(np.floor(x * 2.0), y)) + np.sum(np.rint(x * 3.0) * y)
            + np.sum(np.round(x * 10.0) * y) + np.sum(np.around(y, 2) * x))


def comparisons_and_polynomials(x, y):
    close = np.isclose(x, x + 1e-9) & np.isclose(x, y, rtol=0.5, atol=0.1)
    same = 2.0 if np.allclose(x, x * (1.0 + 1e-12)) else 1.0
    return (np.sum(np.where(close, x, y)) * same + np.sum(np.logaddexp2(x, y))
            + np.polyval(y, x[0]) + np.sum(np.polyval(y[:3], x)))


def nan_extremes(u, v):
    return np.nanmax(u * v) - np.nanmin(u) + np.nanmax(v)


def order_statistics(x, w):
    return (np.sum(np.sort(x) * w) + np.percentile(x, 30.0) + np.sum(x[np.argsort(w)] * w)
            + np.median(x[1:]) * 2.0)  # (an even count: the mean of the middle two)


def integrals(y, x, Y):
    return (np.trapezoid(y) + np.trapezoid(y, dx=0.5) + np.trapezoid(y, x)
            + np.sum(np.trapezoid(Y, x) * np.trapezoid(Y)))


def products(a, b, A, M):
    return (np.sum(np.cross(a, b) ** 2) + np.sum(np.cross(A, b) * A)
            + np.sum(np.kron(a, b) ** 2) + np.sum(np.kron(M, M.T) * 0.5)
            + np.take(a, 2) + np.sum(np.take(M, np.array([0, 5, -1])) ** 2))


def averages(x, y, X):
    return np.average(x) + np.average(x, weights=y * y + 0.1) + np.average(X, None) \
        + np.average(X, weights=X * X)


KNOTS, HEIGHTS = np.array([0.0, 0.5, 1.2, 2.0, 3.5]), np.array([1.0, -0.5, 2.0, 2.5, 0.0])


def interpolated(x, xp, fp):
    return (np.sum(np.interp(x, xp, fp) ** 2) + np.interp(0.7, xp, fp)
            + np.sum(np.interp(x.reshape(5, 1), xp, fp, left=-1.0, right=2.0)))


def more_numpy(x, y, X):
    return (np.sum(np.diff(x, n=2) ** 2) + np.sum(np.diff(X, 3)) + np.sum(np.diff(x, n=0))
            + np.sum(np.signbit(y) * x) + np.sum(np.float_power(x, 2.0))
            + np.float_power(2.0, y[0]) + np.sum(np.float_power(x, y))
            + np.sum(np.logspace(0.0, 1.0, 5) * x[0]) + np.sum(np.logspace(x[1], 2.0, 4, base=2.0))
            + np.sum(np.atleast_2d(x[:5]) @ np.atleast_2d(X).T) + np.sum(np.atleast_1d(x[0]))
            + np.sum(np.atleast_1d(y) * x) + np.sum(x[np.searchsorted(np.sort(y), y[:3])]))


def _run_with(f, module, *args):
    """`f`'s source run with `np` bound to `module` (jax.numpy for the reference)."""
    g = f.__globals__.copy()
    g["np"] = module
    return type(f)(f.__code__, g)(*args)


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5))
x, y = RNG.uniform(0.1, 1.0, 7), RNG.standard_normal(7)
SQ = RNG.standard_normal((4, 4))
CASES = [(differences, (x, X), (0, 1)), (spreads, (x,), (0,)), (triangles, (X,), (0,)),
         (flips, (SQ,), (0,)), (ufunc_names, (x, y), (0, 1)),
         (nan_aware, (np.where(y > 0.5, np.nan, x), y), (0, 1)),
         (infinite_parts, (np.where(y > 0.5, np.inf, np.where(y < -0.5, -np.inf, x)), y),
          (0, 1)),
         (angles_and_steps, (x, y), (0, 1)), (comparisons_and_polynomials, (x, y), (0, 1)),
         (nan_extremes, (np.where(y > 0.5, np.nan, x), y), (0, 1)),
         (order_statistics, (y, x), (0, 1)),
         (integrals, (y, np.cumsum(x), np.outer(x[:4], y)), (0, 1, 2)),
         (products, (y[:3], x[:3], X[:, :3], X[:2]), (0, 1, 2, 3)),
         (averages, (x, y, X), (0, 1, 2)),
         (interpolated, (np.array([-0.5, 0.5, 1.5, 2.2, 4.0]), KNOTS, HEIGHTS), (0, 1, 2)),
         (more_numpy, (x, y, X), (0, 1, 2))]


@pytest.mark.parametrize("f, args, nums", CASES, ids=[c[0].__name__ for c in CASES])
def test_stand_ins_compute_numpy_s_values_and_jax_s_gradients(f, args, nums) -> None:
    assert ez.jit(f)(*args) == pytest.approx(f(*args), rel=1e-13)
    got = ez.grad(f, argnums=nums)(*args)
    got = got if isinstance(got, tuple) else (got,)
    with jax.enable_x64(True):
        want = jax.grad(lambda *a: _run_with(f, jnp, *a), argnums=nums)(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-14)


def twice_differenced(x):
    return np.sum(np.diff(x, axis=0))


def test_a_keyword_the_stand_in_lacks_is_refused_by_name() -> None:
    with pytest.raises(FrontendError, match="diff\\(\\) got an unexpected keyword argument "
                       "'axis'"):
        ez.jit(twice_differenced)(x)


def test_calls_of_stand_ins_are_cached(tmp_path, monkeypatch) -> None:
    from enzyme_py.stage_times import collecting

    monkeypatch.setenv("ENZYME_PY_CACHE_DIR", str(tmp_path))
    ez.jit(differences, cache=True)(x, X)
    assert len(list(tmp_path.glob("*.pkl"))) == 1
    with collecting() as st:
        assert ez.jit(differences, cache=True)(x, X) == pytest.approx(differences(x, X))
    assert "front end" not in {s.name for s in st}


ROUNDING = np.array([-2.5, -1.5, -0.5, -0.3, -0.0, 0.0, 0.5, 1.5, 2.5, 0.49999999999999994, 3.7,
                     -3.7, 1e300, -1e300, np.inf, -np.inf, np.nan, 4503599627370497.0,
                     2.675, 1234.5678, -55.5, 0.125])


def rounded(a, d):
    return np.round(a, d)


def rounded_to_integers(a):
    return np.rint(a)


@pytest.mark.parametrize("decimals", [0, 1, 2, 3, -1, -2])
def test_round_is_numpy_s_bit_for_bit(decimals) -> None:
    got, want = ez.jit(rounded)(ROUNDING, decimals), np.round(ROUNDING, decimals)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # -0.0 where NumPy's is


def test_rint_halves_go_to_even_and_zeros_keep_their_sign() -> None:
    got = ez.jit(rounded_to_integers)(ROUNDING)
    np.testing.assert_array_equal(got, np.rint(ROUNDING))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(np.rint(ROUNDING)))
    f32 = np.where(np.abs(ROUNDING) > 1e30, np.inf, ROUNDING).astype(np.float32)
    np.testing.assert_array_equal(ez.jit(rounded_to_integers)(f32), np.rint(f32))


def all_nan_extremes(u):
    return np.nanmax(u), np.nanmin(u)


def test_nanmax_of_all_nan_is_nan_and_of_some_is_the_rest_s() -> None:
    mx, mn = ez.jit(all_nan_extremes)(np.array([np.nan, np.nan]))
    assert np.isnan(mx) and np.isnan(mn)
    assert ez.jit(all_nan_extremes)(np.array([np.nan, -3.0, 2.0, np.nan])) == (2.0, -3.0)


def sorted_copy(a):
    return np.sort(a)


def sorting_indices(a):
    return np.argsort(a)


def order_values(a, q):
    return np.median(a), np.quantile(a, q), np.percentile(a, q * 100.0)


# (one compiled function per dtype for all the cases below)
SORTED, INDICES, ORDER_VALUES = ez.jit(sorted_copy), ez.jit(sorting_indices), ez.jit(order_values)


def _orderings():
    rng = np.random.default_rng(3)
    ties = rng.integers(0, 4, 37).astype(float)
    nans = rng.standard_normal(12)
    nans[[2, 5, 11]] = np.nan
    return [rng.standard_normal(n) for n in (0, 1, 2, 3, 8, 33, 100)] + [
        ties, nans, np.array([0.0, -0.0, 1.0, -np.inf, np.inf]),
        rng.standard_normal(9).astype(np.float32), rng.integers(-5, 5, 17)]


@pytest.mark.parametrize("a", _orderings(), ids=lambda a: f"{a.dtype}[{a.size}]")
def test_sort_and_argsort_are_numpy_s_stable_ones(a) -> None:
    got = SORTED(a)
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(got, np.sort(a))  # NaN last, as NumPy's
    np.testing.assert_array_equal(INDICES(a), np.argsort(a, kind="stable"))


@pytest.mark.parametrize("a", [a for a in _orderings() if a.size],
                         ids=lambda a: f"{a.dtype}[{a.size}]")
@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 0.7, 1.0])
def test_median_quantile_and_percentile_are_numpy_s_bit_for_bit(a, q) -> None:
    with np.errstate(invalid="ignore"):  # (inf - inf in NumPy's interpolation: NaN, as ours)
        want = (np.median(a), np.quantile(a, q), np.percentile(a, q * 100.0))
    for g, w in zip(ORDER_VALUES(a, q), want, strict=True):
        assert g == w or (np.isnan(g) and np.isnan(w)), (g, w)


def test_the_median_of_nothing_is_nan() -> None:
    assert np.isnan(ORDER_VALUES(np.zeros(0), 0.5)[0])


def weighted_order(x, w):
    return np.sort(x) * w


def test_sort_in_forward_mode_and_as_a_jacobian_is_a_permutation() -> None:
    x, w = RNG.standard_normal(6), RNG.standard_normal(6)
    order = np.argsort(x)
    jac = ez.jacrev(sorted_copy)(x)
    np.testing.assert_array_equal(jac, np.eye(6)[order])
    np.testing.assert_array_equal(ez.jacfwd(sorted_copy)(x), jac)
    value, tangent = ez.jvp(weighted_order, (x, w), (np.arange(6.0), np.zeros(6)))
    np.testing.assert_array_equal(value, np.sort(x) * w)
    np.testing.assert_array_equal(tangent, order * w)


def sort_rows(X):
    return np.sum(np.sort(X))


def sort_cube(Q):
    return np.sum(np.sort(Q))


def many_quantiles(x, q):
    return np.sum(np.quantile(x, q))


def test_sorting_an_array_of_another_rank_or_many_quantiles_is_refused_at_the_call() -> None:
    with pytest.raises(FrontendError, match="np.sort of a 3-D array is not supported"):
        ez.jit(sort_cube)(np.zeros((2, 3, 4)))
    with pytest.raises(FrontendError, match="np.quantile\\(a, q\\) with an array q"):
        ez.jit(many_quantiles)(x, np.array([0.1, 0.9]))


def kron_of_a_vector_and_a_matrix(v, M):
    return np.sum(np.kron(v, M))


def test_kron_of_arrays_of_different_ranks_is_refused_at_the_call() -> None:
    with pytest.raises(FrontendError, match="np.kron of arrays of ranks 1 and 2"):
        ez.jit(kron_of_a_vector_and_a_matrix)(x, X)


def weighted_mean(a, w):
    return np.average(a, weights=w)


@pytest.mark.parametrize("call", [ez.jit, ez.grad])
def test_average_s_errors_are_numpy_s_at_the_line_of_the_call(call) -> None:
    at = r"\n  at .*test_numpy_prelude.py:\d+: return np.average\(a, weights=w\)$"
    with pytest.raises(ZeroDivisionError, match="^Weights sum to zero, can't be normalized" +
                       at):
        call(weighted_mean)(x, np.zeros_like(x))
    with pytest.raises(TypeError, match="^Axis must be specified when shapes of a and "
                       "weights differ." + at):
        call(weighted_mean)(X, x)  # (ranks differ: the stand-in can only raise)


def interpolate(x, xp, fp):
    return np.interp(x, xp, fp)


def test_interp_is_numpy_s_bit_for_bit_and_its_gradient_at_a_knot_is_jax_s() -> None:
    xs = np.array([-1.0, 0.0, 0.25, 0.5, 1.0, 1.2, 1.9, 2.0, 3.0, 3.5, 4.0, np.inf, -np.inf])
    np.testing.assert_array_equal(ez.jit(interpolate)(xs, KNOTS, HEIGHTS),
                                  np.interp(xs, KNOTS, HEIGHTS))
    assert ez.jit(interpolate)(2.7, KNOTS, HEIGHTS) == np.interp(2.7, KNOTS, HEIGHTS)
    at_knots = np.array([0.5, 1.2, 2.0])  # (the slope of the segment starting there)
    with jax.enable_x64(True):
        want = jax.grad(lambda v: jnp.sum(jnp.interp(v, KNOTS, HEIGHTS)))(at_knots)
    np.testing.assert_allclose(ez.grad(lambda_free_sum)(at_knots, KNOTS, HEIGHTS), want)


def lambda_free_sum(x, xp, fp):
    return np.sum(np.interp(x, xp, fp))


def insertion_points(a, v):
    return np.searchsorted(a, v)


def test_searchsorted_is_numpy_s_nan_last_and_for_numbers_too() -> None:
    a = np.array([0.1, 0.5, 0.5, 2.0, np.nan])
    v = np.array([[0.0, 0.5], [3.0, np.nan]])
    got = ez.jit(insertion_points)(a, v)
    np.testing.assert_array_equal(got, np.searchsorted(a, v))
    assert got.dtype == np.int64
    assert ez.jit(insertion_points)(a, 0.5) == np.searchsorted(a, 0.5)


def sign_bits(x):
    return np.signbit(x)


def test_signbit_reads_the_sign_of_zeros_infinities_and_nan() -> None:
    v = np.array([-0.0, 0.0, -np.inf, np.inf, -np.nan, np.nan, -2.5, 3.0])
    np.testing.assert_array_equal(ez.jit(sign_bits)(v), np.signbit(v))


# --- np.bincount and np.unique ------------------------------------------------------------------


def weighted_bins(x, w):
    return np.sum(np.bincount(x, weights=w, minlength=7) ** 2)


def bin_counts(x):
    return np.bincount(x)


def bin_counts_at_least(x, n):
    return np.bincount(x, minlength=n)


@pytest.mark.parametrize("x", [np.array([1, 3, 3, 0, 5]), np.array([8, 2, 2, 2]),
                               np.array([], dtype=np.int64), np.array([1, 3, 3, 0, 5])[::-2]],
                         ids=["repeats", "past-minlength", "empty", "strided"])
def test_bincount_counts_and_weighs_as_numpy(x) -> None:
    w = RNG.uniform(-1.0, 1.0, x.shape[0])
    got = ez.jit(bin_counts)(x)
    np.testing.assert_array_equal(got, np.bincount(x))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(ez.jit(bin_counts_at_least)(x, 4), np.bincount(x, minlength=4))
    assert ez.jit(weighted_bins)(x, w) == pytest.approx(weighted_bins(x, w), rel=1e-14)
    if x.shape[0]:
        # the weights' cotangent: out's (2 out) gathered at x, as jnp.bincount's
        with jax.enable_x64(True):
            want = jax.grad(lambda w: jnp.sum(jnp.bincount(x, weights=w, length=max(
                7, int(x.max()) + 1)) ** 2))(w)
        np.testing.assert_allclose(ez.grad(weighted_bins, argnums=1)(x, w), want, rtol=1e-13)


def test_bincount_errors_are_numpy_s() -> None:
    with pytest.raises(ValueError, match="must have no negative elements"):
        ez.jit(bin_counts)(np.array([1, -1]))
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        ez.jit(bin_counts_at_least)(np.array([1]), -1)
    with pytest.raises(ValueError, match="don't have the same length"):
        ez.jit(weighted_bins)(np.array([1, 2]), np.ones(3))
    with pytest.raises(FrontendError, match="np.bincount of float values"):
        ez.jit(bin_counts)(np.array([1.0, 2.0]))


def distinct(a):
    return np.unique(a)


def distinct_squares(a):
    return np.sum(np.unique(a) ** 2 * np.arange(1.0, np.unique(a).shape[0] + 1.0))


@pytest.mark.parametrize("a", [
    np.array([3.0, np.nan, 1.0, 3.0, np.nan, -2.0, 1.0]), np.array([[2.0, 1.0], [1.0, 0.0]]),
    np.array([]), np.array([5.0]), np.array([4, 1, 4, 2]), np.array([-0.0, 0.0, 1.0])],
    ids=["nans", "matrix", "empty", "one", "ints", "zeros"])
def test_unique_is_numpy_s(a) -> None:
    got = ez.jit(distinct)(a)
    want = np.unique(a)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_unique_gives_each_cotangent_to_the_first_of_equal_values() -> None:
    a = np.array([3.0, 1.0, 3.0, -2.0, 1.0, 0.5])
    got = ez.grad(distinct_squares)(a)
    # unique: [-2, 0.5, 1, 3] weighted 1..4; the first of the equal ones (a[1], a[0]) takes it
    want = np.array([2 * 3.0 * 4, 2 * 1.0 * 3, 0.0, 2 * -2.0 * 1, 0.0, 2 * 0.5 * 2])
    np.testing.assert_allclose(got, want, rtol=1e-14)
    h = 1e-6  # (finite differences only away from ties: moving one of two equal values
    for k in (3, 5):  # splits them into two distinct ones)
        e = np.eye(a.shape[0])[k]
        fd = (distinct_squares(a + h * e) - distinct_squares(a - h * e)) / (2 * h)
        assert got[k] == pytest.approx(fd, rel=1e-6)


# --- np.sort and np.argsort along an axis --------------------------------------------------------


def sorted_along(a, axis):
    return np.sort(a, axis=axis)


def sorted_flat(a):
    return np.sort(a, axis=None)


def indices_along(a, axis):
    return np.argsort(a, axis=axis)


def indices_flat(a):
    return np.argsort(a, axis=None)


def sort_weights(A):
    return np.sum(np.sort(A, axis=0)[0] ** 2) + np.sum(np.sort(A)[:, -1] * np.arange(
        1.0, A.shape[0] + 1.0)) + np.sum(np.sort(A, axis=None)[:3])


_M = RNG.standard_normal((4, 5))
_M[1, 2] = np.nan
_M[0, 0] = _M[0, 1]


@pytest.mark.parametrize("a", [_M, np.asfortranarray(_M), _M[::-1, ::2], _M[:0], _M[:, :1]],
                         ids=["C", "F", "strided", "no rows", "one column"])
@pytest.mark.parametrize("axis", [0, 1, -1, -2])
def test_sort_and_argsort_along_an_axis_are_numpy_s(a, axis) -> None:
    got = ez.jit(sorted_along)(a, axis)
    np.testing.assert_array_equal(got, np.sort(a, axis=axis))
    assert got.dtype == a.dtype
    np.testing.assert_array_equal(ez.jit(indices_along)(a, axis),
                                  np.argsort(a, axis=axis, kind="stable"))
    np.testing.assert_array_equal(ez.jit(sorted_flat)(a), np.sort(a, axis=None))
    np.testing.assert_array_equal(ez.jit(indices_flat)(a), np.argsort(a, axis=None,
                                                                       kind="stable"))


def test_a_gradient_through_sorts_along_axes_is_jax_s() -> None:
    A = RNG.standard_normal((4, 5))
    got = ez.grad(sort_weights)(A)
    with jax.enable_x64(True):
        def ref(A):
            return (jnp.sum(jnp.sort(A, axis=0)[0] ** 2) + jnp.sum(jnp.sort(A)[:, -1] *
                    jnp.arange(1.0, A.shape[0] + 1.0)) + jnp.sum(jnp.sort(A, axis=None)[:3]))
        want = jax.grad(ref)(jnp.asarray(A))
    np.testing.assert_allclose(got, want, rtol=1e-14)


def test_an_axis_out_of_bounds_is_numpy_s_axis_error() -> None:
    with pytest.raises(np.exceptions.AxisError, match="out of bounds for array of dimension 2"):
        ez.jit(sorted_along)(_M, 2)
    with pytest.raises(np.exceptions.AxisError, match="out of bounds for array of dimension 1"):
        ez.jit(indices_along)(_M[0], 1)


def order_values_along(a, q, axis):
    return (np.median(a, axis), np.quantile(a, q, axis=axis), np.percentile(a, q * 100.0, axis))


def order_values_kept(a, q, axis):
    return (np.median(a, axis, keepdims=True), np.quantile(a, q, axis=axis, keepdims=True),
            np.percentile(a, q * 100.0, axis, keepdims=True),
            np.median(a, axis, keepdims=False))


def order_values_whole_kept(a, q):
    return np.median(a, keepdims=True), np.quantile(a, q, axis=None, keepdims=True)


def _matrices():
    ties = RNG.integers(0, 3, (5, 4)).astype(float)
    nans = RNG.standard_normal((4, 6))
    nans[1, 2] = nans[3, 0] = np.nan
    return [RNG.standard_normal((4, 5)), RNG.standard_normal((1, 6)), RNG.standard_normal((7, 1)),
            ties, nans, RNG.standard_normal((3, 4)).astype(np.float32),
            RNG.integers(-5, 5, (6, 3))]


ALONG, KEPT, WHOLE_KEPT = (ez.jit(order_values_along), ez.jit(order_values_kept),
                           ez.jit(order_values_whole_kept))


def _same_order_value(g, w, dtype) -> None:
    # (float32: our interpolation runs in float64, NumPy's in float32 — the last bit may differ)
    if dtype == np.float32:
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("a", _matrices(), ids=lambda a: f"{a.dtype}{list(a.shape)}")
def test_median_quantile_percentile_along_an_axis_are_numpy_s(a) -> None:
    for axis in (0, 1, -1, -2):
        for q in (0.0, 0.35, 0.5, 1.0):
            got = ALONG(a, q, axis) + KEPT(a, q, axis)
            want = order_values_along(a, q, axis) + order_values_kept(a, q, axis)
            for g, w in zip(got, want, strict=True):
                assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype)
                _same_order_value(g, w, a.dtype)
    for v in (a[0], a[:, -1]):  # a 1-D array along its one axis, and axis=None kept
        for g, w in zip(ALONG(v, 0.35, -1) + WHOLE_KEPT(a, 0.35) + WHOLE_KEPT(v, 0.35),
                        order_values_along(v, 0.35, -1) + order_values_whole_kept(a, 0.35)
                        + order_values_whole_kept(v, 0.35), strict=True):
            assert np.shape(g) == np.shape(w)
            _same_order_value(g, w, a.dtype)


def robust_loss(A, w):
    return (np.sum(np.median(A, axis=0) * w) + np.sum(np.quantile(A, 0.3, axis=1) ** 2)
            + np.sum(np.percentile(A, 80.0, axis=-1, keepdims=True) * A))


def test_order_statistics_along_an_axis_have_jax_s_gradients() -> None:
    A, w = RNG.standard_normal((6, 5)), RNG.standard_normal(5)
    got = ez.grad(robust_loss, argnums=(0, 1))(A, w)
    with jax.enable_x64(True):
        def ref(A, w):
            return (jnp.sum(jnp.median(A, axis=0) * w) + jnp.sum(jnp.quantile(A, 0.3, axis=1) ** 2)
                    + jnp.sum(jnp.percentile(A, 80.0, axis=-1, keepdims=True) * A))
        want = jax.grad(ref, argnums=(0, 1))(jnp.asarray(A), jnp.asarray(w))
    for g, r in zip(got, want, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-14)


def kept_by_a_variable(a, keep):
    return np.median(a, axis=0, keepdims=keep)


def median_of_a_cube(Q):
    return np.sum(np.median(Q, axis=1))


def median_along(a, axis):
    return np.sum(np.median(a, axis=axis))


def test_order_statistics_refuse_what_decides_the_shape_at_run_time() -> None:
    with pytest.raises(FrontendError, match="keepdims written as True or False"):
        ez.jit(kept_by_a_variable)(X, True)
    with pytest.raises(FrontendError, match="np.median along an axis of a 3-D array"):
        ez.jit(median_of_a_cube)(np.zeros((2, 3, 4)))


def test_an_axis_out_of_bounds_in_a_stand_in_calling_stand_ins_is_reported_at_the_call() -> None:
    # (median -> sort -> argsort: the site is moved out of each stand-in in turn)
    with pytest.raises(np.exceptions.AxisError, match=r"dimension 2\n  at .*"
                       r"test_numpy_prelude.py:\d+: return np.sum\(np.median\(a, axis=axis"):
        ez.jit(median_along)(X, 2)
