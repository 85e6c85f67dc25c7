"""Containers (pytrees) in the Python subset, as types: tuples, lists, dicts, `NamedTuple`s
and dataclasses of numbers, arrays and containers (`ftypes.Tree`), read with constant keys.

A container's structure is known at compile time, so everything about it is resolved then:
`t["W"]`, `t[0]`, `t[-1]`, `t[1:]`, `p.W` (records), `len(t)`, `W, b = t` select children
by constants; loops over a container are unrolled (see `tree_loops`). A flat tuple of numbers
and arrays keeps the `Tuple` type of the existing tuple support; as a container it reads as
`as_tree(t)`. The typer's functions here are called with the typer (`context.TypeContext`).

Invariants: a key is a constant (a literal int or str, `-k`, or the key of an unrolled loop,
the typer's `static_keys`); a missing key, an index out of range, a non-constant index and a
field that is not there are clear errors naming what exists; a dict's children are in sorted
key order (JAX's, the order the API flattens in), a record's in field order; a literal's
children are typed in that order too, whatever the order of the source.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import TYPE_CHECKING, Any

from enzyme_py.frontend.ftypes import NONE, Array, FType, NoneType, Scalar, Tree, Tuple, unify

if TYPE_CHECKING:
    from enzyme_py.frontend.errors import SourceInfo

Container = Tree | Tuple
NO_KEY = object()  # what `constant_key` gives for an expression that is no constant key
READ_HINT = "constant keys: t[0], t[-1], t[1:], d['W'], p.W; or a loop over the container " \
    "(for x in t, for k, v in d.items(), unrolled at compile time)"


def is_container(t: object) -> bool:
    return isinstance(t, Tree | Tuple)


def as_tree(t: Container) -> Tree:
    """A container type as a `Tree` (a flat `Tuple` is a tuple tree)."""
    return t if isinstance(t, Tree) else Tree("tuple", tuple(t.items))


def flat_tuple(t: FType) -> FType:
    """A tuple tree of only numbers and arrays as the flat `Tuple` (results keep that type),
    else `t`."""
    if isinstance(t, Tree) and t.kind == "tuple" and all(
            isinstance(i, Scalar | Array) for i in t.items):
        return Tuple(tuple(i.value if isinstance(i, Array) else i  # type: ignore[misc]
                           for i in t.items))
    return t


def tree_value(t: FType) -> FType:
    """The type of values: arrays without the ABI's `strided` flag, at any depth; a flat
    `Tuple` becomes a tuple tree (it is passed to functions as one)."""
    if isinstance(t, Tuple):
        t = as_tree(t)
    if isinstance(t, Tree):
        return Tree(t.kind, tuple(tree_value(i) for i in t.items), t.keys, t.cls)
    return t.value if isinstance(t, Array) else t


def unify_values(a: FType, b: FType) -> FType | None:
    """`ftypes.unify`, extended to trees of the same structure (child by child; an array
    that is strided in either stays strided)."""
    if isinstance(a, Tree) and isinstance(b, Tree):
        if (a.kind, a.keys, a.cls, len(a.items)) != (b.kind, b.keys, b.cls, len(b.items)):
            return None
        items = [unify_values(x, y) for x, y in zip(a.items, b.items, strict=True)]
        if any(i is None for i in items):
            return None
        return Tree(a.kind, tuple(items), a.keys, a.cls)  # type: ignore[arg-type]
    if isinstance(a, Array) and isinstance(b, Array) and a.same_values(b):
        return Array(a.elem, a.ndim, a.strided or b.strided)
    if isinstance(a, NoneType) and isinstance(b, NoneType):
        return a if a == b else None  # (two strings are one type only when equal)
    if isinstance(a, Tree) or isinstance(b, Tree):
        return None
    return unify(a, b)


def describe(t: Container) -> str:
    """A container's kind in words: 'a dict', 'a tuple', 'Point (a NamedTuple)'."""
    t = as_tree(t)
    if t.kind == "record":
        assert t.cls is not None
        return f"{t.cls.__name__} ({'a NamedTuple' if _is_namedtuple(t.cls) else 'a dataclass'})"
    return f"a {t.kind}"


