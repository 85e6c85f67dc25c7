"""Containers used where the front end cannot: each gives a `FrontendError` naming this file
and the line of the construct, saying what was found and what is supported. The functions
are compiled for containers' `Tree` types, never run."""

# ruff: noqa: B007, B018, F841

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pytest

from enzyme_py.frontend import FrontendError, compile_python
from enzyme_py.frontend.ftypes import F64, Tree
from tests.frontend.tree_harness import type_of


class P(NamedTuple):
    W: np.ndarray
    s: float


@dataclass
class D:
    a: float


@dataclass
class Later:
    a: float
    b: float = field(init=False, default=0.0)


def unknown_key(params):
    return params["X"]


def missing_field(p):
    return p.V


def index_out_of_range(t):
    return t[5]


def computed_index(t, i):
    return t[i]


def arithmetic_on_tree(params):
    return params * 2


def tree_where_a_number_is_needed(params):
    return np.sin(params)


def tree_to_numpy(t):
    return np.sum(t)


def bound_in_if(params, c):
    if c > 0:
        layer = params["a"]
    return 1.0


def bound_in_range(params):
    s = 0.0
    for i in range(2):
        layer = params["a"]
        s += layer["x"]
    return s


def rebinds_a_leaf(params):
    params["a"] = 1.0
    return 1.0


def updates_a_leaf(params):
    params["a"] += 1.0
    return 1.0


def rebinds_a_field(p):
    p.s = 1.0
    return 1.0


def breaks_unrolled(t):
    s = 0.0
    for v in t:
        if v > 1.0:
            break
        s += v
    return s


def continues_unrolled(t):
    s = 0.0
    for v in t:
        continue
    return s


def returns_differ(t, c):
    if c > 0:
        return {"a": 1.0}
    return {"b": 1.0}


def key_as_value(d):
    s = 0.0
    for k, v in d.items():
        s += k
    return s


def key_after_loop(d):
    for k, v in d.items():
        pass
    return k


def unpacks_wrong_count(t):
    a, b = t
    return a


def unpacks_a_dict(d):
    a, b = d
    return a


def dict_attribute(d):
    return d.a


def dict_method(d):
    return d.get("a")


def iterates_a_dict(d):
    s = 0.0
    for k in d:
        s += 1.0
    return s


def values_of_a_tuple(t):
    s = 0.0
    for v in t.values():
        s += v
    return s


def reads_after_nested_loop(t):
    s = 0.0
    for i in range(2):
        for p in t:
            s += np.sum(p)
    return s + np.sum(p)


def make_pair(x):
    return (x * 2.0, x + 1.0)


def loops_over_fresh_arrays_in_a_loop(x):
    s = 0.0
    for i in range(2):
        for v in make_pair(x):
            s += np.sum(v)
    return s


def dict_keys_not_constant(x, k):
    return {k: x}


def dict_keys_of_two_types(x):
    return {"a": x, 1: x}


def record_without_a_field(x):
    return P(W=x)


def record_with_post_init_fields(x):
    return Later(x)


def dataclass_subscript(d):
    return d[0]


def slice_of_a_dict(d):
    return d[1:]


def compares_a_tree(t):
    return t < 1.0


def rebound_in_a_nested_loop(t, u):
    s = 0.0
    for i in range(2):
        for p in t:
            s += np.sum(p)
    p = u
    return s


def dict_literal_in_a_branch(x):
    if x > 0.0:
        d = {"a": x}
    return x


def filtered_comprehension(t):
    return [v for v in t if v > 0.0]


def dict_comprehension_key(d):
    return {v: v for k, v in d.items()}


def dict_comprehension_over_range(n):
    return {i: 1.0 for i in range(n)}


def sum_of_a_dict(d):
    return sum(d)


@dataclass(frozen=True)
class Err:
    f: Any
    args: tuple
    at: str  # text at the error's column
    found: str  # regex the message must match
    line_has: str = ""  # a text on the error's line (when `at` is ambiguous)


