"""Tests the types decide (`frontend/static_conditions.py`): `w is None`, `x.ndim == 2` ...
resolve an `if` or a conditional expression at compile time, so optional arguments and
rank-generic helpers compile; values as Python's, gradients as JAX's."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError


def weighted(x, w=None):
    if w is None:
        return np.sum(x * x)
    return np.sum(w * x * x)


def both_ways(x):
    return weighted(x) + weighted(x, x) + weighted(x, w=None) * 0.5


def masked_mean(x, mask=None, scale=None):
    kept = x if mask is None else np.where(mask, x, 0.0)
    count = x.shape[0] if mask is None else np.sum(mask)
    total = np.sum(kept) / count
    if scale is not None and scale > 0.0:  # (with scale None the right side is never typed)
        total = total * scale
    return total


def masked_callers(x):
    return masked_mean(x) + masked_mean(x, x > 0.0) + masked_mean(x, None, 3.0) + \
        masked_mean(x, x > 0.5, -1.0)


def first_row_sum(x):
    if x.ndim == 1:
        return np.sum(x)
    elif len(x.shape) == 2:
        return np.sum(x[0, :])
    return np.sum(x[0, 0, :])


def ranks(v, m, t):
    return first_row_sum(v) + 2.0 * first_row_sum(m) + 3.0 * first_row_sum(t)


def negations(x, w=None):
    if not (w is None) or x.ndim != 1:  # noqa: E714 - `not` of a decided test
        return np.sum(x) * 2.0
    return np.sum(x) if not x.ndim > 1 else 0.0


RNG = np.random.default_rng(5)
V, M, TEN = RNG.standard_normal(5), RNG.standard_normal((3, 4)), RNG.standard_normal((2, 3, 4))


def _jax(f, *args, argnums=0):
    """jax.grad of `f` run with every function of this module reading `np` as jax.numpy."""
    g = dict(globals(), np=jnp)
    for name, fn in globals().items():
        if isinstance(fn, type(_jax)) and fn.__module__ == __name__:
            g[name] = type(fn)(fn.__code__, g, name, fn.__defaults__)
    with jax.enable_x64(True):
        return jax.grad(g[f.__name__], argnums=argnums)(*args)


@pytest.mark.parametrize("f, args, nums", [
    (both_ways, (V,), 0), (masked_callers, (V,), 0), (ranks, (V, M, TEN), (0, 1, 2)),
    (negations, (V,), 0)], ids=lambda p: getattr(p, "__name__", ""))
def test_decided_tests_give_python_s_values_and_jax_s_gradients(f, args, nums) -> None:
    assert ez.jit(f)(*args) == pytest.approx(f(*args), rel=1e-13)
    got = ez.grad(f, argnums=nums)(*args)
    want = _jax(f, *args, argnums=nums)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-12, atol=1e-14)


def test_an_optional_argument_at_the_api_takes_its_default_or_a_value() -> None:
    assert ez.jit(weighted)(V) == pytest.approx(weighted(V))
    assert ez.jit(weighted)(V, V) == pytest.approx(weighted(V, V))
    np.testing.assert_allclose(ez.grad(weighted)(V), 2 * V, rtol=1e-14)
    np.testing.assert_allclose(ez.grad(weighted)(V, V), 2 * V * V, rtol=1e-14)
    assert ez.jit(negations)(M) == pytest.approx(2 * np.sum(M))


def test_the_branch_not_taken_is_not_compiled() -> None:
    ir = ez.jit(first_row_sum).ir(V)  # (its other branches index x with 2 and 3 indices)
    assert ir.count("define") == 1 and "br i1 true" not in ir and "br i1 false" not in ir


def same(a, b):
    return 1.0 if a is b else 0.0


def none_plus(x, w=None):
    return np.sum(x) + w


def test_identity_of_other_values_and_arithmetic_on_none_are_refused() -> None:
    with pytest.raises(FrontendError, match="'is' and 'is not' compare with None only"):
        ez.jit(same)(1.0, 2.0)
    with pytest.raises(FrontendError, match="arithmetic on None is not supported"):
        ez.jit(none_plus)(V)


def scaled(x, s=2.0):
    return np.sum(x * x) * s


@pytest.mark.parametrize("f", [scaled, weighted], ids=["float default", "None default"])
def test_every_api_fills_in_defaults_as_a_call_does(f) -> None:
    x = np.linspace(-1.0, 2.0, 4)
    k = 2.0 if f is scaled else 1.0  # (f(x) = k * sum(x * x))
    y, pullback = ez.vjp(f, x)
    assert y == pytest.approx(k * np.sum(x * x))
    (ct,) = pullback(1.0)  # (a cotangent for the argument given only)
    np.testing.assert_allclose(ct, 2 * k * x, rtol=1e-14)
    np.testing.assert_allclose(ez.jacrev(f)(x), 2 * k * x, rtol=1e-14)
    np.testing.assert_allclose(ez.jacfwd(f)(x), 2 * k * x, rtol=1e-14)
    np.testing.assert_allclose(ez.hessian(f)(x), 2 * k * np.eye(4), rtol=1e-14)
    value, tangent = ez.jvp(f, (x,), (np.ones(4),))
    assert (value, tangent) == pytest.approx((k * np.sum(x * x), 2 * k * np.sum(x)))


def vector_only(x):
    if x.ndim != 1:
        raise ValueError("vector_only takes a vector")
    return np.sum(x * x)


def test_a_branch_that_always_raises_raises_from_jit_and_grad() -> None:
    np.testing.assert_allclose(ez.grad(vector_only)(V), 2 * V, rtol=1e-14)
    for call in (ez.jit, ez.grad):
        with pytest.raises(ValueError, match="^vector_only takes a vector\n  at .*raise"):
            call(vector_only)(M)  # (for a matrix the body only raises)
