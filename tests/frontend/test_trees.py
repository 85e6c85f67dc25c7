"""Containers (pytrees) in the front end: tree parameters, reading them with constant keys,
unrolled loops over them, passing them to other functions, tree results.

Each case compiles the function for its arguments' `Tree` types with `compile_python`, calls
the native code with the leaves flat (see `tree_harness`) and compares with the same Python
function run on the real containers."""

# ruff: noqa: B007, B905, E731

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest

from enzyme_py.frontend.ftypes import F64, Array, Tree, Tuple
from tests.frontend.tree_harness import compiled, run, same, type_of

RNG = np.random.default_rng(7)


class Point(NamedTuple):
    x: float
    y: np.ndarray


class Pair(NamedTuple):
    a: float
    b: float = 2.0


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray


@dataclass
class Scaled:
    w: np.ndarray
    k: float = 3.0


def _layers(sizes: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(RNG.standard_normal((m, n)), RNG.standard_normal(m))
            for n, m in zip(sizes[:-1], sizes[1:], strict=True)]


LAYERS = _layers([3, 4, 4, 2])
X = RNG.standard_normal(3)
XS = RNG.standard_normal((5, 3))
PARAMS = {"l1": {"W": RNG.standard_normal((4, 3)), "b": RNG.standard_normal(4)},
          "l2": {"W": RNG.standard_normal((2, 4)), "b": RNG.standard_normal(2)},
          "scale": 1.5}


# --- reading --------------------------------------------------------------------------------------


def dict_leaves(params, x):
    h = np.tanh(params["l1"]["W"] @ x + params["l1"]["b"])
    y = params["l2"]["W"] @ h + params["l2"]["b"]
    return np.sum(y * y) * params["scale"]


def bound_layer(params, x):
    layer = params["l1"]
    W, b = layer["W"], layer["b"]
    return np.sum(W @ x + b) + len(params) + len(layer)


def negative_and_slices(t):
    rest = t[1:]
    return t[-1] * 10.0 + rest[0] + len(rest) + len(t[:-1]) + t[::2][1]


def record_fields(p, layer):
    return p.x * np.sum(p.y) + np.sum(layer.W @ layer.b) + p[0]


def namedtuple_unpacks(p):
    x, y = p
    return x * np.sum(y)


def nested_unpacking(t):
    (a, b), c = t
    return a * 100.0 + b * 10.0 + c


def int_leaves(t):
    return t[0] * 3 + t[1] // 2


def float32_leaves(params):
    return np.sum(params["a"]) * params["s"]


def strided_leaf(params):
    W = params["W"]
    return np.sum(W * W) + W[1, 2]


def none_child(d):
    return d["a"] * 2.0


def global_record(x):
    return x * ORIGIN.a + ORIGIN.b  # numbers of a module-level record are constants


ORIGIN = Pair(2.0, 5.0)


# --- loops over containers ------------------------------------------------------------------------


def mlp(params, x):
    h = x
    for W, b in params[:-1]:
        h = np.tanh(W @ h + b)
    W, b = params[-1]
    return W @ h + b


def mlp_enumerate(params, x):
    h = x
    for k, (W, b) in enumerate(params):
        h = W @ h + b
        if k < len(params) - 1:
            h = np.tanh(h)
    return np.sum(h)


def children_of_different_shapes(t):
    s = 0.0
    for p in t:
        s += np.sum(p * p)
    return s


def dict_items_and_values(d):
    s = 0.0
    for k, v in d.items():
        s += np.sum(v) * len(d)
    for v in d.values():
        s += np.sum(v * v)
    return s


def keys_index_others(d, e):
    s = 0.0
    for k in d.keys():
        s += d[k] * e[k]
    for k, v in d.items():
        s -= v * e[k]
    return s + 1.0


def zip_and_enumerate_index(t, u):
    s = 0.0
    for k, a in enumerate(t):
        s += np.sum(a) * u[k]
    for a, c in zip(t, u):
        s += np.sum(a) * c
    return s


def int_keyed_dict(d):
    s = 0.0
    for k, v in d.items():
        s += v * k
    return s


def over_a_literal(x):
    s = 0.0
    for c in [1.0, 2.0, 3.0]:
        s += c * x
    for v in (x, x * 2.0):
        s += v
    return s


def over_array_variables(x):
    W = x * 2.0
    b = x[:2] + 1.0
    s = 0.0
    for p in (W, b):
        s += np.sum(p)
    W = W * 3.0  # the loop's views keep the old buffer alive
    return s + np.sum(W)


def unrolled_inside_range(params, xs):
    out = np.zeros(xs.shape[0])
    for i in range(xs.shape[0]):
        h = xs[i]
        for W, b in params:
            h = np.tanh(W @ h + b)
        out[i] = np.sum(h)
    return out


def loop_variable_after_loop(t):
    for p in t:
        pass
    return p * 2.0


def early_return(t):
    for v in t:
        if v > 1.5:
            return v
    return 0.0


def sgd_update(params, grads, lr):
    return [(W - lr * dW, b - lr * db) for (W, b), (dW, db) in zip(params, grads)]


