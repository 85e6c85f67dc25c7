"""Pytree arguments and results at the API, against JAX on the same calls: dicts, tuples,
lists, NamedTuples and nested combinations of arrays and floats, in reverse and forward mode;
dataclasses (not pytrees in JAX unless registered) against the NamedTuple form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import jax
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.testing import check_grad, numpy_as_jax

jax.config.update("jax_enable_x64", True)

RNG = np.random.default_rng(11)


class Affine(NamedTuple):
    W: np.ndarray
    b: np.ndarray


@dataclass
class Scaled:
    w: np.ndarray
    scale: float


def mlp(params, x):
    h = np.tanh(params["l1"]["W"] @ x + params["l1"]["b"])
    return np.sum((params["l2"]["W"] @ h + params["l2"]["b"]) ** 2) * params["scale"]


def layers(ps, x):
    for W, b in ps:
        x = np.tanh(W @ x + b)
    return np.sum(x * x)


def affine(p, x):
    return np.sum(np.sin(p.W @ x + p.b))


def scaled(p, x):
    return np.sum(p.w * x) * p.scale


def predict(params, x):
    return np.tanh(params["l1"]["W"] @ x + params["l1"]["b"])


def calls_helper(params, x, y):
    return np.sum((predict(params, x) - y) ** 2)


def tree_out(p, x):
    return {"y": np.sin(p["a"] * x), "s": np.sum(p["a"] * x) * p["c"]}


def loss_with_metrics(params, x):
    r = params["W"] @ x
    loss = np.sum(r * r)
    return loss, {"max": np.max(r), "r": r}


def _params():
    return {"l1": {"W": RNG.random((5, 3)), "b": RNG.random(5)},
            "l2": {"W": RNG.random((2, 5)), "b": RNG.random(2)}, "scale": 0.7}


def _same(a, b, rtol=1e-10, atol=1e-12):
    ta, tb = jax.tree_util.tree_structure(a), jax.tree_util.tree_structure(b)
    assert ta == tb, (ta, tb)
    for p, q in zip(jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b), strict=True):
        assert np.shape(p) == np.shape(q)
        np.testing.assert_allclose(np.asarray(p, dtype=float), np.asarray(q, dtype=float),
                                   rtol=rtol, atol=atol)


X = RNG.random(3)


def test_grad_of_nested_dict_matches_jax():
    params = _params()
    ours = ez.grad(mlp)(params, X)
    assert set(ours) == {"l1", "l2", "scale"} and isinstance(ours["scale"], float)
    _same(ours, jax.grad(numpy_as_jax(mlp))(params, X))


def test_value_and_grad_argnums_tuple_with_trees():
    params = _params()
    ours = ez.value_and_grad(mlp, argnums=(0, 1))(params, X)
    _same(ours, jax.value_and_grad(numpy_as_jax(mlp), argnums=(0, 1))(params, X))


@pytest.mark.parametrize("container", [list, tuple])
def test_list_of_layer_tuples(container):
    ps = container([(RNG.random((4, 3)), RNG.random(4)), (RNG.random((2, 4)), RNG.random(2))])
    ours = ez.grad(layers)(ps, X)
    assert type(ours) is container and all(type(layer) is tuple for layer in ours)
    _same(ours, jax.grad(numpy_as_jax(layers))(ps, X))


def test_namedtuple_argument():
    p = Affine(RNG.random((2, 3)), RNG.random(2))
    ours = ez.grad(affine)(p, X)
    assert isinstance(ours, Affine)
    _same(ours, jax.grad(numpy_as_jax(affine))(p, X))


def test_dataclass_argument_matches_the_namedtuple_form():
    p = Scaled(RNG.random(3), 1.5)
    ours = ez.grad(scaled)(p, X)
    assert isinstance(ours, Scaled)
    np.testing.assert_allclose(ours.w, X * 1.5)
    assert ours.scale == pytest.approx(float(np.sum(p.w * X)))


def test_tree_passed_on_to_a_helper():
    params = _params()
    y = RNG.random(5)
    check_grad(calls_helper, params, X, y)
    check_grad(calls_helper, params, X, y, argnums=(0, 1))


def test_check_grad_compares_trees_and_finite_differences():
    assert check_grad(mlp, _params(), X)["l1"]["W"].shape == (5, 3)


def test_structure_is_part_of_the_specialization_key():
    g = ez.grad(mlp)
    a = _params()
    b = {**_params(), "l1": {"W": RNG.random((5, 3)), "b": RNG.random(5)}}
    _same(g(a, X), jax.grad(numpy_as_jax(mlp))(a, X))
    _same(g(b, X), jax.grad(numpy_as_jax(mlp))(b, X))
    # another structure (a NamedTuple with the same leaves) compiles its own version
    ps = [Affine(RNG.random((4, 3)), RNG.random(4))]
    _same(ez.grad(layers)(ps, X), jax.grad(numpy_as_jax(layers))(ps, X))


def test_jit_returns_a_dict():
    p = {"a": RNG.random(3), "c": 2.0}
    ours = ez.jit(tree_out)(p, X)
    _same(ours, tree_out(p, X))
    assert set(ours) == {"y", "s"}


def test_vjp_of_tree_result_and_tree_arguments():
    p = {"a": RNG.random(3), "c": 2.0}
    value, pull = ez.vjp(tree_out, p, X)
    tvalue, tpull = jax.vjp(numpy_as_jax(tree_out), p, X)
    _same(value, tvalue)
    ct = {"y": RNG.random(3), "s": 0.3}
    _same(pull(ct), tpull(ct))


def test_grad_has_aux_with_a_dict_of_metrics():
    p = {"W": RNG.random((4, 3))}
    ours = ez.grad(loss_with_metrics, has_aux=True)(p, X)
    _same(ours, jax.grad(numpy_as_jax(loss_with_metrics), has_aux=True)(p, X))
    assert isinstance(ours[1]["max"], float)


def test_jvp_with_tree_tangents():
    p = {"a": RNG.random(3), "c": 2.0}
    t = {"a": RNG.random(3), "c": 0.5}
    ours = ez.jvp(tree_out, (p, X), (t, np.zeros(3)))
    _same(ours, jax.jvp(numpy_as_jax(tree_out), (p, X), (t, np.zeros(3))))


def test_jvp_tangent_structure_must_match():
    p = {"a": RNG.random(3), "c": 2.0}
    with pytest.raises(ValueError, match="structure"):
        ez.jvp(tree_out, (p, X), ({"a": X}, X))


@pytest.mark.parametrize("which", ["jacfwd", "jacrev"])
def test_jacobian_of_tree_to_tree(which):
    p = {"a": RNG.random(3), "c": 2.0}
    ours = getattr(ez, which)(tree_out)(p, X)
    _same(ours, getattr(jax, which)(numpy_as_jax(tree_out))(p, X))


def test_hessian_of_a_tree():
    p = {"a": RNG.random(3), "c": 2.0}

    def f(p, x):
        return np.sum(np.sin(p["a"] * x)) * p["c"] ** 2

    ours = ez.hessian(_module_level_hessian_f)(p, X)
    _same(ours, jax.hessian(numpy_as_jax(_module_level_hessian_f))(p, X), rtol=1e-9)
    del f


def _module_level_hessian_f(p, x):
    return np.sum(np.sin(p["a"] * x)) * p["c"] ** 2


def test_hvp_with_tree_tangent():
    p = {"a": RNG.random(3), "c": 2.0}
    t = {"a": RNG.random(3), "c": 1.0}
    ours = ez.hvp(_module_level_hessian_f, (p, X), (t,), argnums=0)
    theirs = jax.jvp(jax.grad(numpy_as_jax(_module_level_hessian_f)), (p, X),
                     (t, np.zeros(3)))[1]
    _same(ours, theirs)


def test_integer_leaf_differentiated_is_a_type_error():
    with pytest.raises(TypeError, match="only float"):
        ez.grad(scaled)(Scaled(RNG.random(3), 2), X)


def test_none_leaves_and_empty_containers():
    def takes_none(p, x):
        return np.sum(p["w"] * x)

    p = {"w": RNG.random(3), "unused": None}
    ours = ez.grad(_takes_none)(p, X)
    assert ours["unused"] is None
    np.testing.assert_allclose(ours["w"], X)
    del takes_none


def _takes_none(p, x):
    return np.sum(p["w"] * x)


def test_unsortable_dict_keys_are_a_clear_error():
    with pytest.raises(TypeError, match="sorted"):
        ez.grad(_takes_none)({"w": X, 1: 2.0}, X)
