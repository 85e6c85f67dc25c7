"""Typing of container expressions (a mixin of the `Typer`): reading children with constant
keys, container literals (`{"loss": l}`, `[a, b]`, `(x, {"acc": a})`), record constructors
(`Point(x=a, y=b)`), and what binding a container says about the memory its arrays view.

Invariants: a tuple literal of only numbers and arrays keeps the flat `Tuple` type; any other
literal container is a `Tree` whose children are value types (arrays unstrided, inner flat
tuples as tuple trees); a dict literal's keys are distinct constants of one type, its children
in sorted key order; the arrays a container binding reaches keep their buffers alive (their
variables become `shared`, as `arrays.heap` requires of anything another binding views).
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from enzyme_py.frontend import trees
from enzyme_py.frontend.ftypes import NONE, Array, FType, Scalar, Tree, Tuple

if TYPE_CHECKING:
    from enzyme_py.frontend.errors import SourceInfo


class TreeTyper:
    """Container typing; the `Typer` provides the environment and the hooks below."""

    env: dict[str, FType]
    src: SourceInfo
    static_keys: dict[str, object]
    fixed_params: set[str]
    shared: set[str]

    # hooks provided by the typer
    def expr_type(self, e: ast.expr, lenient: bool = False) -> FType | None: ...
    def view_root(self, e: ast.expr) -> str | None: ...
    def resolve_global(self, e: ast.expr) -> object: ...
    def _is_global_ref(self, e: ast.expr) -> bool: ...

    def container_of(self, e: ast.expr) -> trees.Container | None:
        """The container type of `e`, or None (not a container, or not typed yet). Never
        raises for `a.shape` of an array or a module (`np`)."""
        if self._is_global_ref(e):
            return None
        if isinstance(e, ast.Attribute) and e.attr == "shape":
            base = self.container_of(e.value)
            if base is None or trees.as_tree(base).kind != "record":
                return None
        t = self.expr_type(e, lenient=True)
        return t if trees.is_container(t) else None  # type: ignore[return-value]

    def container_subscript_type(self, e: ast.Subscript, base: trees.Container) -> FType:
        if isinstance(e.slice, ast.Slice):
            return trees.slice_children(self.src, base, e.slice)[0]
        key = trees.constant_key(self.static_keys, e.slice)
        if key is trees.NO_KEY:
            raise self.src.error(e.slice, f"{trees.describe(base)} is indexed with constants "
                                 "only; this index is known only at run time",
                                 trees.READ_HINT + "; to index numbers at run time, pass a "
                                 "NumPy array instead")
        return trees.as_tree(base).items[trees.child_index(self.src, base, key, e.slice)]

    def container_attribute_type(self, e: ast.Attribute, base: trees.Container) -> FType:
        return trees.as_tree(base).items[trees.field_index(self.src, base, e.attr, e)]

    def check_not_into_container(self, target: ast.expr) -> None:
        """Containers are immutable here: `t["W"] = ...` and `p.W = ...` are refused (an
        array inside one is written in place: `t["W"][0] = ...`)."""
        if isinstance(target, ast.Tuple | ast.List):
            for sub in target.elts:
                self.check_not_into_container(sub)
        elif isinstance(target, ast.Subscript | ast.Attribute):
            base = self.container_of(target.value)
            if base is not None:
                raise self.src.error(target, f"cannot assign into {trees.describe(base)}: "
                                     "containers are immutable here",
                                     "build a new one ({'W': W2, 'b': b}) and return it; "
                                     "write an array inside in place: t['W'][...] = ...")

    def contiguous_param_leaf(self, e: ast.expr) -> bool:
        """Is `e` (`params["W"]`, `p.W[0]`...) a C-contiguous leaf of a tree parameter
        never rebound? (other children of containers may be any view)"""
        base = e
        while isinstance(base, ast.Subscript | ast.Attribute):
            base = base.value
        t = self.expr_type(e, lenient=True)
        return isinstance(base, ast.Name) and base.id in self.fixed_params and \
            isinstance(t, Array) and not t.strided and \
            all(self.container_of(n.value) is not None for n in ast.walk(e)
                if isinstance(n, ast.Subscript | ast.Attribute) and n is not base)

    # --- literals -------------------------------------------------------------------------------

    def item_type(self, e: ast.expr, lenient: bool) -> FType | None:
        """A literal child's type (`None` allowed), as a value type."""
        if isinstance(e, ast.Constant) and e.value is None:
            return NONE
        t = self.expr_type(e, lenient)
        return None if t is None else trees.tree_value(t)

    def tuple_literal_type(self, e: ast.Tuple, lenient: bool) -> FType | None:
        items = [self.item_type(x, lenient) for x in e.elts]
        if any(i is None for i in items):
            return None
        if all(isinstance(i, Scalar | Array) for i in items):
            return Tuple(tuple(items))  # type: ignore[arg-type]
        return Tree("tuple", tuple(items))  # type: ignore[arg-type]

    def list_literal_type(self, e: ast.List, lenient: bool) -> FType | None:
        items = [self.item_type(x, lenient) for x in e.elts]
        if any(i is None for i in items):
            return None
        return Tree("list", tuple(items))  # type: ignore[arg-type]

    def dict_keys(self, e: ast.Dict) -> list[object]:
        """The constant keys of a dict literal, in source order (checked)."""
        keys: list[object] = []
        for k in e.keys:
            if k is None:
                raise self.src.error(e, "**spreading in a dict literal is not supported",
                                     "{'W': W, 'b': b} with constant keys")
            key = trees.constant_key(self.static_keys, k)
            if key is trees.NO_KEY:
                raise self.src.error(k, "dict keys must be constants", "{'W': W, 'b': b}")
            if key in keys:
                raise self.src.error(k, f"key {key!r} appears twice in this dict")
            keys.append(key)
        if len({type(k) for k in keys}) > 1:
            raise self.src.error(e, "the keys of a dict must be of one type (they are "
                                 "sorted, as JAX sorts them)", "all str or all int keys")
        return keys

    def dict_literal_type(self, e: ast.Dict, lenient: bool) -> FType | None:
        keys = self.dict_keys(e)
        items = [self.item_type(v, lenient) for v in e.values]
        if any(i is None for i in items):
            return None
        order = sorted(range(len(keys)), key=lambda k: keys[k])  # type: ignore[arg-type,return-value]
        return Tree("dict", tuple(items[k] for k in order),  # type: ignore[misc]
                    tuple(keys[k] for k in order))

    def record_type(self, e: ast.Call, cls: type, lenient: bool) -> FType | None:
        """`Point(a, b)` / `Point(x=a, y=b)`: a record of the fields' types."""
        names, _ = trees.record_fields(cls)
        items: list[FType | None] = []
        for arg in trees.record_arguments(self.src, e, cls):
            is_default, value = trees.default_value(arg)
            items.append(trees.constant_type(value) if is_default else
                         self.item_type(arg, lenient))
        if any(i is None for i in items):
            return None
        return Tree("record", tuple(items), names, cls)  # type: ignore[arg-type]

    # --- aliasing ---------------------------------------------------------------------------------

    def note_sources(self, e: ast.expr) -> None:
        """Binding `e` (a container, or an array bound at compile time) to a name: the array
        variables its leaves view keep their buffers until the exit (`shared`)."""
        for leaf in literal_children(self, e):
            t = self.expr_type(leaf, lenient=True) if not (
                isinstance(leaf, ast.Constant) and leaf.value is None) else None
            if isinstance(t, Array) or trees.is_container(t):
                root = self.view_root(leaf)
                if root is not None and root not in self.fixed_params:
                    self.shared.add(root)

    def literal_child(self, e: ast.expr, key_node: ast.expr | str) -> ast.expr | None:
        """The node of child `key` of a container literal `e` (a str `key_node`: a record's
        field), or None when `e` is no literal or the key is not constant."""
        t = self.container_of(e)
        if t is None:
            return None
        if isinstance(key_node, str):
            key: object = key_node
        else:
            key = trees.constant_key(self.static_keys, key_node)
            if key is trees.NO_KEY:
                return None
        nodes = literal_nodes(self, e)
        if nodes is None:
            return None
        tree = trees.as_tree(t)
        k = tree.keys.index(key) if isinstance(key_node, str) else \
            trees.child_index(self.src, t, key, e)
        return nodes[k]


def literal_nodes(typer: TreeTyper, e: ast.expr) -> list | None:
    """The children nodes of a container literal in the type's order (a record's default is
    a `trees` default, no node), or None when `e` is no literal."""
    if isinstance(e, ast.Tuple | ast.List):
        return list(e.elts)
    if isinstance(e, ast.Dict):
        keys = typer.dict_keys(e)
        order = sorted(range(len(keys)), key=lambda k: keys[k])  # type: ignore[arg-type,return-value]
        return [e.values[k] for k in order]
    if isinstance(e, ast.Call):
        cls = typer.resolve_global(e.func)
        if trees.is_record_class(cls):
            return trees.record_arguments(typer.src, e, cls)  # type: ignore[arg-type]
    return None


def literal_children(typer: TreeTyper, e: ast.expr) -> list[ast.expr]:
    """The leaf expressions of `e` through container literals (`e` itself when it is none)."""
    nodes = literal_nodes(typer, e)
    if nodes is None:
        return [e]
    out: list[ast.expr] = []
    for n in nodes:
        if isinstance(n, ast.expr):
            out.extend(literal_children(typer, n))
    return out
