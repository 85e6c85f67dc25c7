"""Container values at compile time: a container is its children's values, held by the
compiler (`TVal`), never IR memory; a variable holding one is bound at compile time
(`StaticVar`). As a parameter or argument a container is its leaves' ABI, as a result a flat
struct of its leaves' fields (see `compiler`).

Invariants: a `TVal`'s items follow its type's children (dict keys sorted, record fields in
order; `None` for a `None` child); a parameter's array leaf is a view of the caller's memory
rooted at the leaf's parameter name, like an array parameter; binding a value at compile time
(`bind_static`) computes its lazy arrays and takes the fresh buffers it holds off the
statement's temporaries into slots the exit frees (`pin`), so a bound value never dangles —
outside runtime loops only, where such buffers would pile up (a clear error); leaves are
passed to callees flat, strided where their view is not C-contiguous.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from enzyme_py.frontend import trees
from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.ftypes import (
    I64,
    NONE,
    Array,
    FType,
    NoneType,
    Scalar,
    Text,
    Tree,
    Tuple,
    tree_leaves,
)
from enzyme_py.frontend.values import AVal, SVal, c_strides, const
from enzyme_py.ir import types as T
from enzyme_py.ir.values import Value


@dataclass
class TVal:
    """A container value: its type (a `Tree`, or the flat `Tuple` it was typed as) and its
    children's values (`SVal`, `AVal`/`Lazy`, `TVal`, or None for a `None` child)."""

    type: Tree | Tuple
    items: list[Any]

    @property
    def tree(self) -> Tree:
        return trees.as_tree(self.type)


@dataclass
class StaticVar:
    """A variable bound at compile time (a container, or the variable of an unrolled loop
    over children of different types): the value it holds now."""

    value: Any = None
    bound: bool = False


def value_type(v: Any) -> FType:
    if v is None:
        return NONE
    if isinstance(v, str):
        return Text(v)
    if isinstance(v, TVal | SVal):
        return v.type
    assert L.is_array(v)
    return v.type


def as_value(c: Any, v: Any, t: FType) -> TVal:
    """A container value of type `t` from what expressions give: a `TVal`, a list (a tuple
    literal of numbers and arrays) or a struct `SVal` (a flat tuple result)."""
    if isinstance(v, TVal):
        return v
    assert isinstance(t, Tree | Tuple)
    if isinstance(v, list):
        return TVal(t, v)
    assert isinstance(v, SVal) and isinstance(v.type, Tuple)
    return TVal(v.type, [SVal(it, c.b.extractvalue(v.v, [k]))  # type: ignore[arg-type]
                         for k, it in enumerate(v.type.items)])


# --- parameters ---------------------------------------------------------------------------------


def ir_params(t: Tree, name: str) -> list[tuple[T.Type, str]]:
    """A tree parameter's IR parameters: its leaves' ABIs, named after their paths."""
    out: list[tuple[T.Type, str]] = []
    for k, item in enumerate(t.items):
        n = f"{name}.{trees.child_label(t, k)}"
        if isinstance(item, Tree):
            out.extend(ir_params(item, n))
        elif isinstance(item, Array):
            out.append((T.PTR, n))
            out.extend((T.I64, f"{n}.shape{d}") for d in range(item.ndim))
            if item.strided:
                out.extend((T.I64, f"{n}.stride{d}") for d in range(item.ndim))
        elif isinstance(item, Scalar):
            out.append((item.ir, n))
        elif not isinstance(item, NoneType):
            raise TypeError(f"{n}: {item} cannot be part of an argument")
    return out


def param_value(c: Any, t: FType, name: str, args: Iterator[Value]) -> Any:
    """The value of a (tree) parameter from the function's arguments, consumed in order."""
    if isinstance(t, Tree):
        return TVal(t, [param_value(c, item, f"{name}.{trees.child_label(t, k)}", args)
                        for k, item in enumerate(t.items)])
    if isinstance(t, Array):
        ptr = next(args)
        dims = [next(args) for _ in range(t.ndim)]
        strides = [next(args) for _ in range(t.ndim)] if t.strided else c_strides(c.b, dims)
        return AVal(t.value, ptr, dims, strides, not t.strided, ("param", name))
    if isinstance(t, Scalar):
        return SVal(t, next(args))
    return None