def child_label(t: Tree, k: int) -> str:
    """The name part of child `k` (IR parameter names: `params.W`, `layers.0.1`)."""
    return str(t.keys[k]) if t.keys else str(k)


# --- records ------------------------------------------------------------------------------------


def _is_namedtuple(cls: type) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def is_record_class(obj: object) -> bool:
    """A `NamedTuple` class or a dataclass class (calling it builds a record)."""
    return _is_namedtuple(obj) or isinstance(obj, type) and dataclasses.is_dataclass(obj)  # type: ignore[arg-type]


def record_fields(cls: type) -> tuple[tuple[str, ...], dict[str, Any]]:
    """A record class's field names (declaration order) and their constant defaults."""
    if _is_namedtuple(cls):
        return tuple(cls._fields), dict(getattr(cls, "_field_defaults", {}))  # type: ignore
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
    return tuple(f.name for f in fields), defaults


def record_arguments(src: SourceInfo, e: ast.Call, cls: type) -> list[ast.expr | Any]:
    """The value of each field of `cls(...)`: an argument node, or a constant default."""
    names, defaults = record_fields(cls)
    if not _is_namedtuple(cls) and (any(not f.init for f in dataclasses.fields(cls))  # type: ignore
                                    or hasattr(cls, "__post_init__")):
        raise src.error(e, f"dataclass {cls.__name__} sets fields outside __init__'s "
                        "parameters (init=False fields or __post_init__)",
                        "dataclasses whose fields are just their __init__ parameters")
    if any(isinstance(a, ast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords):
        raise src.error(e, "*args and **kwargs in calls are not supported")
    if len(e.args) > len(names):
        raise src.error(e, f"{cls.__name__}() takes {len(names)} fields, {len(e.args)} given",
                        f"its fields: {', '.join(names)}")
    out: dict[str, Any] = dict(zip(names, e.args, strict=False))
    for kw in e.keywords:
        if kw.arg not in names:
            raise src.error(kw.value, f"{cls.__name__} has no field '{kw.arg}'",
                            f"its fields: {', '.join(names)}")
        if kw.arg in out:
            raise src.error(kw.value, f"{cls.__name__}() got field '{kw.arg}' twice")
        out[kw.arg] = kw.value
    for name in names:
        if name in out:
            continue
        d = defaults.get(name, dataclasses.MISSING)
        if d is dataclasses.MISSING:
            raise src.error(e, f"{cls.__name__}() misses field '{name}'",
                            f"its fields: {', '.join(names)}")
        if not (d is None or isinstance(d, bool | int | float)):
            raise src.error(e, f"the default of {cls.__name__}.{name} is not a number",
                            f"pass '{name}' explicitly")
        out[name] = _Default(d)
    return [out[n] for n in names]


@dataclasses.dataclass(frozen=True)
class _Default:
    """A field's default value (a number or None), as `record_arguments` gives it."""

    value: Any


def default_value(arg: object) -> tuple[bool, Any]:
    """(True, value) when `arg` of `record_arguments` is a default, else (False, None)."""
    return (True, arg.value) if isinstance(arg, _Default) else (False, None)


def constant_type(v: object) -> FType:
    """The type of a default or key constant used as a value."""
    from enzyme_py.frontend.ftypes import BOOL, F64, I64

    if v is None:
        return NONE
    return BOOL if isinstance(v, bool) else I64 if isinstance(v, int) else F64


# --- keys ---------------------------------------------------------------------------------------


def constant_key(static_keys: dict[str, object], e: ast.expr) -> object:
    """The constant `e` denotes as a key (int or str), else `NO_KEY`."""
    if isinstance(e, ast.Constant) and isinstance(e.value, int | str) and \
            not isinstance(e.value, bool):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub | ast.UAdd) and \
            isinstance(e.operand, ast.Constant) and type(e.operand.value) is int:
        return -e.operand.value if isinstance(e.op, ast.USub) else e.operand.value
    if isinstance(e, ast.Name) and e.id in static_keys:
        return static_keys[e.id]
    return NO_KEY


