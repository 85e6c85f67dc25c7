"""Loops over containers, unrolled at compile time: `for x in t`, `for W, b in layers`,
`for k, x in enumerate(t)`, `for a, b in zip(t, u)`, and over a dict's `.values()`,
`.items()` and `.keys()`.

Each iteration is typed and compiled with the loop's names bound to that child, so children
may differ in type and shape. A name that gets children of one number or array type is an
ordinary variable (stored each iteration, as Python does); one that gets containers, or
children of different types, is bound at compile time (the typer's `static_names`, see
`static_bindings` for where that is sound). A dict's key (`.items()`, `.keys()`) and the
counter of `enumerate` (when nothing else binds that name) are compile-time constants while
the body is compiled (the typer's `static_keys`): they index other containers, `u[k]`, and
a key that is a string is nothing else.

Invariants: the containers are evaluated once, before the first iteration, and their fresh
arrays kept until the exit (`tree_values.pin`); `zip` stops at the shortest; a dict's
children come in sorted key order (JAX's flattening order, the order in which the API rebuilds
the caller's dict, as inside `jax.jit`), not the caller's insertion order; `break` and
`continue` of such a loop are refused (by `static_bindings`); an iteration that returns
ends the unrolling.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from enzyme_py.frontend import iteration, trees
from enzyme_py.frontend.ftypes import I64, NONE, Array, FType, Tree, unify
from enzyme_py.frontend.values import const

_MODES = {"values": "values", "items": "pairs", "keys": "keys"}


@dataclass(frozen=True)
class Sequence:
    target: ast.expr  # bound to each child (a name, or names to unpack it into)
    source: ast.expr  # the container, evaluated once
    mode: str  # "children", "values", "pairs" (.items()) or "keys"


@dataclass(frozen=True)
class Unrolled:
    index: ast.expr | None  # enumerate's counter
    seqs: list[Sequence]
    types: list[trees.Container]  # each source's type

    @property
    def count(self) -> int:
        return min(len(trees.as_tree(t).items) for t in self.types)

    def children(self, src: Any, k: int) -> list[tuple[ast.expr, object, FType]]:
        """Iteration k's bindings: (target, key or None, child type) per sequence; `pairs`
        gives the key's target first."""
        out: list[tuple[ast.expr, object, FType]] = []
        for seq, t in zip(self.seqs, self.types, strict=True):
            tree = trees.as_tree(t)
            if seq.mode == "children":
                out.append((seq.target, None, trees.iterated(src, t, seq.source)[k]))
                continue
            key = tree.keys[k]
            if seq.mode == "keys":
                out.append((seq.target, key, key_type(key)))
            elif seq.mode == "values":
                out.append((seq.target, None, tree.items[k]))
            else:
                assert isinstance(seq.target, ast.Tuple)
                out.append((seq.target.elts[0], key, key_type(key)))
                out.append((seq.target.elts[1], None, tree.items[k]))
        return out


PENDING = object()  # a loop over a container whose type is not known yet


def key_type(key: object) -> FType:
    """A key's type as a variable: an int is a number; a str has none (NONE)."""
    return I64 if isinstance(key, int) else NONE


