"""Containers through the API, end to end: `enzyme_py.jit` and `enzyme_py.grad` of functions
of dicts, lists of tuples and NamedTuples (the front end compiles them for `Tree` types),
checked against plain Python and against `jax.grad` of the same function run on
`jax.numpy`."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.testing import numpy_as_jax
from tests.frontend import test_trees as T
from tests.frontend.tree_harness import same

CASES = [
    (T.dict_leaves, (T.PARAMS, T.X)),
    (T.calls_with_subtrees, (T.PARAMS, T.X)),
    (T.calls_with_whole_tree, (T.PARAMS, T.X)),
    (T.mlp_enumerate, (T.LAYERS, T.X)),
    (T.dict_items_and_values, ({"a": T.RNG.random(3), "b": T.RNG.random((2, 2))},)),
    (T.namedtuple_unpacks, (T.Point(2.5, T.RNG.random(3)),)),
    (T.l2_penalty, ({"a": T.RNG.random(3), "b": T.RNG.random((2, 2)), "c": 2.0},)),
    (T.layer_norms, (T.LAYERS,)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_jit_of_containers(f, args) -> None:
    assert same(ez.jit(f)(*args), f(*args))


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_grad_of_containers_equals_jax(f, args) -> None:
    ours = ez.grad(f)(*args)
    with jax.enable_x64(True):
        theirs = jax.grad(numpy_as_jax(f))(*jax.tree_util.tree_map(jnp.asarray, args))
    ours_leaves, ours_tree = jax.tree_util.tree_flatten(ours)
    theirs_leaves, theirs_tree = jax.tree_util.tree_flatten(theirs)
    assert ours_tree == theirs_tree
    for a, b in zip(ours_leaves, theirs_leaves, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-10, atol=1e-12)


def test_jit_of_a_tree_result() -> None:
    got = ez.jit(T.model)(T.PARAMS, T.X)
    assert same(got, T.model(T.PARAMS, T.X))