def dict_update(params, grads, lr):
    return {k: v - lr * grads[k] for k, v in params.items()}


def l2_penalty(params):
    return sum(np.sum(w * w) for w in params.values())


def layer_norms(layers):
    return sum([np.sum(W * W) + np.sum(b * b) for W, b in layers]) + sum((1.0, 2.0))


def sum_of_a_container(t):
    return sum(t)


def loop_over_a_comprehension(t):
    s = 0.0
    for v in [x * 2.0 for x in t]:
        s += v
    return s


# --- calls ----------------------------------------------------------------------------------------


def dense(layer, x):
    return layer["W"] @ x + layer["b"]


def calls_with_subtrees(params, x):
    h = np.tanh(dense(params["l1"], x))
    return np.sum(dense(params["l2"], h)) * params["scale"]


def predict(params, x):
    return dense(params["l2"], np.tanh(dense(params["l1"], x)))


def calls_with_whole_tree(params, x):
    return np.sum(predict(params, x))


def model(params, x):
    y = predict(params, x)
    return {"pred": y, "total": np.sum(y)}


def reads_call_result(params, x):
    out = model(params, x)
    return out["total"] * 2.0 + out["pred"][1]


def passes_literal(params, x):
    return np.sum(dense({"W": params["l1"]["W"], "b": params["l1"]["b"] * 2.0}, x))


def takes_tuple(t):
    return t[0] * t[1]


def passes_flat_tuple(x):
    return takes_tuple((x, x + 1.0))


def local_closure(params, x):
    def f(v):
        return np.sum(params["l1"]["W"] @ v)
    g = lambda v: params["scale"] * v
    return g(f(x) + f(x * 2.0))


def flat_pair(x):
    return x * 2.0, x + 1.0


def tuple_variable(x):
    r = flat_pair(x)
    return r[0] + r[1] + len(r)


def by_keyword(params, x):
    return np.sum(dense(x=x, layer=params["l1"]))


# --- results --------------------------------------------------------------------------------------


def returns_dict(x):
    return {"z": x * 2.0, "a": np.sum(x), "m": {"n": x[0]}}


def returns_list(x):
    return [x, np.sum(x), 3]


def has_aux(params, x):
    y = params["l1"]["W"] @ x
    loss = np.sum(y * y)
    return loss, {"acc": np.sum(y), "y": y}


def returns_records(x):
    p = Pair(x, b=x * 2.0)
    q = Pair(1.0)
    return p, q, Scaled(np.ones(3) * x), Layer(W=np.ones((2, 2)), b=np.zeros(2))


def returns_parameter(params):
    return params


def returns_children(params):
    return params["l1"], params["scale"]


def returns_none_child(x):
    return {"a": x, "b": None}


def unifies_returns(x):
    if x > 0.0:
        return {"a": 1, "b": x}
    return {"a": 2.5, "b": 0.0}


def returns_strided_leaf(params):
    return {"W": params["W"], "T": params["W"].T}


def returns_bound_tree(params, x):
    out = {"h": params["l1"]["W"] @ x}
    x = x * 0.0  # rebinding x after: the tree keeps the value it was built from
    return out, np.sum(x)


CASES = [
    (dict_leaves, (PARAMS, X)),
    (bound_layer, (PARAMS, X)),
    (negative_and_slices, ((1.0, 2.0, 3.0, 4.0),)),
    (record_fields, (Point(1.5, RNG.random(3)), Layer(RNG.random((2, 2)), RNG.random(2)))),
    (namedtuple_unpacks, (Point(2.5, RNG.random(3)),)),
    (nested_unpacking, (((1.0, 2.0), 3.0),)),
    (int_leaves, ((7, 9),)),
    (float32_leaves, ({"a": np.ones(3, np.float32) * 1.5, "s": np.float32(2.0)},)),
    (strided_leaf, ({"W": RNG.random((4, 6))[:, ::2]},)),
    (none_child, ({"a": 1.5, "z": None},)),
    (global_record, (3.0,)),
    (mlp, (LAYERS, X)),
    (mlp_enumerate, (LAYERS, X)),
    (children_of_different_shapes, ((RNG.random((2, 3)), RNG.random(4), 2.0),)),
    (dict_items_and_values, ({"a": RNG.random(3), "b": RNG.random((2, 2))},)),
    (keys_index_others, ({"a": 1.0, "b": 2.0}, {"a": 3.0, "b": 5.0})),
    (zip_and_enumerate_index, ((RNG.random(2), RNG.random((2, 3))), [2.0, 3.0])),
    (int_keyed_dict, ({1: 2.0, 3: 4.0},)),
    (over_a_literal, (1.5,)),
    (over_array_variables, (RNG.random(3),)),
    (unrolled_inside_range, (LAYERS[:2], XS)),
    (loop_variable_after_loop, ((1.0, 2.0),)),
    (early_return, ((1.0, 2.0, 3.0),)),
    (sgd_update, (LAYERS, _layers([3, 4, 4, 2]), 0.1)),
    (dict_update, ({"a": RNG.random(3), "b": RNG.random((2, 2))},
                   {"a": RNG.random(3), "b": RNG.random((2, 2))}, 0.5)),
    (l2_penalty, ({"a": RNG.random(3), "b": RNG.random((2, 2)), "c": 2.0},)),
    (layer_norms, (LAYERS,)),
    (sum_of_a_container, ((1.0, 2.0, 3.0),)),
    (loop_over_a_comprehension, ((1.0, 2.0),)),
    (calls_with_subtrees, (PARAMS, X)),
    (calls_with_whole_tree, (PARAMS, X)),
    (reads_call_result, (PARAMS, X)),
    (passes_literal, (PARAMS, X)),
    (passes_flat_tuple, (1.5,)),
    (local_closure, (PARAMS, X)),
    (tuple_variable, (1.5,)),
    (by_keyword, (PARAMS, X)),
    (model, (PARAMS, X)),
    (returns_dict, (RNG.random(3),)),
    (returns_list, (RNG.random(3),)),
    (has_aux, (PARAMS, X)),
    (returns_records, (2.0,)),
    (returns_parameter, (PARAMS,)),
    (returns_children, (PARAMS,)),
    (returns_none_child, (1.5,)),
    (returns_strided_leaf, ({"W": RNG.random((4, 6))[::2, 1:]},)),
    (returns_bound_tree, (PARAMS, X)),
]