def parse(typer: Any, s: ast.For) -> Unrolled | None | object:
    """The loop as an unrolled loop, None when it runs over arrays, or `PENDING`."""
    seqs = iteration.parse(s, typer.resolve_global, typer.src.error)
    out: list[Sequence] = []
    types: list[trees.Container] = []
    pending = arrays = False
    for target, it in seqs.items:
        source, mode = it, "children"
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and \
                it.func.attr in _MODES and not it.args and not it.keywords and \
                not typer._is_global_ref(it.func.value):
            source, mode = it.func.value, _MODES[it.func.attr]
        t = typer.container_of(source)
        if t is None:
            if mode != "children":
                base = typer.expr_type(source, lenient=True)
                if base is None:
                    pending = True
                    continue
                raise typer.src.error(it, f".{it.func.attr}() of {base} is not supported",  # type: ignore[union-attr]
                                      "d.values(), d.items(), d.keys() of a dict")
            if typer.expr_type(source, lenient=True) is None:
                pending = True
            else:
                arrays = True
            continue
        if mode != "children" and trees.as_tree(t).kind != "dict":
            raise typer.src.error(it, f".{it.func.attr}() is a dict's; this is "  # type: ignore[union-attr]
                                  f"{trees.describe(t)}", "for x in t over a tuple or list")
        if mode == "pairs" and not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            raise typer.src.error(target, "unpack .items() into two names",
                                  "for k, v in d.items()")
        if mode in ("pairs", "keys"):
            key_target = target.elts[0] if mode == "pairs" else target  # type: ignore[attr-defined]
            if not isinstance(key_target, ast.Name):
                raise typer.src.error(key_target, "a dict's key is bound to a plain name")
        out.append(Sequence(target, source, mode))
        types.append(t)
    if not out:
        return PENDING if pending else None
    if arrays:
        raise typer.src.error(s.iter, "a loop over containers and arrays together is not "
                              "supported", "zip(t, u) of containers, or zip(x, y) of arrays")
    if pending:
        return PENDING
    return Unrolled(seqs.index, out, types)


def bindings(typer: Any, target: ast.expr, t: FType) -> list[tuple[ast.Name, FType]]:
    """The names `target` binds to a child of type `t` (unpacked when it is a tuple)."""
    if isinstance(target, ast.Name):
        return [(target, t)]
    if isinstance(target, ast.Tuple | ast.List):
        if not trees.is_container(t):
            raise typer.src.error(target, f"cannot unpack {t} into {len(target.elts)} names")
        items = trees.unpacked(typer.src, t, len(target.elts), target)  # type: ignore[arg-type]
        return [b for sub, it in zip(target.elts, items, strict=True)
                for b in bindings(typer, sub, it)]
    raise typer.src.error(target, "the loop variable must be a name or a tuple of names")


def _single_binding(typer: Any, name: str) -> bool:
    return sum(1 for n in ast.walk(typer.fdef) if isinstance(n, ast.Name) and n.id == name
               and isinstance(n.ctx, ast.Store)) == 1


def _plan(typer: Any, loop: Unrolled) -> tuple[list[list[tuple]], set[str]]:
    """Each iteration's (name node, key, type) bindings, and the names that become
    compile-time bindings (containers, children of different types, keys)."""
    per_iteration: list[list[tuple]] = []
    seen: dict[str, FType | None] = {}
    static: set[str] = set()
    index = loop.index.id if isinstance(loop.index, ast.Name) else None
    if loop.index is not None and index is None:
        raise typer.src.error(loop.index, "the counter must be a plain name")
    if index is not None and _single_binding(typer, index):
        static.add(index)  # a constant key while the body is compiled
    for k in range(loop.count):
        row: list[tuple] = []
        if index is not None:
            row.append((loop.index, k if index in static else None, I64))
        for target, key, t in loop.children(typer.src, k):
            if key is not None:
                assert isinstance(target, ast.Name)
                static.add(target.id)
                row.append((target, key, t))
                continue
            for name, bt in bindings(typer, target, t):
                row.append((name, None, bt))
                old = seen.get(name.id, bt)
                if trees.is_container(bt) or old is None or unify(old, bt) is None:
                    static.add(name.id)
                seen[name.id] = None if name.id in static else unify(old, bt)
        per_iteration.append(row)
    return per_iteration, static


def type_loop(typer: Any, s: ast.For, loop: Unrolled) -> None:
    """Type the body once per child (the typer's side of the loop)."""
    typer.unrolled.add(id(s))
    type_iterations(typer, loop, lambda: typer._block(s.body))


