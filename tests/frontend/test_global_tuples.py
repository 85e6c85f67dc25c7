"""Module-level tuple constants (`SHAPE = (2, 4)`) read by compiled functions as the literal
they hold: shapes, repetition counts, axes, loops over them; a local of the same name keeps
Python's meaning; a changed constant is seen by the persistent cache."""

from __future__ import annotations

import ast
import collections

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.global_tuples import inline_tuple_constants, is_constant_tuple
from tests.frontend.against_numpy_and_jax import check, refused

SHAPE = (2, 4)
REPS = (2, 1)
WEIGHTS = (0.5, 2.0, -1.0)
PAIRS = ((0, 1), (1, 3))
AXES = (0, 1)
NAMES = ("a", "b")


def shapes_and_repeats(x):
    z = np.ones(SHAPE)
    t = np.tile(x, REPS)
    return np.sum(z * x) + np.sum(t ** 2) + np.sum(x.reshape(SHAPE)[1] ** 3)


def loops_over_constants(x):
    s = 0.0
    for k, w in enumerate(WEIGHTS):
        s += w * np.sum(np.sin(x[k % 2]))
    for p in PAIRS:
        s += x[0, p[0]] * x[1, p[1]]
    return s + np.sum(np.exp(x), axis=AXES)


def local_shadows_global(x, SHAPE):  # noqa: N803 (the parameter shadows the global)
    return SHAPE * np.sum(x * x)


def assigned_local_shadows_global(x):
    REPS = 3.0  # noqa: N806
    return REPS * np.sum(x)


X = np.arange(1.0, 9.0).reshape(2, 4) / 7


@pytest.mark.parametrize("f", [shapes_and_repeats, loops_over_constants])
def test_tuple_constants_match_numpy_and_jax(f) -> None:
    check(f, X.copy())


def test_a_local_of_the_same_name_is_not_replaced() -> None:
    assert ez.jit(local_shadows_global)(X, 3.0) == pytest.approx(3.0 * np.sum(X * X))
    assert ez.grad(local_shadows_global, argnums=1)(X, 3.0) == pytest.approx(np.sum(X * X))
    assert ez.jit(assigned_local_shadows_global)(X) == pytest.approx(3.0 * np.sum(X))


def test_a_tuple_of_other_things_is_still_refused() -> None:
    def uses_names(x):
        return np.sum(x) + len(NAMES)

    refused(uses_names, X, match="global 'NAMES' is a tuple")


def test_only_number_tuples_are_constants() -> None:
    assert is_constant_tuple((1, 2.0, True, (3, (4,))))
    assert is_constant_tuple(())
    assert not is_constant_tuple((1, "a"))
    assert not is_constant_tuple((np.float64(1.0),))  # (a NumPy scalar: not a literal)
    assert not is_constant_tuple([1, 2])
    assert not is_constant_tuple(collections.namedtuple("P", "a b")(1, 2))  # (a record)


def test_the_parsed_definition_is_not_changed() -> None:
    fdef = ast.parse("def f(x):\n    return np.zeros(S) + x\n").body[0]
    assert isinstance(fdef, ast.FunctionDef)
    before = ast.dump(fdef)
    out, replaced = inline_tuple_constants(fdef, {"S": (2, 3), "np": np})
    assert replaced == [("S", (2, 3))] and out is not fdef
    assert ast.dump(fdef) == before
    assert "Tuple(elts=[Constant(value=2), Constant(value=3)]" in ast.dump(out)
    same, none = inline_tuple_constants(fdef, {"np": np})
    assert same is fdef and none == []


def test_a_changed_constant_is_a_new_cache_entry(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("ENZYME_PY_CACHE_DIR", str(tmp_path))
    global REPS
    first = ez.jit(shapes_and_repeats, cache=True)(X)
    old = REPS
    try:
        REPS = (3, 1)
        again = ez.jit(shapes_and_repeats, cache=True)(X)
    finally:
        REPS = old
    assert first == pytest.approx(shapes_and_repeats(X))
    REPS = (3, 1)
    try:
        assert again == pytest.approx(shapes_and_repeats(X)) and again != first
    finally:
        REPS = old