def child_index(src: SourceInfo, t: Container, key: object, node: ast.AST) -> int:
    """The position of child `t[key]` (a clear error when there is none)."""
    tree = as_tree(t)
    n = len(tree.items)
    if tree.kind == "dict":
        k = tree.index_of(key)
        if k is None:
            keys = ", ".join(repr(x) for x in tree.keys) or "none"
            raise src.error(node, f"no key {key!r} in this dict; its keys: {keys}", READ_HINT)
        return k
    if tree.kind == "record" and not _is_namedtuple(tree.cls):  # type: ignore[arg-type]
        raise src.error(node, f"{describe(tree)} is not subscriptable",
                        f"its fields as attributes: {_fields_of(tree)}")
    if not isinstance(key, int):
        hint = f"its fields as attributes: {_fields_of(tree)}" if tree.kind == "record" else \
            READ_HINT
        raise src.error(node, f"{describe(tree)} is indexed by integers, not {key!r}", hint)
    if not -n <= key < n:
        raise src.error(node, f"index {key} is out of range for {describe(tree)} of {n} "
                        f"item{'s' if n != 1 else ''}", READ_HINT)
    return key % n


def field_index(src: SourceInfo, t: Container, attr: str, node: ast.AST) -> int:
    """The position of record field `t.attr` (a clear error for other containers)."""
    tree = as_tree(t)
    if tree.kind != "record":
        hint = f"d[{attr!r}]" if tree.kind == "dict" else READ_HINT
        raise src.error(node, f"attribute '{attr}' of {describe(tree)} is not supported "
                        f"({tree})", hint)
    if attr not in tree.keys:
        raise src.error(node, f"{describe(tree)} has no field '{attr}'",
                        f"its fields: {_fields_of(tree)}")
    return tree.keys.index(attr)


def _fields_of(t: Tree) -> str:
    return ", ".join(str(k) for k in t.keys) or "none"


def slice_children(src: SourceInfo, t: Container, s: ast.Slice) -> tuple[Tree, range]:
    """The type of `t[a:b:c]` (constant bounds) and which children it keeps."""
    tree = as_tree(t)
    if tree.kind not in ("tuple", "list"):
        raise src.error(s, f"{describe(tree)} cannot be sliced", READ_HINT)
    bounds: list[int | None] = []
    for part in (s.lower, s.upper, s.step):
        v = None if part is None else constant_key({}, part)
        if v is not None and not isinstance(v, int):
            raise src.error(part, "a container is sliced with constant integers", READ_HINT)
        bounds.append(v)  # type: ignore[arg-type]
    if bounds[2] == 0:
        raise src.error(s, "slice step cannot be zero")
    keep = range(len(tree.items))[slice(*bounds)]
    return Tree(tree.kind, tuple(tree.items[k] for k in keep)), keep


def unpacked(src: SourceInfo, t: Container, n: int, node: ast.AST) -> list[FType]:
    """The children `a, b, ... = t` binds (tuples, lists and NamedTuples unpack)."""
    tree = as_tree(t)
    if tree.kind == "dict":
        raise src.error(node, "unpacking a dict gives its keys, which are no values here",
                        "d['W'], or for k, v in d.items()")
    if tree.kind == "record" and not _is_namedtuple(tree.cls):  # type: ignore[arg-type]
        raise src.error(node, f"{describe(tree)} cannot be unpacked",
                        f"its fields as attributes: {_fields_of(tree)}")
    if len(tree.items) != n:
        raise src.error(node, f"cannot unpack {describe(tree)} of {len(tree.items)} items "
                        f"into {n} names")
    return list(tree.items)


def iterated(src: SourceInfo, t: Container, node: ast.AST) -> list[FType]:
    """The children `for x in t` visits (tuples, lists and NamedTuples iterate)."""
    tree = as_tree(t)
    if tree.kind == "dict":
        raise src.error(node, "iterating a dict directly is not supported here",
                        "for v in d.values(), for k, v in d.items(), for k in d.keys()")
    if tree.kind == "record" and not _is_namedtuple(tree.cls):  # type: ignore[arg-type]
        raise src.error(node, f"{describe(tree)} is not iterable",
                        f"its fields as attributes: {_fields_of(tree)}")
    return list(tree.items)


__all__ = ["NO_KEY", "Container", "as_tree", "child_index", "constant_key", "field_index",
           "flat_tuple", "is_record_class", "record_arguments", "tree_value", "unify_values"]
