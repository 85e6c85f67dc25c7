"""Second derivatives of `enzyme_py.jax.primitive` in every order of jacfwd/jacrev/grad/jvp,
against the same functions in jax.numpy (forward over forward comes from the hvp form:
`enzyme_py.jax.second_order`)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import enzyme_py.jax as ezjax


def energy(x, k):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += k * (x[i + 1] - x[i]) ** 2 + x[i] ** 3
    return s


def energy_jnp(x, k):
    return jnp.sum(k * (x[1:] - x[:-1]) ** 2 + x[:-1] ** 3)


def wave(x):
    return np.sin(x) * x[0]


def wave_jnp(x):
    return jnp.sin(x) * x[0]


def layer(W, x, b):
    return np.tanh(W @ x + b), np.sum(x * x) * b


def layer_jnp(W, x, b):
    return jnp.tanh(W @ x + b), jnp.sum(x * x) * b


E, S, L = ezjax.primitive(energy), ezjax.primitive(wave), ezjax.primitive(layer)
X = np.array([0.5, -1.0, 2.0, 0.25])
V = np.array([0.3, 1.0, -0.5, 2.0])
W = np.arange(12.0).reshape(3, 4) / 10 - 0.5


def same(run, f, f_jnp, rtol=1e-10):
    got, want = run(f), run(f_jnp)
    assert jax.tree.structure(got) == jax.tree.structure(want)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-12)


def test_jacfwd_of_jacfwd_and_jvp_of_jvp():
    same(lambda f: jax.jit(jax.jacfwd(jax.jacfwd(f)))(X, 2.0), E, energy_jnp)
    same(lambda f: jax.jacfwd(jax.jacfwd(f))(X), S, wave_jnp)
    inner = lambda f: lambda x: jax.jvp(f, (x, 2.0), (V, 0.5))[1]  # noqa: E731
    same(lambda f: jax.jvp(inner(f), (X,), (jnp.arange(4.0),)), E, energy_jnp)


def test_every_order_of_two_jacobians():
    for outer in (jax.jacfwd, jax.jacrev):
        for inner in (jax.jacfwd, jax.jacrev):
            same(lambda f: outer(inner(f))(X), S, wave_jnp)  # noqa: B023
    same(lambda f: jax.hessian(f)(X), S, wave_jnp)


def test_grad_of_grad():
    same(lambda f: jax.grad(jax.grad(lambda k: f(X, k)))(2.0), E, energy_jnp)
    same(lambda f: jax.jit(jax.grad(lambda x: jnp.sum(jax.grad(f)(x, 2.0) ** 2)))(X),
         E, energy_jnp)


def test_transpose_of_hvp_in_its_cotangent():
    def run(f):
        def h(c):
            return jax.jvp(lambda x: jax.vjp(f, x)[1](c)[0], (X,), (V,))[1]

        return jax.grad(lambda c: jnp.sum(jnp.cos(h(c))))(V[::-1])

    same(run, S, wave_jnp)


def test_several_operands_and_results_batched_and_float32():
    same(lambda f: jax.jacfwd(jax.jacfwd(f, argnums=(1, 2)), argnums=(0, 1, 2))(W, X, 0.3),
         L, layer_jnp)
    same(lambda f: jax.jit(jax.jacrev(jax.jacfwd(f, argnums=(1, 2)), argnums=(1, 2)))(W, X, 0.3),
         L, layer_jnp)
    xs = jnp.stack([X, 2 * X, -X])
    same(lambda f: jax.vmap(jax.jacfwd(jax.jacfwd(f)), in_axes=(0, None))(xs, 2.0),
         E, energy_jnp)
    ks = jnp.array([1.0, 2.0])
    same(lambda f: jax.jacfwd(jax.jacfwd(lambda x: jax.vmap(f, in_axes=(None, 0))(x, ks)))(X),
         E, energy_jnp)
    x32 = X.astype(np.float32)
    got = jax.jacfwd(jax.jacfwd(S))(x32)
    assert got.dtype == jnp.float32
    np.testing.assert_allclose(got, jax.jacfwd(jax.jacfwd(wave_jnp))(x32), rtol=1e-5,
                               atol=1e-6)