ARR = np.ones(3)
CASES = [
    Err(unknown_key, ({"a": 1.0, "b": 2.0},), '"X"', r"no key 'X' in this dict; its keys: "
        r"'a', 'b'"),
    Err(missing_field, (P(ARR, 1.0),), "p.V", r"P \(a NamedTuple\) has no field 'V'"),
    Err(index_out_of_range, ((1.0, 2.0),), "5", r"index 5 is out of range for a tuple of 2"),
    Err(computed_index, ((1.0, 2.0), 1), "i", r"a tuple is indexed with constants only"),
    Err(arithmetic_on_tree, ({"a": 1.0},), "params * 2", r"arithmetic on \{'a': float\}"),
    Err(tree_where_a_number_is_needed, ({"a": 1.0},), "params", r"is passed where a number "
        r"or an array is needed", line_has="np.sin"),
    Err(tree_to_numpy, ((ARR,),), "t)", r"cannot be passed to a NumPy function",
        line_has="np.sum"),
    Err(bound_in_if, ({"a": {"x": 1.0}}, 1.0), "layer", r"'layer' holds \{'x': float\}, which "
        r"is bound at compile time; it cannot be bound inside an if"),
    Err(bound_in_range, ({"a": {"x": 1.0}},), "layer", r"cannot be bound inside an if, while "
        r"or for-range block", line_has="layer = "),
    Err(rebinds_a_leaf, ({"a": 1.0},), 'params["a"]', r"cannot assign into a dict: containers "
        r"are immutable"),
    Err(updates_a_leaf, ({"a": ARR},), 'params["a"]', r"containers are immutable"),
    Err(rebinds_a_field, (P(ARR, 1.0),), "p.s", r"cannot assign into P \(a NamedTuple\)"),
    Err(breaks_unrolled, ((1.0, 2.0),), "break", r"'break' in a loop over a container"),
    Err(continues_unrolled, ((1.0, 2.0),), "continue", r"'continue' in a loop over a "
        r"container"),
    Err(returns_differ, ((1.0,), 1.0), "return", r"this returns \{'b': float\}, another "
        r"return gives \{'a': float\}", line_has='{"b"'),
    Err(key_as_value, ({"a": 1.0},), "k", r"'k' is a dict's key", line_has="s += k"),
    Err(key_after_loop, ({"a": 1.0},), "k", r"'k' is a dict's key", line_has="return k"),
    Err(unpacks_wrong_count, ((1.0, 2.0, 3.0),), "a, b", r"cannot unpack a tuple of 3 items "
        r"into 2 names"),
    Err(unpacks_a_dict, ({"a": 1.0, "b": 2.0},), "a, b", r"unpacking a dict gives its keys"),
    Err(dict_attribute, ({"a": 1.0},), "d.a", r"attribute 'a' of a dict is not supported"),
    Err(dict_method, ({"a": 1.0},), "d.get", r"method \.get\(\) of a dict is not supported"),
    Err(iterates_a_dict, ({"a": 1.0},), "d", r"iterating a dict directly",
        line_has="for k in d"),
    Err(values_of_a_tuple, ((1.0,),), "t.values()", r"\.values\(\) is a dict's"),
    Err(reads_after_nested_loop, ((ARR, np.ones((2, 2))),), "p)", r"'p' is not bound here",
        line_has="return s"),
    Err(loops_over_fresh_arrays_in_a_loop, (ARR,), "make_pair(x)", r"a container holding "
        r"arrays made inside a loop"),
    Err(dict_keys_not_constant, (1.0, 2), "k", r"dict keys must be constants"),
    Err(dict_keys_of_two_types, (1.0,), "{", r"keys of a dict must be of one type"),
    Err(record_without_a_field, (ARR,), "P(W=x)", r"P\(\) misses field 's'"),
    Err(record_with_post_init_fields, (1.0,), "Later(x)", r"sets fields outside __init__"),
    Err(dataclass_subscript, (D(1.0),), "0", r"D \(a dataclass\) is not subscriptable"),
    Err(slice_of_a_dict, ({"a": 1.0},), "1:", r"a dict cannot be sliced"),
    Err(compares_a_tree, ((1.0,),), "t < 1.0", r"cannot compare or test"),
    Err(rebound_in_a_nested_loop, ((ARR, np.ones((2, 2))), 1.0), "p", r"'p' is the variable "
        r"of a loop over a container inside a branch or loop", line_has="p = u"),
    Err(filtered_comprehension, ((1.0, 2.0),), "v > 0.0", r"a filter in a comprehension over "
        r"a container"),
    Err(dict_comprehension_key, ({"a": 1.0},), "v:", r"key must be a constant or a key of the "
        r"loop"),
    Err(dict_comprehension_over_range, (3,), "{i", r"a dict comprehension runs over a "
        r"container"),
    Err(sum_of_a_dict, ({"a": 1.0},), "d)", r"iterating a dict directly"),
    Err(dict_literal_in_a_branch, (1.0,), "d", r"cannot be bound inside an if",
        line_has="d = "),
]


def _expected(err: Err) -> tuple[int, int]:
    lines, first = inspect.getsourcelines(err.f)
    want = err.line_has or err.at
    k = next(i for i, t in enumerate(lines) if want in t and i > 0)
    return first + k, lines[k].index(err.at) + 1


@pytest.mark.parametrize("err", CASES, ids=[e.f.__name__ for e in CASES])
def test_container_error(err: Err) -> None:
    with pytest.raises(FrontendError) as info:
        compile_python(err.f, tuple(type_of(a) for a in err.args))
    e = info.value
    assert re.search(err.found, e.message), str(e)
    assert e.filename == __file__, str(e)
    assert (e.line, e.col) == _expected(err), str(e)
    assert e.supported or err.f in (returns_differ, unpacks_wrong_count), \
        f"no 'supported:' hint:\n{e}"


def test_a_custom_rule_takes_no_containers() -> None:
    import enzyme_py as ez

    @ez.custom_vjp
    def f(t):
        return t["a"]

    with pytest.raises(FrontendError, match="custom rule"):
        compile_python(f, (Tree("dict", (F64,), ("a",)),))
