"""Functions that write into their argument arrays: exposed as returning the new values, the
custom call computing them in place (XLA's `input_output_aliases`), with every derivative
form, against the same functions written without mutation in jax.numpy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import enzyme_py.jax as ezjax


def update(x, v, dt):  # writes x, returns nothing: the op returns the new x
    for i in range(x.shape[0]):
        x[i] = x[i] + dt * v[i] * x[i]


def update_jnp(x, v, dt):
    return x + dt * v * x


def squash(x, a, counts):  # writes x (float) and counts (int), returns a value
    for i in range(x.shape[0]):
        x[i] = np.sin(x[i]) * a
        counts[i] = counts[i] + 1
    return np.sum(x)


def squash_jnp(x, a, counts):
    y = jnp.sin(x) * a
    return jnp.sum(y), y, counts + 1


U, Q = ezjax.primitive(update), ezjax.primitive(squash)
X = np.array([0.5, -1.0, 2.0])
V = np.array([1.0, 2.0, 3.0])
C = np.array([0, 5, 7])


def same(run, f, f_jnp):
    got, want = run(f), run(f_jnp)
    assert jax.tree.structure(got) == jax.tree.structure(want)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)


def test_new_values_are_returned_and_the_inputs_kept():
    same(lambda f: jax.jit(f)(X, V, 0.1), U, update_jnp)
    same(lambda f: jax.jit(f)(X, 2.0, C), Q, squash_jnp)
    # x is used again after the call: XLA copies it before the in-place call
    same(lambda f: jax.jit(lambda x: f(x, V, 0.1) + x)(jnp.asarray(X)), U, update_jnp)
    np.testing.assert_array_equal(X, [0.5, -1.0, 2.0])
    text = jax.jit(U).lower(X, V, 0.1).as_text()
    assert "output_operand_aliases" in text and "callback" not in text


def test_reverse_and_forward_derivatives():
    loss = lambda f: lambda x, v: jnp.sum(jnp.cos(f(x, v, 0.1)))  # noqa: E731
    same(lambda f: jax.jit(jax.grad(loss(f), argnums=(0, 1)))(X, V), U, update_jnp)
    same(lambda f: jax.jvp(lambda x, v: f(x, v, 0.1), (X, V), (V, X)), U, update_jnp)
    same(lambda f: jax.jacfwd(f, argnums=(0, 1, 2))(X, V, 0.1), U, update_jnp)
    same(lambda f: jax.jacrev(f, argnums=(0, 1, 2))(X, V, 0.1), U, update_jnp)
    both = lambda f: lambda x, a: f(x, a, C)[0] + jnp.sum(f(x, a, C)[1] ** 2)  # noqa: E731
    same(lambda f: jax.grad(both(f), argnums=(0, 1))(X, 2.0), Q, squash_jnp)


def test_second_derivatives():
    loss = lambda f: lambda x, v: jnp.sum(jnp.sin(f(x, v, 0.1)))  # noqa: E731
    same(lambda f: jax.hessian(loss(f), argnums=(0, 1))(X, V), U, update_jnp)
    same(lambda f: jax.jacfwd(jax.jacfwd(f))(X, V, 0.1), U, update_jnp)


def test_vmap_broadcasts_an_unbatched_written_operand():
    vs = jnp.stack([V, 2 * V])
    same(lambda f: jax.vmap(f, in_axes=(0, None, None))(jnp.stack([X, 2 * X]), V, 0.1),
         U, update_jnp)
    same(lambda f: jax.jit(jax.vmap(f, in_axes=(None, 0, None)))(X, vs, 0.1), U, update_jnp)
    same(lambda f: jax.vmap(jax.grad(lambda x, v: jnp.sum(f(x, v, 0.1) ** 2)),
                            in_axes=(None, 0))(X, vs), U, update_jnp)
    same(lambda f: jax.grad(lambda dt: jnp.sum(jax.vmap(f, in_axes=(None, None, 0))(
        X, V, dt) ** 2))(jnp.array([0.1, 0.2])), U, update_jnp)