@pytest.mark.parametrize("f, args", CASES, ids=[f"{f.__name__}-{k}" for k, (f, _) in
                                                 enumerate(CASES)])
def test_native_equals_python(f, args) -> None:
    want = f(*copy.deepcopy(args))
    got = run(f, *copy.deepcopy(args))
    assert same(got, want), f"{f.__name__}: got {got!r}, want {want!r}"


# --- ABI and types --------------------------------------------------------------------------------


def test_ir_parameters_are_the_leaves_named_by_path() -> None:
    params = {"w": {"b": np.ones(2), "a": np.ones((2, 3))}, "c": (1.0, np.ones(4)[::2]),
              "n": None}
    module, comp, _ = compiled(lambda_free_sum, params, 2.0)
    fn = comp.function
    names = [a.name for a in fn.args]
    assert names == ["params.c.0", "params.c.1", "params.c.1.shape0", "params.c.1.stride0",
                     "params.w.a", "params.w.a.shape0", "params.w.a.shape1",
                     "params.w.b", "params.w.b.shape0", "x"]
    assert [str(a.type) for a in fn.args] == ["double", "ptr", "i64", "i64", "ptr", "i64",
                                              "i64", "ptr", "i64", "double"]
    assert comp.arg_types[0] == type_of(params)  # the Tree type, kept
    assert comp.param_names == ["params", "x"]


def lambda_free_sum(params, x):
    return np.sum(params["w"]["a"]) + params["c"][0] + x


def test_result_struct_follows_the_tree_order() -> None:
    _, comp, _ = compiled(returns_dict, np.ones(3))
    assert comp.return_type == Tree("dict", (F64, Tree("dict", (F64,), ("n",)), Array(F64, 1)),
                                    ("a", "m", "z"))
    assert str(comp.function.return_type) == "{ double, double, ptr, i64 }"


def test_flat_tuple_results_keep_the_tuple_type() -> None:
    _, comp, _ = compiled(flat_pair, 1.0)
    assert comp.return_type == Tuple((F64, F64))
    _, comp, _ = compiled(returns_children, PARAMS)
    assert isinstance(comp.return_type, Tree) and comp.return_type.kind == "tuple"


def test_a_parameter_leaf_is_the_callers_memory() -> None:
    params = {"W": np.zeros((2, 2)), "b": np.ones(3)}
    python = copy.deepcopy(params)
    got = run(writes_leaves, params, 1.5)
    assert got == writes_leaves(python, 1.5)
    assert same(params, python)


def writes_leaves(params, v):
    params["W"][0, 1] = v
    params["b"][1:] += v
    b = params["b"]
    b[0] = 7.0
    return np.sum(params["W"]) + np.sum(params["b"])


def test_a_returned_parameter_leaf_is_a_copy() -> None:
    params = {"W": RNG.random((3, 3)), "b": RNG.random(3)}
    got = run(returns_parameter, params)
    assert same(got, params)
    got["W"][0, 0] = 99.0
    assert params["W"][0, 0] != 99.0


def test_returns_unify_child_by_child() -> None:
    _, comp, _ = compiled(unifies_returns, 1.0)
    assert comp.return_type == Tree("dict", (F64, F64), ("a", "b"))  # int and float: float
    assert same(run(unifies_returns, 1.5), {"a": 1.0, "b": 1.5})
    assert same(run(unifies_returns, -1.5), {"a": 2.5, "b": 0.0})


def test_each_structure_is_its_own_specialization() -> None:
    a = run(mlp, LAYERS, X)
    b = run(mlp, LAYERS[:2], X)
    assert same(a, mlp(LAYERS, X)) and same(b, mlp(LAYERS[:2], X))