# --- reading ------------------------------------------------------------------------------------


def subscript(c: Any, e: ast.Subscript) -> Any:
    """`t[key]` / `t[a:b]` of a container (typed by the typer first)."""
    base_t = c.typer.container_of(e.value)
    c.typer.expr_type(e)  # validates the key
    base = as_value(c, c.expr(e.value), base_t)
    if isinstance(e.slice, ast.Slice):
        sub, keep = trees.slice_children(c.src, base_t, e.slice)
        return TVal(sub, [base.items[k] for k in keep])
    key = trees.constant_key(c.typer.static_keys, e.slice)
    return base.items[trees.child_index(c.src, base_t, key, e.slice)]


def attribute(c: Any, e: ast.Attribute) -> Any:
    """`p.field` of a record."""
    base_t = c.typer.container_of(e.value)
    base = as_value(c, c.expr(e.value), base_t)
    return base.items[trees.field_index(c.src, base_t, e.attr, e)]


def items_of(c: Any, v: Any, t: FType, node: ast.AST, n: int) -> list[Any]:
    """The children `a, b = v` binds (count and kind checked by `trees.unpacked`)."""
    tv = as_value(c, v, t)
    trees.unpacked(c.src, tv.type, n, node)
    return list(tv.items)


# --- literals -----------------------------------------------------------------------------------


def literal_item(c: Any, e: ast.expr) -> Any:
    """A literal's child (an inner flat tuple as a `TVal`, like every container child)."""
    if isinstance(e, ast.Constant) and e.value is None:
        return None
    v = c.expr(e)
    if isinstance(v, list) or isinstance(v, SVal) and isinstance(v.type, Tuple):
        return as_value(c, v, c.typer.expr_type(e))
    return v


def literal(c: Any, e: ast.Tuple | ast.List | ast.Dict) -> TVal:
    """A container literal: children evaluated in source order, placed in the type's."""
    t = c.typer.expr_type(e)
    assert isinstance(t, Tree | Tuple)
    if isinstance(e, ast.Dict):
        keys = c.typer.dict_keys(e)
        vals = [literal_item(c, v) for v in e.values]
        by_key = dict(zip(keys, vals, strict=True))
        return TVal(t, [by_key[k] for k in trees.as_tree(t).keys])
    return TVal(t, [literal_item(c, x) for x in e.elts])


def record(c: Any, e: ast.Call, cls: type) -> TVal:
    """`Point(a, y=b)`: positional arguments, then keywords, evaluated in source order."""
    t = c.typer.expr_type(e)
    assert isinstance(t, Tree)
    args = trees.record_arguments(c.src, e, cls)
    evaluated = {id(n): literal_item(c, n) for n in [*e.args, *(k.value for k in e.keywords)]}
    out: list[Any] = []
    for arg, item_t in zip(args, t.items, strict=True):
        is_default, value = trees.default_value(arg)
        if not is_default:
            out.append(evaluated[id(arg)])
        elif value is None:
            out.append(None)
        else:
            assert isinstance(item_t, Scalar)
            out.append(const(item_t, value))
    return TVal(t, out)


# --- binding ------------------------------------------------------------------------------------


def pin(c: Any, v: Any, node: ast.AST) -> Any:
    """`v` made safe to hold across statements: lazies computed, fresh buffers kept until
    the exit (not inside runtime loops: a clear error)."""
    if isinstance(v, TVal):
        return TVal(v.type, [pin(c, x, node) for x in v.items])
    if not L.is_array(v):
        return v
    view = L.materialize(c, v, node)
    root = view.root
    base = view.base if view.base is not None else \
        root[1] if isinstance(root, tuple) and root[0] == "temp" else None
    if base is not None and c.heap.claim(base):
        if c.loops:
            raise c.src.error(node, "a container holding arrays made inside a loop cannot be "
                              "bound to a name or looped over",
                              "index it where it is made (f(x)['W']), or bind it outside "
                              "the loop")
        slot = c.heap.new_slot("tree.keep")
        c.b.store(base, slot)
    if isinstance(root, tuple) and root[0] == "temp":
        root = ("pinned", id(view))  # no statement's temporary any more
    return AVal(view.type, view.ptr, view.dims, view.strides, view.contiguous, root, None)


