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


def packed_lower(q, x, d):
    """x^T L with L lower triangular, its strict part packed column by column in q[d:]."""
    out = np.zeros(d)
    li = d
    for i in range(d):
        out[i] += q[i] * x[i]
        for j in range(i + 1, d):
            out[j] += q[li] * x[i]  # `li` is a counter: li0 + (j - i - 1)
            li += 1
    s = 0.0
    for i in range(d):
        s += out[i] * out[i]
    return s


def counter_after(a, n):
    """A subscript after the increment sees the incremented counter; a negative step."""
    s = 0.0
    k = 2 * n
    for i in range(n):
        k -= 2
        s += a[k + 1] * a[i]
    return s


def packed_reference(q, x, d):
    lower = np.zeros((d, d))
    lower[np.diag_indices(d)] = q[:d]
    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))
    lower[rows[order], cols[order]] = q[d:]
    out = lower @ x
    return float(out @ out), lower


def test_counters_are_proven_and_keep_values_and_errors() -> None:
    d = 6
    rng = np.random.default_rng(0)
    q, x = rng.standard_normal(d * (d + 1) // 2), rng.standard_normal(d)
    want, lower = packed_reference(q, x, d)
    assert ez.jit(packed_lower)(q, x, d) == pytest.approx(want, rel=1e-13)
    gq = ez.grad(packed_lower)(q, x, d)
    out = lower @ x
    full = 2.0 * np.outer(out, x)  # d/dL of |L x|^2
    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))
    np.testing.assert_allclose(gq, np.concatenate([np.diag(full), full[rows[order], cols[order]]]),
                               rtol=1e-12)
    python = ez.show(packed_lower, q, x, d, stage="python")
    assert python.count("for.unchecked") >= 2  # the triangle loop is versioned too
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 20"):
        ez.jit(packed_lower)(q[:-1], x, d)  # one packed entry short: the checked version

    a = np.arange(1.0, 12.0)  # n = 5: k + 1 runs 9, 7, 5, 3, 1 (the unchecked version)
    assert ez.jit(counter_after)(a, 5) == sum(a[9 - 2 * i] * a[i] for i in range(5))
    with pytest.raises(IndexError, match="index 11 is out of bounds for axis 0 with size 11"):
        ez.jit(counter_after)(a, 6)  # k + 1 = 11 on the first iteration: the checked version
    assert ez.jit(counter_after)(a[::-1].copy(), 4) == sum(a[::-1][7 - 2 * i] * a[::-1][i]
                                                           for i in range(4))


def test_a_continue_or_a_second_store_keeps_the_checks() -> None:
    from enzyme_py.frontend import versioning
    from enzyme_py.frontend.ftypes import F64, I64, Array

    def source(body: str) -> list:
        import ast
        import textwrap

        tree = ast.parse(textwrap.dedent(body))
        loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
        env = {"a": Array(F64, 1), "li": I64}
        return versioning.plan(loop, env)

    assert source("for i in range(3):\n    s = a[li]\n    li += 1\n")
    assert not source("for i in range(3):\n    if s:\n        continue\n    s = a[li]\n    li += 1\n")
    assert not source("for i in range(3):\n    s = a[li]\n    li += 1\n    li = 0\n")
    assert not source("for i in range(3):\n    s = a[li]\n    if s:\n        li += 1\n")
