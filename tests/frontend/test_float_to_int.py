"""`int(x)` of a float: truncation as Python does, Python's errors for nan and infinities (and
an OverflowError outside the int64 range, where Python's ints would grow), never LLVM's poison;
NumPy's integer types saturate."""

from __future__ import annotations

import math

import numpy as np
import pytest

import enzyme_py as ez


def plus_one(x):
    return int(x) + 1


def test_truncation_toward_zero() -> None:
    f = ez.jit(plus_one)
    for x in (2.7, -3.5, 0.0, -0.9, 9.0e18):
        assert f(x) == plus_one(x)


@pytest.mark.parametrize(("x", "error", "text"), [
    (math.nan, ValueError, "cannot convert float NaN to integer"),
    (math.inf, OverflowError, "cannot convert float infinity"),
    (-math.inf, OverflowError, "cannot convert float infinity"),
    (1e30, OverflowError, "outside the int64 range"),
])
def test_python_errors(x: float, error: type, text: str) -> None:
    with pytest.raises(error, match=text):
        ez.jit(plus_one)(x)
    if math.isfinite(x):
        return  # (Python's ints grow; an int64 cannot, so that one is ours)
    with pytest.raises(error):  # the exception Python itself raises
        plus_one(x)


def as_int32(x):
    return np.int32(x)


def test_numpy_integer_types_saturate() -> None:
    f = ez.jit(as_int32)
    assert f(2.7) == 2 and f(-2.7) == -2
    assert f(1e30) == np.iinfo(np.int32).max and f(-1e30) == np.iinfo(np.int32).min
    assert f(math.nan) == 0


def pick(x, a):
    i = int(a)
    return x[i] * x[i]


def test_a_gradient_through_a_checked_conversion() -> None:
    x = np.array([1.0, 2.0, 3.0])
    g = ez.grad(pick)(x, 1.5)
    np.testing.assert_array_equal(g, [0.0, 4.0, 0.0])
    with pytest.raises(ValueError, match="NaN"):
        ez.grad(pick)(x, math.nan)
