"""JAX transformations of `enzyme_py.jax.primitive`, against the same functions in jax.numpy
and against `enzyme_py`'s own gradients."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
import enzyme_py.jax as ezjax


def energy(x, k):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += k * (x[i + 1] - x[i]) ** 2 + x[i] ** 3
    return s


def energy_jnp(x, k):
    return jnp.sum(k * (x[1:] - x[:-1]) ** 2 + x[:-1] ** 3)


def layer(W, x, b):
    return np.tanh(W @ x + b), np.sum(x * x) * b


def layer_jnp(W, x, b):
    return jnp.tanh(W @ x + b), jnp.sum(x * x) * b


E = ezjax.primitive(energy)
L = ezjax.primitive(layer)
X = np.array([0.5, -1.0, 2.0, 0.25])
W = np.arange(12.0).reshape(3, 4) / 10 - 0.5
B = 0.3


def close(a, b, rtol=1e-10):
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=1e-12)


def loss(W, x, b):
    y, s = L(W, x, b)
    return jnp.sum(y ** 2) + s


def loss_jnp(W, x, b):
    y, s = layer_jnp(W, x, b)
    return jnp.sum(y ** 2) + s


def test_grad_equals_enzyme_py_grad():
    got = jax.jit(jax.grad(E, argnums=(0, 1)))(X, 3.0)
    want = ez.grad(energy, argnums=(0, 1))(X, 3.0)
    close(got, want, rtol=1e-13)


def test_grad_and_value_and_grad_of_arrays_and_scalars():
    close(jax.grad(loss, argnums=(0, 1, 2))(W, X, B),
          jax.grad(loss_jnp, argnums=(0, 1, 2))(W, X, B))
    close(jax.jit(jax.value_and_grad(loss, argnums=1))(W, X, B),
          jax.value_and_grad(loss_jnp, argnums=1)(W, X, B))


def test_vjp_of_array_results():
    y, pull = jax.vjp(lambda W, x: L(W, x, B), W, X)
    y_ref, pull_ref = jax.vjp(lambda W, x: layer_jnp(W, x, B), W, X)
    ct = (jnp.array([1.0, -2.0, 0.5]), jnp.array(3.0))
    close(y, y_ref)
    close(pull(ct), pull_ref(ct))


def test_jvp_and_linearize():
    tangents = (jnp.ones_like(W), jnp.arange(4.0), 0.5)
    close(jax.jvp(loss, (W, X, B), tangents), jax.jvp(loss_jnp, (W, X, B), tangents))
    value, f_lin = jax.linearize(lambda x: L(W, x, B), X)
    ref_value, ref_lin = jax.linearize(lambda x: layer_jnp(W, x, B), X)
    close(value, ref_value)
    close(f_lin(jnp.arange(4.0)), ref_lin(jnp.arange(4.0)))
    close(jax.jit(f_lin)(jnp.ones(4)), ref_lin(jnp.ones(4)))


def test_jacfwd_and_jacrev():
    f = lambda x: L(W, x, B)[0]  # noqa: E731
    f_ref = lambda x: layer_jnp(W, x, B)[0]  # noqa: E731
    close(jax.jacfwd(f)(X), jax.jacfwd(f_ref)(X))
    close(jax.jit(jax.jacrev(f))(X), jax.jacrev(f_ref)(X))
    close(jax.jacrev(E)(X, 2.0), jax.grad(energy_jnp)(X, 2.0))


def test_hessian_forward_over_reverse_and_reverse_over_reverse():
    h = jax.jit(jax.hessian(E))(X, 2.0)
    close(h, jax.hessian(energy_jnp)(X, 2.0))
    close(h, ez.hessian(energy)(X, 2.0), rtol=1e-12)
    close(jax.jacrev(jax.grad(E))(X, 2.0), h)
    close(jax.hessian(loss, argnums=(1, 2))(W, X, B),
          jax.hessian(loss_jnp, argnums=(1, 2))(W, X, B))
    close(jax.hessian(E, argnums=1)(X, 2.0), 0.0)


def test_vmap_in_axes_none_and_nested():
    xs = jnp.stack([X, 2 * X, -X])
    ks = jnp.array([1.0, 2.0, 3.0])
    close(jax.vmap(E, in_axes=(0, None))(xs, 2.0), jax.vmap(energy_jnp, in_axes=(0, None))(xs, 2.0))
    close(jax.vmap(E, in_axes=(None, 0))(X, ks), jax.vmap(energy_jnp, in_axes=(None, 0))(X, ks))
    close(jax.jit(jax.vmap(E))(xs, ks), jax.vmap(energy_jnp)(xs, ks))
    xss = jnp.stack([xs, xs * 0.5])  # (2, 3, 4): outer over rows, inner over xs
    nested = jax.vmap(jax.vmap(E, in_axes=(0, None)), in_axes=(0, 0))
    close(nested(xss, ks[:2]), jax.vmap(jax.vmap(energy_jnp, in_axes=(0, None)))(xss, ks[:2]))
    # batch axis not in front, several array results
    xt = jnp.stack([X, 2 * X], axis=1)
    close(jax.vmap(lambda x: L(W, x, B), in_axes=1)(xt),
          jax.vmap(lambda x: layer_jnp(W, x, B), in_axes=1)(xt))


def test_vmap_composes_with_derivatives():
    xs = jnp.stack([X, 2 * X, -X])
    close(jax.vmap(jax.grad(E), in_axes=(0, None))(xs, 2.0),
          jax.vmap(jax.grad(energy_jnp), in_axes=(0, None))(xs, 2.0))
    # the cotangent of an unbatched operand is summed over the batch
    total = lambda k: jnp.sum(jax.vmap(E, in_axes=(0, None))(xs, k))  # noqa: E731
    total_ref = lambda k: jnp.sum(jax.vmap(energy_jnp, in_axes=(0, None))(xs, k))  # noqa: E731
    close(jax.jit(jax.grad(total))(2.0), jax.grad(total_ref)(2.0))
    close(jax.vmap(jax.hessian(E), in_axes=(0, None))(xs, 2.0),
          jax.vmap(jax.hessian(energy_jnp), in_axes=(0, None))(xs, 2.0))


def test_float32():
    x32 = X.astype(np.float32)
    g = jax.jit(jax.grad(E))(x32, np.float32(2.0))
    assert g.dtype == jnp.float32
    close(g, jax.grad(energy_jnp)(x32, np.float32(2.0)), rtol=1e-5)


def test_third_derivatives_are_a_clear_error():
    with pytest.raises(NotImplementedError, match="third derivatives are not implemented"):
        jax.jacfwd(jax.hessian(E))(X, 2.0)
