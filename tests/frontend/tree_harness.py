"""Calling front-end code compiled for container (pytree) arguments without the API: types
from values, the leaves' flat ABI, the flat result rebuilt into its tree. Independent of
`enzyme_py.pytree`, so the front end's tests check the ABI themselves."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np

from enzyme_py import backend
from enzyme_py.calling import convert_result, flatten
from enzyme_py.frontend import compile_python
from enzyme_py.frontend.ftypes import NONE, FType, NoneType, Tree, Tuple, tree_leaves, type_of_value


def _is_namedtuple(v: Any) -> bool:
    return isinstance(v, tuple) and hasattr(type(v), "_fields")


def children(v: Any) -> tuple[str, list[Any], tuple, type | None]:
    """(kind, children in leaf order, keys, class) of a container value."""
    if type(v) is dict:
        keys = tuple(sorted(v))
        return "dict", [v[k] for k in keys], keys, None
    if type(v) in (tuple, list):
        return type(v).__name__, list(v), (), None
    if _is_namedtuple(v):
        return "record", list(v), tuple(type(v)._fields), type(v)
    if dataclasses.is_dataclass(v):
        names = tuple(f.name for f in dataclasses.fields(v))
        return "record", [getattr(v, n) for n in names], names, type(v)
    raise TypeError(v)


def is_container(v: Any) -> bool:
    return type(v) in (dict, tuple, list) or _is_namedtuple(v) or \
        dataclasses.is_dataclass(v) and not isinstance(v, type)


def type_of(v: Any) -> FType:
    if v is None:
        return NONE
    if is_container(v):
        kind, items, keys, cls = children(v)
        return Tree(kind, tuple(type_of(x) for x in items), keys, cls)
    t = type_of_value(v)
    assert t is not None, v
    return t


def leaves(v: Any) -> list[Any]:
    if v is None:
        return []
    if is_container(v):
        return [leaf for x in children(v)[1] for leaf in leaves(x)]
    return [v]


def rebuild(t: FType, it: Iterator[Any]) -> Any:
    if isinstance(t, NoneType):
        return None
    if not isinstance(t, Tree):
        return next(it)
    items = [rebuild(x, it) for x in t.items]
    if t.kind == "tuple":
        return tuple(items)
    if t.kind == "list":
        return items
    if t.kind == "dict":
        return dict(zip(t.keys, items, strict=True))
    assert t.cls is not None
    return t.cls(*items)


def compiled(f: Any, *args: Any) -> tuple[Any, Any, Any]:
    """(module, Compiled, native function) of `f` for the types of `args`."""
    module, comp, _ = compile_python(f, tuple(type_of(a) for a in args))
    jm = backend.compile_ir(str(module), opt_level=2)
    return module, comp, jm.function(comp.function.name)


def run(f: Any, *args: Any) -> Any:
    """`f(*args)` natively: containers passed as their leaves, a tree result rebuilt."""
    _, comp, native = compiled(f, *args)
    flat_values = [leaf for a in args for leaf in leaves(a)]
    flat_types = [lt for a in args for lt in tree_leaves(type_of(a))]
    r = native(*flatten(flat_types, flat_values))
    ret = comp.return_type
    if isinstance(ret, Tree):
        fields = convert_result(Tuple(tuple(tree_leaves(ret))), r)  # type: ignore[arg-type]
        return rebuild(ret, iter(fields))
    return convert_result(ret, r)


def same(a: Any, b: Any) -> bool:
    """Equal structure (kinds, keys, classes) and close leaves."""
    if is_container(a) or is_container(b) or a is None or b is None:
        if a is None or b is None:
            return a is None and b is None
        if not (is_container(a) and is_container(b)):
            return False
        ka, ia, keys_a, ca = children(a)
        kb, ib, keys_b, cb = children(b)
        return (ka, keys_a, ca, len(ia)) == (kb, keys_b, cb, len(ib)) and \
            all(same(x, y) for x, y in zip(ia, ib, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-12, atol=1e-12)
    integral = [isinstance(v, int | np.integer) and not isinstance(v, bool) for v in (a, b)]
    return integral[0] == integral[1] and bool(np.isclose(a, b, rtol=1e-12, atol=1e-12))
