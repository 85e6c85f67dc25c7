"""Each derivative form differentiates only the operands it needs (`active`): data a loss
closes over gets no tangent and no cotangent, and mixed choices of argnums in first and
second derivatives match jax.numpy."""

from __future__ import annotations

import jax
import jax.extend.core
import jax.numpy as jnp
import numpy as np

import enzyme_py.jax as ezjax


def model(w, b, x, y):
    s = 0.0
    for i in range(x.shape[0]):
        r = np.tanh(x[i] @ w + b) - y[i]
        s += r * r
    return s / x.shape[0]


def model_jnp(w, b, x, y):
    return jnp.mean((jnp.tanh(x @ w + b) - y) ** 2)


M = ezjax.primitive(model)
rng = np.random.default_rng(1)
W, B = rng.normal(size=3), 0.2
X, Y = rng.normal(size=(50, 3)), rng.normal(size=50)


def same(run, rtol=1e-10):
    got, want = run(M), run(model_jnp)
    for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-12)


def _calls(f, *args):
    jaxpr = jax.make_jaxpr(f)(*args)
    out = []

    def walk(jp):
        for e in jp.eqns:
            if e.primitive.name == "enzyme_py_call":
                out.append(e)
            for sub in jax.extend.core.jaxprs_in_params(e.params):
                walk(sub)

    walk(jaxpr.jaxpr)
    return out


def test_grad_differentiates_only_the_parameters():
    loss = lambda w, b: M(w, b, X, Y)  # noqa: E731
    calls = _calls(jax.grad(loss, argnums=(0, 1)), W, B)
    (vjp,) = [e for e in calls if e.params["kind"] == "vjp"]
    assert vjp.params["active"] == (0, 1)
    assert [v.aval.shape for v in vjp.outvars] == [(3,), ()]  # no cotangent for x or y
    same(lambda f: jax.jit(jax.grad(lambda w, b: f(w, b, X, Y), argnums=(0, 1)))(W, B))
    (only_w,) = [e for e in _calls(jax.grad(loss), W, B) if e.params["kind"] == "vjp"]
    assert only_w.params["active"] == (0,)


def test_mixed_tangents_and_argnums():
    same(lambda f: jax.jvp(lambda w, x: f(w, B, x, Y), (W, X), (W, jnp.zeros_like(X))))
    same(lambda f: jax.jvp(lambda x: f(W, B, x, Y), (X,), (jnp.ones_like(X),)))
    same(lambda f: jax.jacfwd(f, argnums=(1, 3))(W, B, X, Y))
    same(lambda f: jax.jacrev(f, argnums=(0, 2))(W, B, X, Y))


def test_second_derivatives_across_operand_sets():
    same(lambda f: jax.jacfwd(jax.grad(f, argnums=0), argnums=1)(W, B, X, Y))
    same(lambda f: jax.jacrev(jax.grad(f, argnums=1), argnums=0)(W, B, X, Y))
    same(lambda f: jax.hessian(f, argnums=(0, 1))(W, B, X, Y))
    same(lambda f: jax.jacfwd(jax.jacfwd(f, argnums=0), argnums=1)(W, B, X, Y))
    same(lambda f: jax.jacrev(jax.jacfwd(f, argnums=1), argnums=0)(W, B, X, Y))
    same(lambda f: jax.vmap(jax.hessian(f), in_axes=(0, None, None, None))(
        jnp.stack([W, 2 * W]), B, X, Y))


def per_example(w, b, x, y):
    r = np.tanh(x @ w + b) - y
    return r * r


def per_example_jnp(w, b, x, y):
    return (jnp.tanh(x @ w + b) - y) ** 2


P = ezjax.primitive(per_example)


def test_cotangents_of_unbatched_operands_are_summed_by_the_handler():
    def loss(f):
        return lambda w, b: jnp.mean(jax.vmap(f, in_axes=(None, None, 0, 0))(w, b, X, Y))

    (vjp,) = [e for e in _calls(jax.grad(loss(P), argnums=(0, 1)), W, B)
              if e.params["kind"] == "vjp"]
    assert [v.aval.shape for v in vjp.outvars] == [(3,), ()]  # not one per example
    for run in (lambda f: jax.jit(jax.grad(loss(f), argnums=(0, 1)))(W, B),
                lambda f: jax.hessian(loss(f), argnums=(0, 1))(W, B),
                lambda f: jax.jacfwd(jax.grad(loss(f)), argnums=1)(W, B)):
        got, want = run(P), run(per_example_jnp)
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)


def test_nested_batches_sum_only_the_axes_an_operand_lacks():
    ws = jnp.stack([W, -W])  # outer batch over w, inner over the data

    def loss(f):
        inner = jax.vmap(f, in_axes=(None, None, 0, 0))
        return lambda ws, b: jnp.sum(jnp.sin(jax.vmap(inner, in_axes=(0, None, None, None))(
            ws, b, X, Y)))

    for argnums in (0, 1, (0, 1)):
        got = jax.jit(jax.grad(loss(P), argnums=argnums))(ws, B)
        want = jax.grad(loss(per_example_jnp), argnums=argnums)(ws, B)
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want), strict=True):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)
