"""Pytrees at the API boundary: containers of arrays and numbers flattened to leaves and back.

A pytree is a leaf (a number or an array), `None` or a string (no leaves: a string is
part of the structure, as a static argument of JAX's; see `ftypes.Text`), or a tuple, list, dict,
`NamedTuple` or dataclass of pytrees, nested (JAX's conventions). `flatten(value)` gives its
leaves and its `Node` (the structure); `node.unflatten(leaves)` rebuilds a value of that
structure (gradients come back in their arguments' structure).

Invariants: leaves are listed depth first, children in order: a dict's keys sorted (as JAX
sorts them; keys of one dict must be mutually comparable), a record's fields in declaration
order; a `Node` is hashable and equal for equal structures (it is part of the
specialization key: a dict's keys, a record's class, the nesting); `node_of_type` gives the
same structure for a compiled result's type as `flatten` gives for its value.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from enzyme_py.errors import CallError
from enzyme_py.frontend.ftypes import NONE, FType, NoneType, Text, Tree, Tuple

__all__ = ["LEAF", "Flattened", "Node", "flatten", "flatten_all", "flattened", "is_container",
           "node_of_type", "tree_map"]


@dataclass(frozen=True)
class Node:
    """The structure of a pytree: `kind` is leaf, none, text (a string: `keys` holds it),
    tuple, list, dict or record."""

    kind: str
    children: tuple[Node, ...] = ()
    keys: tuple = ()  # a dict's sorted keys, a record's field names
    cls: type | None = None  # a record's class

    @property
    def num_leaves(self) -> int:
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)

    def unflatten(self, leaves: Sequence[Any]) -> Any:
        """A value of this structure holding `leaves` (exactly `num_leaves` of them)."""
        it = iter(leaves)
        value = self._build(it)
        if next(it, _END) is not _END:
            raise ValueError("too many leaves for this structure")
        return value

    def _build(self, it: Iterator[Any]) -> Any:
        if self.kind == "leaf":
            return next(it)
        if self.kind == "none":
            return None
        if self.kind == "text":
            return self.keys[0]
        items = [c._build(it) for c in self.children]
        if self.kind == "tuple":
            return tuple(items)
        if self.kind == "list":
            return items
        if self.kind == "dict":
            return dict(zip(self.keys, items, strict=True))
        assert self.cls is not None
        if _is_namedtuple_class(self.cls):
            return self.cls(*items)
        return self.cls(**dict(zip(self.keys, items, strict=True)))

    def tree_type(self, leaf_types: Iterator[FType]) -> FType:
        """The front end's type of a value of this structure, its leaves of `leaf_types`
        (consumed in order)."""
        if self.kind == "leaf":
            return next(leaf_types)
        if self.kind == "none":
            return NONE
        if self.kind == "text":
            return Text(self.keys[0])
        items = tuple(c.tree_type(leaf_types) for c in self.children)
        return Tree(self.kind, items, self.keys, self.cls)

    def leaf_paths(self, prefix: str) -> list[str]:
        """A readable name per leaf: `params['W']`, `layers[0][1]`, `p.scale`."""
        if self.kind == "leaf":
            return [prefix]
        out: list[str] = []
        for k, c in enumerate(self.children):
            if self.kind == "record":
                part = f".{self.keys[k]}"
            elif self.kind == "dict":
                part = f"[{self.keys[k]!r}]"
            else:
                part = f"[{k}]"
            out += c.leaf_paths(prefix + part)
        return out

    def __str__(self) -> str:
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        if self.kind == "text":
            return repr(self.keys[0])
        inner = [str(c) for c in self.children]
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(self.keys, inner,
                                                                  strict=True)) + "}"
        if self.kind == "record":
            assert self.cls is not None
            return f"{self.cls.__name__}({', '.join(inner)})"
        return f"[{', '.join(inner)}]" if self.kind == "list" else f"({', '.join(inner)})"


LEAF = Node("leaf")
_NONE_NODE = Node("none")
_END = object()


def _is_namedtuple_class(cls: type) -> bool:
    return issubclass(cls, tuple) and hasattr(cls, "_fields")


def is_container(v: Any) -> bool:
    """Is `v` a pytree node rather than a leaf (None counts: it has no leaves)?"""
    t = type(v)
    return t is tuple or t is list or t is dict or v is None or t is str or \
        (isinstance(v, tuple) and hasattr(t, "_fields")) or \
        (dataclasses.is_dataclass(v) and not isinstance(v, type))


def flatten(value: Any) -> tuple[list[Any], Node]:
    """The leaves of `value` (depth first) and its structure."""
    leaves: list[Any] = []
    node = _flatten(value, leaves)
    return leaves, node


def flatten_all(values: Sequence[Any]) -> tuple[list[Any], tuple[Node, ...]]:
    """The leaves of several values, one after the other, and one structure per value."""
    leaves: list[Any] = []
    nodes = tuple(_flatten(v, leaves) for v in values)
    return leaves, nodes


def _flatten(v: Any, leaves: list[Any]) -> Node:
    if not is_container(v):
        leaves.append(v)
        return LEAF
    if v is None:
        return _NONE_NODE
    t = type(v)
    if t is str:
        return Node("text", (), (v,))
    if t is tuple or t is list:
        return Node("tuple" if t is tuple else "list", tuple(_flatten(x, leaves) for x in v))
    if t is dict:
        try:
            keys = tuple(sorted(v))
        except TypeError:
            raise CallError(f"a dict argument has keys that cannot be sorted "
                            f"({', '.join(repr(k) for k in v)}); use keys of one type") from None
        return Node("dict", tuple(_flatten(v[k], leaves) for k in keys), keys)
    if isinstance(v, tuple):  # a NamedTuple
        return Node("record", tuple(_flatten(x, leaves) for x in v), tuple(t._fields), t)
    fields = dataclasses.fields(v)
    if any(not f.init for f in fields):
        raise CallError(f"dataclass {t.__name__} has fields set outside __init__; it cannot "
                        "be rebuilt from its leaves")
    names = tuple(f.name for f in fields)
    return Node("record", tuple(_flatten(getattr(v, n), leaves) for n in names), names, t)


def node_of_type(t: FType) -> Node:
    """The structure of a value of compiled type `t` (a result): a `Tuple` is a tuple of
    leaves, a `Tree` its nodes, anything else one leaf (`None` none)."""
    if isinstance(t, Tree):
        return Node(t.kind, tuple(node_of_type(i) for i in t.items), t.keys, t.cls)
    if isinstance(t, Tuple):
        return Node("tuple", (LEAF,) * len(t.items))
    if isinstance(t, Text):
        return Node("text", (), (t.value,))
    if isinstance(t, NoneType):
        return _NONE_NODE
    return LEAF


def tree_map(fn: Any, value: Any) -> Any:
    """`value` with `fn` applied to each leaf (structure kept)."""
    leaves, node = flatten(value)
    return node.unflatten([fn(x) for x in leaves])


class Flattened:
    """`f` as a function of its arguments' leaves, for one structure of its arguments.

    The compiled code of a `Flattened` takes one ABI parameter group per leaf (the front end
    compiles `f` itself, told each argument's `Tree` type), so every entry point of the API
    works on leaves unchanged; `leaf_range(i)` says which leaves are argument `i`'s.
    Invariant: one `Flattened` per (f, structures) (`flattened` caches them), so caches keyed
    by the function object stay valid."""

    def __init__(self, f: Any, in_trees: tuple[Node, ...], param_names: Sequence[str]) -> None:
        self.f = f
        self.in_trees = in_trees
        self.__name__ = getattr(f, "__name__", "f")
        self.params = [p for name, node in zip(param_names, in_trees, strict=True)
                       for p in node.leaf_paths(name)]
        self._starts = [0]
        for node in in_trees:
            self._starts.append(self._starts[-1] + node.num_leaves)

    def argument_types(self, leaf_types: Sequence[FType]) -> tuple[FType, ...]:
        """Each argument's type (a `Tree` for a container) from its leaves' types."""
        it = iter(leaf_types)
        return tuple(node.tree_type(it) for node in self.in_trees)

    def leaf_range(self, i: int) -> range:
        return range(self._starts[i], self._starts[i + 1])

    def regroup(self, nums: Sequence[int], leaf_values: Sequence[Any]) -> list[Any]:
        """Values given per leaf of arguments `nums` (in that order), rebuilt into each
        argument's structure."""
        out, k = [], 0
        for i in nums:
            n = self.in_trees[i].num_leaves
            out.append(self.in_trees[i].unflatten(leaf_values[k:k + n]))
            k += n
        return out

    def __repr__(self) -> str:
        return f"<{self.__name__} over leaves of {', '.join(map(str, self.in_trees))}>"


_FLATTENED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_FLATTENED_LOCK = threading.Lock()


def flattened(f: Any, in_trees: tuple[Node, ...], param_names: Sequence[str]) -> Flattened:
    """The `Flattened` of `f` for these argument structures (one per structure)."""
    with _FLATTENED_LOCK:
        try:
            per_f = _FLATTENED.setdefault(f, {})
        except TypeError:  # not weakly referenceable: not cached on f
            return Flattened(f, in_trees, param_names)
        got = per_f.get(in_trees)
        if got is None:
            got = per_f[in_trees] = Flattened(f, in_trees, param_names)
        return got
