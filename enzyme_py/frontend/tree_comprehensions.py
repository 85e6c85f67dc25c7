"""Comprehensions over containers, unrolled at compile time into container literals:
`[(W - lr * dW, b - lr * db) for (W, b), (dW, db) in zip(params, grads)]`,
`{k: v - lr * grads[k] for k, v in params.items()}`, and `sum(np.sum(w * w) for w in t)`
(a generator over a container is the list of its elements, which `sum` adds up).

Each element is typed and compiled with the comprehension's names bound to one child, as an
unrolled loop's body is (see `tree_loops`); the names are bound only while the comprehension
is evaluated (`static_bindings` counts them as loop variables inside a block).

Invariants: one `for` clause, no filter (the length is part of the type); a dict
comprehension's keys are constants per element (a literal, or a key of the loop), distinct
and of one type, its children in sorted key order; elements are evaluated in the
containers' order.
"""

from __future__ import annotations

import ast
from typing import Any

from enzyme_py.frontend import tree_loops, trees
from enzyme_py.frontend.ftypes import FType, Tree

Comprehension = ast.ListComp | ast.GeneratorExp | ast.DictComp


def loop_of(typer: Any, e: Comprehension) -> tree_loops.Unrolled | None | object:
    """The comprehension as an unrolled loop, None when it runs over range or arrays, or
    `tree_loops.PENDING`."""
    if len(e.generators) != 1 or e.generators[0].is_async:
        return None  # refused where comprehensions are typed
    g = e.generators[0]
    if isinstance(g.iter, ast.Call) and typer.resolve_global(g.iter.func) is range:
        return None
    loop = tree_loops.parse(typer, ast.copy_location(
        ast.For(target=g.target, iter=g.iter, body=[], orelse=[]), g.iter))
    if isinstance(loop, tree_loops.Unrolled) and g.ifs:
        raise typer.src.error(g.ifs[0], "a filter in a comprehension over a container is not "
                              "supported (the result's length is part of its type)",
                              "np.where(cond, e, 0) in the element, or a loop with an if")
    return loop


def comprehension_type(typer: Any, e: Comprehension, loop: tree_loops.Unrolled,
                       lenient: bool) -> FType | None:
    """A list (a dict for `{k: v ...}`) of the elements' types."""
    typer.unrolled.add(id(e.generators[0]))
    items: list[FType | None] = []
    keys: list[object] = []

    def element() -> None:
        if isinstance(e, ast.DictComp):
            keys.append(_key(typer, e))
            items.append(typer.item_type(e.value, lenient))
        else:
            items.append(typer.item_type(e.elt, lenient))

    tree_loops.type_iterations(typer, loop, element)
    if any(i is None for i in items):
        return None
    if not isinstance(e, ast.DictComp):
        return Tree("list", tuple(items))  # type: ignore[arg-type]
    _check_keys(typer, e, keys)
    order = sorted(range(len(keys)), key=lambda k: keys[k])  # type: ignore[arg-type,return-value]
    return Tree("dict", tuple(items[k] for k in order),  # type: ignore[misc]
                tuple(keys[k] for k in order))


def _key(typer: Any, e: ast.DictComp) -> object:
    key = trees.constant_key(typer.static_keys, e.key)
    if key is trees.NO_KEY:
        raise typer.src.error(e.key, "a dict comprehension's key must be a constant or a key "
                              "of the loop", "{k: v * 2 for k, v in d.items()}")
    return key


def _check_keys(typer: Any, e: ast.DictComp, keys: list[object]) -> None:
    if len(set(keys)) != len(keys):
        raise typer.src.error(e.key, "this dict comprehension gives a key twice")
    if len({type(k) for k in keys}) > 1:
        raise typer.src.error(e, "the keys of a dict must be of one type (they are sorted, "
                              "as JAX sorts them)", "all str or all int keys")


def compile_comprehension(c: Any, e: Comprehension, loop: tree_loops.Unrolled) -> Any:
    """The comprehension's value: a container of its elements' values."""
    from enzyme_py.frontend.tree_values import TVal, literal_item

    t = c.typer.expr_type(e)
    assert isinstance(t, Tree)
    by_key: dict[object, Any] = {}
    items: list[Any] = []

    def element() -> bool:
        if isinstance(e, ast.DictComp):
            by_key[_key(c.typer, e)] = literal_item(c, e.value)
        else:
            items.append(literal_item(c, e.elt))
        return True

    tree_loops.compile_iterations(c, loop, element)
    if isinstance(e, ast.DictComp):
        items = [by_key[k] for k in t.keys]
    return TVal(t, items)
