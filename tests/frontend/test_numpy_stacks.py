"""np.linalg on 3-D stacks of matrices (`frontend/numpy_prelude_stacks.py`): each function
of a stack is NumPy's of each matrix (values, shapes, dtypes), its gradient and tangent are
JAX's, solve takes NumPy 2's right-hand sides, and other ranks are refused at the call."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError

RNG = np.random.default_rng(23)


def stacked(a, spd, w, b1, b2, b3):
    return (np.linalg.det(a), np.linalg.slogdet(a), np.linalg.inv(a), np.linalg.solve(a, b1),
            np.linalg.solve(a, b2), np.linalg.solve(a, b3), np.linalg.cholesky(spd),
            np.linalg.eigvalsh(spd), np.linalg.eigh(spd)[0], np.linalg.svd(w)[1],
            np.linalg.svd(w, full_matrices=False)[1], np.linalg.svd(w, compute_uv=False),
            np.linalg.pinv(w), np.linalg.qr(w), np.linalg.qr(w, mode="complete")[1],
            np.linalg.qr(w, mode="r"), np.linalg.matrix_power(a, 3),
            np.linalg.matrix_power(a, -2))


STACKED = ez.jit(stacked)


def _leaves(x):
    if isinstance(x, tuple):
        return [y for item in x for y in _leaves(item)]
    return [x]


def _arguments(dtype, count=4):
    a = RNG.standard_normal((count, 3, 3)) + 2.0 * np.eye(3)
    spd = a @ np.swapaxes(a, 1, 2) + np.eye(3)
    w = RNG.standard_normal((count, 5, 3))
    b1, b2 = RNG.standard_normal(3), RNG.standard_normal((3, 2))
    b3 = RNG.standard_normal((count, 3, 2))
    return tuple(x.astype(dtype) for x in (a, spd, w, b1, b2, b3))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_each_function_of_a_stack_is_numpy_s(dtype) -> None:
    args = _arguments(dtype)
    got, want = _leaves(STACKED(*args)), _leaves(stacked(*args))
    assert len(got) == len(want)
    tol = 1e-12 if dtype == np.float64 else 2e-4
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        # (a factor's columns and rows may differ in sign from LAPACK's)
        np.testing.assert_allclose(np.abs(g), np.abs(w), rtol=tol, atol=tol)


def solve(a, b):
    return np.linalg.solve(a, b)


def inv(a):
    return np.linalg.inv(a)


def test_solve_broadcasts_a_stack_of_one_and_refuses_other_counts() -> None:
    a, _, _, _, _, b3 = _arguments(np.float64)
    got = ez.jit(solve)(a, b3[:1])
    np.testing.assert_allclose(got, np.linalg.solve(a, b3[:1]), rtol=1e-12)
    with pytest.raises(ValueError, match="do not broadcast"):
        ez.jit(solve)(a, b3[:3])
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        ez.jit(inv)(np.stack([np.eye(2), np.zeros((2, 2))]))


def lu_family(a, b3, b1):
    return (np.sum(np.linalg.det(a) ** 2) + np.sum(np.linalg.slogdet(a)[1])
            + np.sum(np.linalg.inv(a) ** 2) + np.sum(np.linalg.solve(a, b3) ** 2)
            + np.sum(np.linalg.solve(a, b1) ** 2))


def jax_lu_family(a, b3, b1):
    return (jnp.sum(jnp.linalg.det(a) ** 2) + jnp.sum(jnp.linalg.slogdet(a)[1])
            + jnp.sum(jnp.linalg.inv(a) ** 2) + jnp.sum(jnp.linalg.solve(a, b3) ** 2)
            + jnp.sum(jnp.linalg.solve(a, b1[:, None])[..., 0] ** 2))


def symmetric_family(m, w):
    s = m @ np.swapaxes(m, 1, 2)  # (symmetric, so the lower triangle is the matrix)
    return (np.sum(np.linalg.cholesky(s + 3.0 * np.eye(3)) ** 2)
            + np.sum(np.linalg.eigvalsh(s) ** 3) + np.sum(np.linalg.svd(w, compute_uv=False) ** 2)
            + np.sum(np.linalg.pinv(w) ** 2) + np.sum(np.linalg.qr(w)[1] ** 2))


def jax_symmetric_family(m, w):
    s = m @ jnp.swapaxes(m, 1, 2)
    return (jnp.sum(jnp.linalg.cholesky(s + 3.0 * jnp.eye(3)) ** 2)
            + jnp.sum(jnp.linalg.eigvalsh(s) ** 3)
            + jnp.sum(jnp.linalg.svd(w, compute_uv=False) ** 2)
            + jnp.sum(jnp.linalg.pinv(w) ** 2) + jnp.sum(jnp.linalg.qr(w)[1] ** 2))


@pytest.mark.parametrize(("loss", "jax_loss", "which"), [
    (lu_family, jax_lu_family, (0, 5, 3)), (symmetric_family, jax_symmetric_family, (0, 2))])
def test_gradients_and_tangents_of_stacks_are_jax_s(loss, jax_loss, which) -> None:
    args = tuple(_arguments(np.float64, 3)[k] for k in which)
    nums = tuple(range(len(args)))
    tangents = tuple(RNG.standard_normal(x.shape) for x in args)
    with jax.enable_x64(True):
        want = jax.grad(jax_loss, argnums=nums)(*args)
        _, want_t = jax.jvp(jax_loss, args, tangents)
    got = ez.grad(loss, argnums=nums)(*args)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10)
    _, got_t = ez.jvp(loss, args, tangents)
    np.testing.assert_allclose(got_t, want_t, rtol=1e-9)


def four_d(a):
    return np.linalg.det(a)


def lstsq_of_a_stack(a, b):
    return np.linalg.lstsq(a, b)[0]


def test_other_ranks_are_refused_at_the_call() -> None:
    with pytest.raises(FrontendError, match="a matrix or a 3-D stack"):
        ez.jit(four_d)(np.ones((2, 2, 3, 3)))
    with pytest.raises(FrontendError, match="np.linalg.lstsq of a 3-D array"):
        ez.jit(lstsq_of_a_stack)(np.ones((2, 3, 3)), np.ones(3))


def _logsumexp(v):
    top = np.max(v, axis=-1, keepdims=True)
    return np.log(np.sum(np.exp(v - top), axis=-1)) + top[..., 0]


def full_covariance_gmm(x, means, factors, logits):
    """The negative log-likelihood of a Gaussian mixture with full covariances, as NumPy
    code writes it: a stack of K covariance matrices, their inverses and log-determinants."""
    d = x.shape[1]
    cov = factors @ np.swapaxes(factors, 1, 2) + 0.5 * np.eye(d)
    _, logdet = np.linalg.slogdet(cov)
    diff = x[:, None, :] - means[None, :, :]
    maha = np.sum(np.einsum("nki,kij->nkj", diff, np.linalg.inv(cov)) * diff, axis=2)
    log_weights = logits - _logsumexp(logits)
    ll = log_weights[None, :] - 0.5 * (maha + logdet[None, :] + d * np.log(2.0 * np.pi))
    return -np.sum(_logsumexp(ll))


def jax_full_covariance_gmm(x, means, factors, logits):
    d = x.shape[1]
    cov = factors @ jnp.swapaxes(factors, 1, 2) + 0.5 * jnp.eye(d)
    _, logdet = jnp.linalg.slogdet(cov)
    diff = x[:, None, :] - means[None, :, :]
    maha = jnp.sum(jnp.einsum("nki,kij->nkj", diff, jnp.linalg.inv(cov)) * diff, axis=2)
    log_weights = logits - jax.nn.logsumexp(logits)
    ll = log_weights[None, :] - 0.5 * (maha + logdet[None, :] + d * jnp.log(2.0 * jnp.pi))
    return -jnp.sum(jax.nn.logsumexp(ll, axis=1))


def test_a_full_covariance_gmm_on_a_stack_of_covariances_is_jax_s() -> None:
    n, k, d = 40, 3, 4
    args = (RNG.standard_normal((n, d)), RNG.standard_normal((k, d)),
            RNG.standard_normal((k, d, d)), RNG.standard_normal(k))
    value = ez.jit(full_covariance_gmm)(*args)
    np.testing.assert_allclose(value, full_covariance_gmm(*args), rtol=1e-12)
    got = ez.grad(full_covariance_gmm, argnums=(0, 1, 2, 3))(*args)
    with jax.enable_x64(True):
        want = jax.grad(jax_full_covariance_gmm, argnums=(0, 1, 2, 3))(*args)
        np.testing.assert_allclose(value, jax_full_covariance_gmm(*args), rtol=1e-12)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11)


def factor_summary(a):
    return np.linalg.det(a), np.linalg.inv(a), np.linalg.eigvalsh(a), np.linalg.qr(a)[1]


@pytest.mark.parametrize("case", ["empty stack", "strided", "transposed", "0x0 matrices"])
def test_stacks_of_any_layout_and_extent_are_numpy_s(case) -> None:
    base = RNG.standard_normal((6, 3, 3)) + 3.0 * np.eye(3)
    a = {"empty stack": np.zeros((0, 3, 3)), "strided": base[::2],
         "transposed": base.transpose(0, 2, 1), "0x0 matrices": np.zeros((2, 0, 0))}[case]
    got, want = ez.jit(factor_summary)(a), factor_summary(a)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        np.testing.assert_allclose(np.abs(g), np.abs(w), atol=1e-12)
