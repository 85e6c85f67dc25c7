"""Where Python's and NumPy's arithmetic differ: booleans (NumPy's + is or, * is and, - is
refused; a scalar bool may be either kind, so + and - on two are refused), float floor
division (from the remainder, as CPython and NumPy compute it), and `reversed(range(...))`."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError


def counted_masks(x):
    w = (x > 0) + (x > 0.5)  # or: a weight of 1 where either holds
    return np.sum(w * x) / np.sum(w)


def both_masks(x):
    return np.sum(((x > 0) * (x > 0.5)) * x)


def grown_mask(x):
    m = x > 0
    m += x > 0.5
    return np.sum(m * x)


def mask_difference(x):
    return np.sum(((x > 0) - (x > 0.5)) * x)


def negated_mask(x):
    return np.sum(-(x > 0) * x)


def scalar_bools(x):
    return ((x[0] > 0) + (x[1] > 0)) * x[2]


def counted_scalar_bools(x):
    return (int(x[0] > 0) + int(x[1] > 0)) * x[2]


X = np.array([0.9, -0.3, 0.7])


@pytest.mark.parametrize("f", [counted_masks, both_masks, grown_mask, counted_scalar_bools])
def test_boolean_arithmetic_is_numpy_s(f) -> None:
    assert ez.jit(f)(X) == pytest.approx(f(X), rel=1e-15)


def test_boolean_masks_weight_the_gradient_as_numpy_does() -> None:
    # d/dx sum(w x) / sum(w), w = (x > 0) | (x > 0.5) = [1, 0, 1]: w / sum(w)
    np.testing.assert_allclose(ez.grad(counted_masks)(X), [0.5, 0.0, 0.5], rtol=1e-15)
    np.testing.assert_allclose(ez.grad(both_masks)(X), [1.0, 0.0, 1.0], rtol=1e-15)


@pytest.mark.parametrize("f, message", [
    (mask_difference, "the - operator is not supported on boolean arrays"),
    (negated_mask, "the - operator is not supported on a boolean array"),
    (scalar_bools, "'\\+' on bools is ambiguous"),
])
def test_what_numpy_refuses_or_python_reads_otherwise_is_an_error(f, message) -> None:
    with pytest.raises(FrontendError, match=message):
        ez.jit(f)(X)


def floordiv(a, b):
    return a // b


def summed_floordiv(x, y):
    return np.sum(x // y)


def test_float_floor_division_is_python_s_and_numpy_s() -> None:
    values = [1.0, 0.1, 0.9, -0.3, 0.3, -1.0, 7.5, -7.5, 2.0, 0.0, -0.0, 1e300, 1e-300,
              math.inf, -math.inf, math.nan, 0.7, 2.1]
    f = ez.jit(floordiv)
    for a, b in itertools.product(values, values):
        with np.errstate(all="ignore"):
            want = float(np.float64(a) // np.float64(b))
        got = f(a, b)
        if math.isnan(want):
            assert math.isnan(got), (a, b)
        else:
            assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want), (a, b)
    assert f(1.0, 0.1) == 9.0 and f(0.9, -0.3) == -4.0  # (floor(a / b) gives 10 and -3)
    x, y = np.array([1.0, 0.3, 0.7]), np.array([0.1, -0.3, 0.2])
    assert ez.jit(summed_floordiv)(x, y) == summed_floordiv(x, y)
    x32 = x.astype(np.float32)
    assert ez.jit(summed_floordiv)(x32, np.float32(0.1)) == summed_floordiv(x32, np.float32(0.1))
    np.testing.assert_array_equal(ez.grad(summed_floordiv, argnums=(0, 1))(x, y)[0], 0.0)


def horner_backwards(x):
    s = 0.0
    for i in reversed(range(x.shape[0])):
        s = s * 0.5 + x[i]
    return s


def strided_backwards(x, a, b):
    s = 0.0
    for i in reversed(range(a, b, 3)):
        s = s * 0.5 + x[i] * i
    for i in reversed(range(b, a, -2)):
        s = s * 0.25 + x[i]
    return s


def test_reversed_range_runs_the_same_values_backwards() -> None:
    x = np.linspace(0.1, 2.0, 20)
    assert ez.jit(horner_backwards)(x) == pytest.approx(horner_backwards(x), rel=1e-15)
    np.testing.assert_allclose(ez.grad(horner_backwards)(x), 0.5 ** np.arange(20), rtol=1e-15)
    f = ez.jit(strided_backwards)
    for a, b in itertools.product(range(0, 12), range(-1, 19)):
        assert f(x, a, b) == pytest.approx(strided_backwards(x, a, b), rel=1e-15), (a, b)


def new_axis_alone(x):
    return np.sum(x[None] * x[:, None])


def one_sided_clips(x):
    return np.sum(np.clip(x, -0.5, None) ** 2) + np.sum(np.clip(x, None, 0.3))


def test_a_bare_new_axis_and_a_missing_clip_bound_are_numpy_s() -> None:
    x = np.array([0.9, -0.7, 0.2, -0.1])
    assert ez.jit(new_axis_alone)(x) == pytest.approx(new_axis_alone(x), rel=1e-15)
    np.testing.assert_allclose(ez.grad(new_axis_alone)(x), 2.0 * np.sum(x), rtol=1e-15)
    assert ez.jit(one_sided_clips)(x) == pytest.approx(one_sided_clips(x), rel=1e-15)
    np.testing.assert_allclose(ez.grad(one_sided_clips)(x), [1.8, 1.0, 1.4, 0.8], rtol=1e-15)


def throwaway_items(a):
    u, _, _ = np.linalg.svd(a, full_matrices=False)  # (an array and a vector)
    _, r = np.linalg.qr(a)
    for _ in range(2):  # (and an int)
        r = r * 0.5
    return np.sum(u[:, 0] ** 2) + np.sum(r)


def read_throwaway(a):
    x, _ = a[0], a[1]
    _, y = 1.0, a
    return x + _ + y


def test_an_unread_underscore_takes_tuple_items_of_any_type() -> None:
    a = np.random.default_rng(5).standard_normal((4, 3))
    np.testing.assert_allclose(ez.jit(throwaway_items)(a), throwaway_items(a), rtol=1e-13)
    with pytest.raises(FrontendError, match="variable '_' holds"):  # (read: one type, as any)
        ez.jit(read_throwaway)(a)
