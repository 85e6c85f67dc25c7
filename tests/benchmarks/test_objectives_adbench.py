"""The ADBench objectives (GMM, BA, LSTM) agree in their three forms at tiny sizes.

For each objective: the Python-subset primal JIT-compiled by enzyme_py equals the JAX form
(rtol 1e-12); enzyme_py's gradient equals jax.grad under ADBench's metric
|x - y| / max(1, |x| + |y|) < 1e-8; the C form through clang-22, `enzyme-py transform` and
ctypes gives the same value and gradient.  The GMM value is also checked against an
independent numpy/scipy formulation of the mixture likelihood and the Wishart prior.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from types import ModuleType

import jax
import numpy as np
import pytest

import enzyme_py as ez

jax.config.update("jax_enable_x64", True)

from benchmarks.objectives import cbuild  # noqa: E402

NAMES = ("gmm", "ba", "lstm")
ADBENCH_TOL = 1e-8


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"benchmarks.objectives.{name}")


def _tiny_args(mod: ModuleType) -> tuple:
    """The quick size, made less symmetric than ADBench's data so that every term matters."""
    rng = np.random.default_rng(7)
    if mod.NAME == "gmm":
        return mod.make_args(mod.Size("d3 K4 n9", 3, 4, 9, gamma=0.7, m=2), seed=1)
    args = list(mod.make_args(mod.sizes(quick=True)[0], seed=1))
    if mod.NAME == "ba":
        # distinct cameras, points and weights; camera 0 takes Rodrigues' small-angle branch
        args[0] = args[0] * (1.0 + 0.01 * rng.standard_normal(args[0].shape))
        args[0][0, :3] = 0.0
        args[1] = args[1] + 0.1 * rng.standard_normal(args[1].shape)
        args[2] = args[2] + 0.1 * rng.standard_normal(args[2].shape)
    return tuple(args)


def _adbench_error(x: np.ndarray, y: np.ndarray) -> float:
    """ADBench's elementwise metric, maximized: |x - y| / max(1, |x| + |y|)."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(np.max(np.abs(x - y) / np.maximum(1.0, np.abs(x) + np.abs(y)), initial=0.0))


@pytest.fixture(scope="module", params=NAMES)
def case(request) -> tuple[ModuleType, tuple, float, tuple]:
    """(module, args, JAX value, JAX gradients) for one objective."""
    mod = _module(request.param)
    args = _tiny_args(mod)
    static = tuple(i for i, a in enumerate(args) if not isinstance(a, np.ndarray))
    # one XLA compilation is much cheaper than dispatching every op eagerly
    value_and_grad = jax.jit(jax.value_and_grad(mod.jax_primal, argnums=mod.ARGNUMS),
                             static_argnums=static)
    value, grads = value_and_grad(*args)
    return mod, args, float(value), tuple(np.asarray(g) for g in grads)


@functools.cache
def _jitted(name: str) -> Callable[..., float]:
    """enzyme_py.jit of an objective's primal, compiled once per test session."""
    return ez.jit(_module(name).primal)


def test_jit_primal_matches_jax(case) -> None:
    mod, args, value, _ = case
    assert _jitted(mod.NAME)(*args) == pytest.approx(value, rel=1e-12)


def test_grad_matches_jax(case) -> None:
    mod, args, _, grads = case
    ours = ez.grad(mod.primal, argnums=mod.ARGNUMS)(*args)
    assert len(ours) == len(grads)
    for g, ref in zip(ours, grads, strict=True):
        assert g.shape == ref.shape
        assert _adbench_error(g, ref) < ADBENCH_TOL
        assert np.any(ref != 0.0)


def test_c_form_matches_jax(case, tmp_path) -> None:
    if cbuild.find_clang() is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    mod, args, value, grads = case
    primal_fn, gradient_fn = cbuild.build_c(mod, tmp_path)
    assert primal_fn(*args) == pytest.approx(value, rel=1e-12)
    ours = gradient_fn(*args)
    assert len(ours) == len(grads)
    for g, ref in zip(ours, grads, strict=True):
        assert _adbench_error(g, ref) < ADBENCH_TOL


def _gmm_reference(alphas, means, icf, x, gamma, m, d, k, n) -> float:
    """GMM log-likelihood plus ADBench's Wishart term, from dense matrices and scipy."""
    from scipy.special import logsumexp, multigammaln
    from scipy.stats import multivariate_normal

    rows, cols = np.tril_indices(d, -1)
    order = np.lexsort((rows, cols))
    log_weights = alphas - logsumexp(alphas)
    comp = np.empty((n, k))
    prior = 0.0
    nw = d + m + 1
    c = nw * d * (np.log(gamma) - 0.5 * np.log(2.0)) - multigammaln(0.5 * nw, d)
    for j in range(k):
        q = np.diag(np.exp(icf[j, :d]))
        q[rows[order], cols[order]] = icf[j, d:]
        cov = np.linalg.inv(q.T @ q)
        comp[:, j] = log_weights[j] + multivariate_normal(means[j], cov).logpdf(x)
        prior += 0.5 * gamma**2 * np.sum(q * q) - m * np.log(np.linalg.det(q)) - c
    return float(np.sum(logsumexp(comp, axis=1)) + prior)


def test_gmm_value_matches_independent_formula() -> None:
    mod = _module("gmm")
    args = _tiny_args(mod)
    # ADBench truncates pi to 3.14159265359, a relative change near 1e-13 of the value
    assert _jitted("gmm")(*args) == pytest.approx(_gmm_reference(*args), rel=1e-10)


@pytest.mark.parametrize("name", NAMES)
def test_interface(name: str) -> None:
    mod = _module(name)
    for quick in (True, False):
        for size in mod.sizes(quick):
            assert size.label
    args = mod.make_args(mod.sizes(quick=True)[0])
    again = mod.make_args(mod.sizes(quick=True)[0])
    for a, b in zip(args, again, strict=True):
        if isinstance(a, np.ndarray):
            assert a.flags.c_contiguous and a.dtype in (np.float64, np.int64)
            np.testing.assert_array_equal(a, b)
        else:
            assert type(a) in (int, float) and a == b
    assert mod.C_SOURCE.exists() and mod.NAME in mod.C_SOURCE.read_text()
