"""`enzyme_py.jax.from_ll`: a C function compiled by clang-22 as a JAX primitive."""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py.jax as ezjax
from enzyme_py.errors import CallError
from tests.conftest import compile_c

SOURCE = """
/* y[i] = a * x[i]^2 (an output array); returns a * sum(y) */
double scale(const double *x, double a, long n, double *y) {
    double s = 0.0;
    for (long i = 0; i < n; i++) { y[i] = a * x[i] * x[i]; s += y[i]; }
    return s * a;
}

void bad(double *x, long n) { x[0] = 1.0; }
"""

X = np.array([1.0, -2.0, 3.0])


def ref(x, a):
    y = a * x * x
    return jnp.sum(y) * a, y


@pytest.fixture(scope="module")
def ll(clang: str, tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("c")
    (d / "scale.c").write_text(SOURCE)
    compile_c(clang, d / "scale.c", d / "scale.ll")
    return d / "scale.ll"


@pytest.fixture(scope="module")
def op(ll: Path):
    return ezjax.from_ll(ll, "scale", ["in", "in", "const", "out"],
                         [jax.ShapeDtypeStruct((3,), jnp.float64)])


def loss(f):
    return lambda x, a: f(x, a)[0] + jnp.sum(f(x, a)[1] ** 2)


def test_value_and_jit(op):
    for got in (op(X, 2.0, 3), jax.jit(op)(X, 2.0, 3)):
        np.testing.assert_allclose(got[0], ref(X, 2.0)[0])
        np.testing.assert_allclose(got[1], ref(X, 2.0)[1])
    text = jax.jit(op).lower(X, 2.0, 3).as_text()
    assert "custom_call @enzyme_py_" in text and "callback" not in text


def test_derivatives(op):
    f, f_ref = loss(lambda x, a: op(x, a, 3)), loss(ref)
    close = np.testing.assert_allclose
    for g, g_ref in zip(jax.grad(f, (0, 1))(X, 2.0), jax.grad(f_ref, (0, 1))(X, 2.0),
                        strict=True):
        close(g, g_ref)
    for t, t_ref in zip(jax.jvp(f, (X, 2.0), (jnp.ones(3), 0.5)),
                        jax.jvp(f_ref, (X, 2.0), (jnp.ones(3), 0.5)), strict=True):
        close(t, t_ref)
    close(jax.hessian(f)(X, 2.0), jax.hessian(f_ref)(X, 2.0))
    xs = jnp.stack([X, 2 * X])
    close(jax.vmap(f, in_axes=(0, None))(xs, 2.0), jax.vmap(f_ref, in_axes=(0, None))(xs, 2.0))


def test_refusals(ll: Path, op):
    with pytest.raises(CallError, match="may write through its input parameter 0"):
        ezjax.from_ll(ll, "bad", ["in", "const"])
    with pytest.raises(CallError, match="has 4 parameters"):
        ezjax.from_ll(ll, "scale", ["in", "in", "out"], [((3,), np.float64)])
    with pytest.raises(CallError, match="no function @nope"):
        ezjax.from_ll(ll, "nope", [])
    with pytest.raises(CallError, match="must be a int64 number"):
        op(X, 2.0, 3.5)
