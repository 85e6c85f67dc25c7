"""NumPy stand-ins of `frontend/numpy_prelude_signals.py`: values as NumPy's, gradients as
JAX's (the same source with jax.numpy), string modes chosen while compiling."""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.testing import numpy_as_jax
from tests.frontend.against_numpy_and_jax import module_copy

RNG = np.random.default_rng(1)
X, Y, M = RNG.uniform(0.1, 1.0, 6), RNG.standard_normal(4), RNG.standard_normal((3, 5))
XN = np.where(RNG.uniform(size=6) > 0.6, np.nan, X)

def convolve(x, y):
    return (np.sum(np.convolve(x, y) ** 2)
            + np.sum(np.convolve(x, y, 'same') * x)
            + np.sum(np.convolve(y, x, mode='same') ** 2)
            + np.sum(np.convolve(x, y, 'valid') ** 2)
            + np.sum(np.convolve(y, x, 'valid'))
            + np.sum(np.convolve(x, y[:3], 'same') ** 2))


def correlate(x, y):
    return (np.sum(np.correlate(x, y) ** 2)
            + np.sum(np.correlate(x, y, 'full') * np.arange(9.0))
            + np.sum(np.correlate(y, x, 'same') * np.arange(6.0))
            + np.sum(np.correlate(y, x, 'full') * np.arange(9.0)))


def meshgrid(x, y):
    return (np.sum(np.meshgrid(x, y)[0] * np.meshgrid(x, y)[1] ** 2)
            + np.sum(np.meshgrid(x, y, indexing='ij')[0] ** 2 * np.meshgrid(x, y, indexing='ij')[1]))


def differences(x, y):
    return (np.sum(np.gradient(x) ** 2)
            + np.sum(np.gradient(y, 0.5) * y)
            + np.sum(np.ediff1d(x) ** 2)
            + np.sum(np.cumulative_sum(x) ** 2))


def matrices(x, y):
    return (np.sum(np.vander(x) * 0.5)
            + np.sum(np.vander(y, 3, True) ** 2)
            + np.sum(np.tri(6) @ x)
            + np.sum(np.tri(4, 6, -1) @ x)
            + np.sum(np.diagflat(x) ** 2)
            + np.sum(np.diagflat(y, 1) @ np.ones(5))
            + np.sum(np.diagflat(y, -2) @ np.ones(6)))


def elementwise(x, y):
    return (np.sum(np.sinc(x - 0.5) * y[0])
            + np.sum(np.sinc(np.zeros(2) * x[0]))
            + np.sum(np.fix(x * 3 - 1.5) * x)
            + np.sum(np.append(x, y) ** 2)
            + np.sum(np.append(y, 2.0) ** 2))


def statistics(x, y):
    return (np.sum(np.cov(x) ** 2)
            + np.cov(y)
            + np.sum(np.cov(y[:5], x[0]))
            + np.sum(np.cov(x, bias=True))
            + np.sum(np.cov(x, ddof=0))
            + np.sum(np.corrcoef(x) ** 2)
            + np.sum(np.corrcoef(x[0], x[1])))


def nan_aware(x, y):
    return (np.nanvar(x)
            + np.nanstd(x, ddof=1)
            + np.nanprod(x)
            + np.sum(np.nancumsum(x) * y[0])
            + np.sum(np.nan_to_num(x) * y[1]))


CASES = {"convolve": (convolve, (X, Y)), "correlate": (correlate, (X, Y)), "meshgrid": (meshgrid, (X, Y)), "differences": (differences, (X, Y)), "matrices": (matrices, (X, Y)), "elementwise": (elementwise, (X, Y)), "statistics": (statistics, (M, X)), "nan_aware": (nan_aware, (XN, Y))}


def _jax_numpy() -> types.ModuleType:
    """jax.numpy with np.fix as trunc (JAX removed fix)."""
    return module_copy(jnp, fix=jnp.trunc)


@pytest.mark.parametrize("name", list(CASES))
def test_values_are_numpy_s_and_gradients_jax_s(name) -> None:
    f, args = CASES[name]
    assert ez.jit(f)(*args) == pytest.approx(f(*args), rel=1e-13)
    got = ez.grad(f, argnums=(0, 1))(*args)
    with jax.enable_x64(True):
        want = jax.grad(numpy_as_jax(f, _jax_numpy()), argnums=(0, 1))(*args)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, np.asarray(b), rtol=1e-12, atol=1e-14)


def convolved(a, v, mode):
    return np.convolve(a, v, mode)


def test_an_unknown_mode_raises_numpy_s_error() -> None:
    with pytest.raises(ValueError, match="mode must be one of 'valid', 'same', or 'full'"):
        ez.jit(convolved)(X, Y, "middle")


def three_grids(x):
    return np.sum(np.meshgrid(x, x, x)[0])


def cov_of_a_row(m):
    return np.cov(m)


def test_what_the_stand_ins_cannot_answer_is_refused() -> None:
    with pytest.raises(FrontendError, match="np.meshgrid of more than two arrays"):
        ez.jit(three_grids)(X)
    with pytest.raises(ValueError, match="np.cov of a one-row matrix is a number"):
        ez.jit(cov_of_a_row)(M[:1])
