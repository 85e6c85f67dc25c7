"""The vjp form inside JAX keeps its error record a global until after AD; writing it must not
make the tape cache what the function reads from its operands (it did: a triangular loop's
reads went to a growing tape stream, 2.5x ez.grad's time on GMM)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import enzyme_py as ez
import enzyme_py.jax as ezjax

jax.config.update("jax_enable_x64", True)


def triangular(q, x, d):
    out = np.zeros(d)
    for i in range(d):
        for j in range(i + 1, d):
            out[j] += q[i * d + j] * x[i]
    s = 0.0
    for j in range(d):
        s += out[j] * out[j]
    return s


def test_operand_reads_are_not_taped_because_of_the_error_record() -> None:
    d = 7
    rng = np.random.default_rng(3)
    q, x = rng.standard_normal(d * d), rng.standard_normal(d)
    op = ezjax.primitive(triangular)
    got = jax.jit(jax.grad(lambda q, x: op(q, x, d), argnums=(0, 1)))(jnp.asarray(q),
                                                                      jnp.asarray(x))
    want = ez.grad(triangular, argnums=(0, 1))(q, x, d)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-13)
    vjp = [p for key, p in op._plans.items() if key[0] == "vjp"]
    assert vjp and "enzyme_py.reserve" not in vjp[0].text