def type_iterations(typer: Any, loop: Unrolled, each: Callable[[], None]) -> None:
    """Bind the loop's names to each child's type in turn and call `each` (a body's or a
    comprehension element's typing)."""
    for seq in loop.seqs:
        typer.note_sources(seq.source)
    rows, static = _plan(typer, loop)
    typer.static_names.update(static)
    for row in rows:
        for name, key, t in row:
            if key is not None:
                typer.static_keys[name.id] = key
                if isinstance(key, str):
                    typer.key_names.add(name.id)
            typer._assign_name(name.id, t, name)
            if isinstance(t, Array) and name.id not in typer.static_names:
                typer._may_view.add(name.id)  # a view of the container's array
                typer._not_contiguous.add(name.id)
                root = typer.view_root(_source_of(loop, name))
                if root is not None and root not in typer.fixed_params:
                    typer.shared.add(root)
        each()
    for row in rows[:1]:
        for name, key, _ in row:
            if key is not None:
                typer.static_keys.pop(name.id, None)


def _source_of(loop: Unrolled, name: ast.Name) -> ast.expr:
    for seq in loop.seqs:
        if any(n is name for n in ast.walk(seq.target)):
            return seq.source
    return loop.seqs[0].source


def compile_loop(c: Any, s: ast.For, loop: Unrolled) -> None:
    """Compile the body once per child (the compiler's side of the loop)."""
    def body() -> bool:
        if c.terminated():
            return False  # an earlier iteration returned
        c.block(s.body)
        return True

    compile_iterations(c, loop, body)


def compile_iterations(c: Any, loop: Unrolled, each: Callable[[], bool]) -> None:
    """Bind the loop's names to each child's value in turn and call `each` (False: stop);
    the containers are evaluated once, first."""
    from enzyme_py.frontend.tree_values import StaticVar, as_value, pin

    values = [as_value(c, c.expr(seq.source), t) for seq, t in zip(loop.seqs, loop.types,
                                                                   strict=True)]
    values = [pin(c, v, seq.source) for v, seq in zip(values, loop.seqs, strict=True)]
    rows, _ = _plan(c.typer, loop)
    bound: set[str] = set()
    for k, row in enumerate(rows):
        if k > 0 and c.terminated():
            break
        children = _children(loop, values, k)
        for (name, key, _), value in zip(row, children, strict=True):
            bound.add(name.id)
            if key is not None:
                c.typer.static_keys[name.id] = key
                value = const(I64, key) if isinstance(key, int) else None
            if key is not None and isinstance(key, str):
                var = c.vars[name.id]
                assert isinstance(var, StaticVar)
                var.value, var.bound = None, True
                c.typer.env[name.id] = NONE
            else:
                c.store_var(name.id, value, name)
        if not each():
            break
    for name in bound:
        c.typer.static_keys.pop(name, None)
        var = c.vars.get(name)
        if isinstance(var, StaticVar) and name in c.typer.scoped_names:
            var.bound = False  # bound inside a branch or a runtime loop: not after it


def _children(loop: Unrolled, values: list[Any], k: int) -> list[Any]:
    """Iteration k's values, in the order of `_plan`'s row."""
    from enzyme_py.frontend.tree_values import TVal

    out: list[Any] = []
    if loop.index is not None:
        out.append(const(I64, k))
    for seq, v in zip(loop.seqs, values, strict=True):
        assert isinstance(v, TVal)
        if seq.mode == "children":
            out.extend(_unpacked(seq.target, v.items[k]))
        elif seq.mode == "values":
            out.extend(_unpacked(seq.target, v.items[k]))
        elif seq.mode == "keys":
            out.append(None)
        else:
            assert isinstance(seq.target, ast.Tuple)
            out.append(None)
            out.extend(_unpacked(seq.target.elts[1], v.items[k]))
    return out


def _unpacked(target: ast.expr, v: Any) -> list[Any]:
    """The values of the names `target` binds (in `bindings`' order)."""
    from enzyme_py.frontend.tree_values import TVal

    if isinstance(target, ast.Name):
        return [v]
    assert isinstance(v, TVal) and isinstance(target, ast.Tuple | ast.List)
    return [x for sub, item in zip(target.elts, v.items, strict=True)
            for x in _unpacked(sub, item)]


__all__ = ["PENDING", "Tree", "Unrolled", "compile_iterations", "compile_loop", "parse",
           "type_iterations", "type_loop"]
