"""Innermost loops get a version without the bounds checks a test before the loop proves."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import enzyme_py as ez


def two_arrays(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(x[i]) * y[i]
    return s


def shifted(x, y):
    s = 0.0
    for i in range(1, x.shape[0]):
        s += x[i] * y[i - 1] + y[i + 1]
    return s


def wraps(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i - 1] * x[i]  # x[-1] on the first iteration: Python's wrap-around
    return s


def with_invariant_index(a, j):
    s = 0.0
    for i in range(a.shape[1]):
        s += a[j, i] * a[j, i]
    return s


def test_values_and_gradients_with_both_versions() -> None:
    x, y = np.linspace(0.1, 1.0, 7), np.linspace(-1.0, 0.5, 7)
    assert ez.jit(two_arrays)(x, y) == pytest.approx(float(np.sum(np.sin(x) * y)), rel=1e-14)
    np.testing.assert_allclose(ez.grad(two_arrays, argnums=(0, 1))(x, y),
                               (np.cos(x) * y, np.sin(x)), rtol=1e-14)
    y8 = np.linspace(-1.0, 0.5, 8)
    want = sum(x[i] * y8[i - 1] + y8[i + 1] for i in range(1, 7))
    assert ez.jit(shifted)(x, y8) == pytest.approx(want, rel=1e-14)
    v = np.array([1.0, 2.0, 3.0])
    assert ez.jit(wraps)(v) == 3.0 * 1.0 + 1.0 * 2.0 + 2.0 * 3.0  # the checked version
    a = np.arange(12.0).reshape(3, 4)
    assert ez.jit(with_invariant_index)(a, 1) == float(np.sum(a[1] ** 2))
    assert ez.jit(with_invariant_index)(a, -1) == float(np.sum(a[-1] ** 2))  # wraps: checked


def test_out_of_bounds_still_raises_at_the_same_place() -> None:
    x, y = np.ones(4), np.ones(4)  # y[i + 1] leaves y on the last iteration
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        ez.jit(shifted)(x, y)
    with pytest.raises(IndexError, match="index 3 is out of bounds"):
        ez.jit(with_invariant_index)(np.ones((3, 2)), 3)


def test_the_proven_loop_has_no_checks_and_vectorizes() -> None:
    x, y = np.ones(64), np.ones(64)
    text = ez.show(two_arrays, x, y, stage="optimized", argnums=(0, 1))
    grad = text[text.index("@diffe_two_arrays("):]
    assert re.search(r"<\d+ x double>", grad)  # vectorized gradient loops (any width)
    python = ez.show(two_arrays, x, y, stage="python")
    assert "for.unchecked" in python and "for.checked" in python