def bind_static(c: Any, name: str, var: StaticVar, v: Any, node: ast.AST | None) -> None:
    """`name = v` for a variable bound at compile time (the typer checked where)."""
    if isinstance(v, list) or isinstance(v, SVal) and isinstance(v.type, Tuple):
        v = as_value(c, v, v.type if isinstance(v, SVal) else
                     Tuple(tuple(value_type(x) for x in v)))  # type: ignore[arg-type]
    var.value = pin(c, v, node or c.fdef)
    var.bound = True
    c.typer.env[name] = value_type(var.value)  # the types of what follows read it


def load_static(c: Any, name: str, var: StaticVar, node: ast.AST | None) -> Any:
    if not var.bound:
        raise c.src.error(node, f"'{name}' is not bound here: it is bound at compile time "
                          "(it holds a container, or it is the variable of an unrolled loop "
                          "over one) and cannot be read after a loop over a container that "
                          "is inside a loop or branch",
                          "read it inside that loop, or bind it at the function's top level")
    return var.value


# --- calls and results ------------------------------------------------------------------------


def flatten_argument(c: Any, v: Any, node: ast.AST) -> tuple[FType, list[Value]]:
    """A container argument's type (arrays strided where not C-contiguous) and its flat
    leaves' IR values."""
    if isinstance(v, list) or isinstance(v, SVal) and isinstance(v.type, Tuple):
        t = v.type if isinstance(v, SVal) else Tuple(tuple(value_type(x) for x in v))
        v = as_value(c, v, t)
    if isinstance(v, TVal):
        types: list[FType] = []
        flat: list[Value] = []
        for item in v.items:
            it, vals = flatten_argument(c, item, node)
            types.append(it)
            flat.extend(vals)
        tree = v.tree
        return Tree(tree.kind, tuple(types), tree.keys, tree.cls), flat
    if v is None:
        return NONE, []
    if isinstance(v, str):
        return Text(v), []
    if L.is_array(v):
        view = L.materialize(c, v, node)
        strided = not view.contiguous
        return Array(view.type.elem, view.type.ndim, strided), \
            [view.ptr, *view.dims, *(view.strides if strided else [])]
    assert isinstance(v, SVal) and isinstance(v.type, Scalar)
    return v.type, [v.v]


def result_fields(v: Any, t: FType, node: ast.AST,
                  leaf: Callable[[Any, FType, ast.AST], list[Value]]) -> list[Value]:
    """The flat result fields of container value `v` returned as `t`; `leaf` gives a
    number's or an array's (arrays are copied into fresh blocks the caller owns)."""
    if isinstance(t, Tree | Tuple):
        items = v.items if isinstance(v, TVal) else v
        assert isinstance(items, list) and len(items) == len(t.items)
        return [f for x, it in zip(items, t.items, strict=True)
                for f in result_fields(x, it, node, leaf)]
    if isinstance(t, NoneType):
        return []
    return leaf(v, t, node)


def unpack_result(c: Any, t: Tree, leaves: list[Any]) -> TVal:
    """A callee's tree result from its flat leaves' values (see `calls._unpack_result`)."""
    it = iter(leaves)

    def build(x: FType) -> Any:
        if isinstance(x, Tree):
            return TVal(x, [build(i) for i in x.items])
        if isinstance(x, Text):
            return x.value
        return None if isinstance(x, NoneType) else next(it)

    out = build(t)
    assert next(it, None) is None
    return out


def leaf_tuple(t: Tree) -> Tuple:
    """The flat tuple of a tree result's leaves (its IR struct is theirs)."""
    return Tuple(tuple(tree_leaves(t)))  # type: ignore[arg-type]


def length(v: Any, t: FType) -> SVal:
    """`len(t)` of a container: a constant."""
    return const(I64, len(trees.as_tree(t).items))  # type: ignore[arg-type]
