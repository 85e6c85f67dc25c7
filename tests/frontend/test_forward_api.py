"""jvp, hvp and hessian (forward-over-reverse) against JAX on the same Python functions."""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.testing import jax_version_of

jax.config.update("jax_enable_x64", True)


def weighted(x, a):
    s = 0.0
    for i in range(x.shape[0]):
        s += a * math.sin(x[i]) * x[i] * x[i]
    return s


def branchy_inplace(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = x[i] * x[i]
    s = 0.0
    for _ in range(3):
        for i in range(x.shape[0]):
            if y[i] > 0.5:
                y[i] = math.sin(y[i]) * y[i]
            else:
                y[i] = y[i] * 1.5
            s += y[i]
    return s


def rosen(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] * x[i]) ** 2 + (1.0 - x[i]) ** 2
    return s


def smooth_max(x):
    m = x[0]
    for i in range(x.shape[0]):
        m = max(m, x[i])
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(x[i] - m)
    return m + math.log(s)


X = np.array([0.3, 0.9, 1.1, -0.4])


@pytest.mark.parametrize("f", [branchy_inplace, rosen, smooth_max], ids=lambda f: f.__name__)
def test_hessian_matches_jax(f) -> None:
    ours = ez.hessian(f)(X)
    ref = np.asarray(jax.hessian(jax_version_of(f))(X))
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)


def test_hessian_of_two_argument_function_and_jvp() -> None:
    h = ez.hessian(weighted)(X[:3], 2.0)
    ref = np.asarray(jax.hessian(jax_version_of(weighted))(X[:3], 2.0))
    np.testing.assert_allclose(h, ref, rtol=1e-10)
    v = np.array([1.0, -2.0, 0.5])
    value, tangent = ez.jvp(weighted, (X[:3], 2.0), (v, 0.3))
    rv, rt = jax.jvp(jax_version_of(weighted), (X[:3], 2.0), (v, 0.3))
    assert value == pytest.approx(float(rv), rel=1e-12)
    assert tangent == pytest.approx(float(rt), rel=1e-10)


def test_hvp_matches_jvp_of_grad() -> None:
    v = np.array([0.2, -1.0, 0.4, 0.1])
    (ours,) = ez.hvp(rosen, (X,), (v,))
    g = jax.grad(jax_version_of(rosen))
    ref = np.asarray(jax.jvp(g, (X,), (v,))[1])
    np.testing.assert_allclose(ours, ref, rtol=1e-10)


def test_inputs_are_not_modified() -> None:
    x = X.copy()
    ez.hessian(branchy_inplace)(x)
    ez.jvp(rosen, (x,), (np.ones(4),))
    assert np.array_equal(x, X)


def polar2(x):
    r = math.sqrt(x[0] * x[0] + x[1] * x[1])
    return r, math.atan2(x[1], x[0])


def test_jacfwd_and_jacrev_match_jax() -> None:
    np.testing.assert_allclose(ez.jacfwd(rosen)(X), np.asarray(jax.jacfwd(
        jax_version_of(rosen))(X)), rtol=1e-10)
    np.testing.assert_allclose(ez.jacrev(rosen)(X), ez.jacfwd(rosen)(X), rtol=1e-10)
    p = np.array([0.6, -0.8])
    ref = np.stack([np.asarray(r) for r in jax.jacrev(jax_version_of(polar2))(p)])
    np.testing.assert_allclose(ez.jacrev(polar2)(p), ref, rtol=1e-10)


@ez.inactive
def frozen(x):
    return math.sin(x) * 10.0


def uses_frozen(x):
    return x * x + frozen(x)


def test_inactive_function_contributes_no_derivative() -> None:
    assert ez.jit(uses_frozen)(0.5) == pytest.approx(0.25 + 10.0 * math.sin(0.5))
    assert ez.grad(uses_frozen)(0.5) == pytest.approx(1.0)  # d(x*x) only


HESSIAN_CORPUS = ["break_continue", "early_return_in_loop", "sum_squares", "negative_indices",
                  "prefix_sum_inplace", "stencil_two_buffers", "local_buffers", "logsumexp",
                  "softmax_cross_entropy", "logistic_regression", "uses_tuple_helper",
                  "mixed_int_float_arrays", "int_array_lookup"]


@pytest.mark.parametrize("name", HESSIAN_CORPUS)
def test_hessian_of_corpus_function_matches_jax(name: str) -> None:
    """Loops with branches, early exits, in-place updates, local arrays, integer arrays."""
    from tests.frontend.corpus import CASES

    case = next(c for c in CASES if c.id == name)
    args = [np.copy(a) if isinstance(a, np.ndarray) else a for a in case.args]
    ours = ez.hessian(case.f)(*args)
    ref = np.asarray(jax.hessian(jax_version_of(case.f))(*args))
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-9)


def two_floats(a, b):
    return a * a * b + math.exp(b)


def scaled_squares(x, a, b):
    s = 0.0
    for i in range(x.shape[0]):
        s += a * x[i] * x[i] * b
    return s


def test_hvp_with_several_float_arguments() -> None:
    ours = ez.hvp(two_floats, (1.5, 0.3), (1.0, 2.0))
    ref = jax.jvp(jax.grad(jax_version_of(two_floats), argnums=(0, 1)), (1.5, 0.3), (1.0, 2.0))[1]
    np.testing.assert_allclose(ours, [float(r) for r in ref], rtol=1e-13)
    assert ez.hessian(two_floats)(1.5, 0.3) == pytest.approx(0.6, rel=1e-14)
    x, v = np.array([1.0, 2.0]), np.array([1.0, -0.5])
    ours = ez.hvp(scaled_squares, (x, 1.5, 0.5), (v, 1.0, 0.25))
    ref = jax.jvp(jax.grad(jax_version_of(scaled_squares), argnums=(0, 1, 2)), (x, 1.5, 0.5),
                  (v, 1.0, 0.25))[1]
    np.testing.assert_allclose(ours[0], np.asarray(ref[0]), rtol=1e-13)
    np.testing.assert_allclose(ours[1:], [float(ref[1]), float(ref[2])], rtol=1e-13)
