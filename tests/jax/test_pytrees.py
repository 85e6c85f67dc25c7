"""Pytree arguments and results of `enzyme_py.jax.primitive` (dicts, tuples, lists,
NamedTuples, nested), against the same functions in jax.numpy."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import enzyme_py.jax as ezjax


class Layer(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def mlp(params, x):
    h = x
    for W, b in params["layers"]:
        h = np.tanh(W @ h + b)
    return np.sum(h * h) * params["scale"]


def mlp_jnp(params, x):
    h = x
    for W, b in params["layers"]:
        h = jnp.tanh(W @ h + b)
    return jnp.sum(h * h) * params["scale"]


def affine(layer, x):
    return layer.W @ x + layer.b


def affine_jnp(layer, x):
    return layer.W @ x + layer.b


def stats(x, n):
    return {"mean": np.mean(x), "sq": x * x, "pair": (np.sum(x) * n, n + 1)}


def stats_jnp(x, n):
    return {"mean": jnp.mean(x), "sq": x * x, "pair": (jnp.sum(x) * n, n + 1)}


rng = np.random.default_rng(0)
PARAMS = {"layers": [(rng.normal(size=(5, 3)), rng.normal(size=5)),
                     (rng.normal(size=(2, 5)), rng.normal(size=2))], "scale": 0.7}
X = rng.normal(size=3)
LAYER = Layer(rng.normal(size=(4, 3)), rng.normal(size=4))
MLP, AFFINE, STATS = ezjax.primitive(mlp), ezjax.primitive(affine), ezjax.primitive(stats)


def close(a, b, rtol=1e-10):
    assert jax.tree.structure(a) == jax.tree.structure(b)
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=rtol, atol=1e-12)


def test_jit_grad_of_a_dict_of_lists_of_tuples():
    close(jax.jit(MLP)(PARAMS, X), mlp_jnp(PARAMS, X))
    close(jax.jit(jax.grad(MLP))(PARAMS, X), jax.grad(mlp_jnp)(PARAMS, X))
    close(jax.jit(jax.value_and_grad(MLP, argnums=(0, 1)))(PARAMS, X),
          jax.value_and_grad(mlp_jnp, argnums=(0, 1))(PARAMS, X))


def test_namedtuple_argument_jacobians():
    close(AFFINE(LAYER, X), affine_jnp(LAYER, X))
    close(jax.jacrev(AFFINE)(LAYER, X), jax.jacrev(affine_jnp)(LAYER, X))
    close(jax.jacfwd(AFFINE, argnums=1)(LAYER, X), jax.jacfwd(affine_jnp, argnums=1)(LAYER, X))


def test_tree_results_and_static_int_leaves():
    got = jax.jit(lambda x: STATS(x, 3))(X)
    close(got, stats_jnp(X, 3))
    assert got["pair"][1].dtype == jnp.int64
    close(jax.jacrev(lambda x: STATS(x, 2)["sq"])(X), jax.jacrev(lambda x: x * x)(X))
    loss = lambda x: STATS(x, 2)["pair"][0] + STATS(x, 2)["mean"]  # noqa: E731
    close(jax.grad(loss)(X), jax.grad(lambda x: jnp.sum(x) * 2 + jnp.mean(x))(X))


def test_vmap_over_a_tree_and_a_training_step():
    xs = rng.normal(size=(6, 3))

    def batch_loss(p, xs, f):
        return jnp.mean(jax.vmap(f, in_axes=(None, 0))(p, xs))

    close(jax.vmap(MLP, in_axes=(None, 0))(PARAMS, xs),
          jax.vmap(mlp_jnp, in_axes=(None, 0))(PARAMS, xs))

    @jax.jit
    def step(p, xs):
        g = jax.grad(batch_loss)(p, xs, MLP)
        return jax.tree.map(lambda a, b: a - 0.1 * b, p, g)

    want = jax.tree.map(lambda a, b: a - 0.1 * b, PARAMS,
                        jax.grad(batch_loss)(PARAMS, xs, mlp_jnp))
    close(step(PARAMS, xs), want)
