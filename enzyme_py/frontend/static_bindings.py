"""Where a name may be bound at compile time (a container, or the variable of an unrolled loop
over children of different types: the typer's `static_names`), checked once the function is
typed.

The compiler binds such a name to a value while it compiles the statements in order, so the
value it reads is the last one bound before, in source order. That is Python's value only
where no other path can reach the read with another binding: so a compile-time name is bound
only in straight-line code at the function's top level, counting the bodies of unrolled loops
there (any number of times, one after the other), or as the variable of an unrolled loop
anywhere. A name that an unrolled loop inside a branch or a runtime loop binds is bound by
unrolled loops only, never rebound in such a loop's body, and read only inside those loops
(the compiler unbinds it after each: `scoped`); a comprehension over a container counts as
such a loop. `break` and `continue` of an unrolled loop
are refused (its iterations are straight-line copies).

Invariant: every binding of a compile-time name passes these rules, or the function is
refused with the binding's line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

_WHERE = "bind it in straight-line code at the function's top level, or loop over the " \
    "container (for x in t); index it where it is used (t['W'])"


@dataclass(frozen=True)
class Site:
    node: ast.AST
    top: bool  # in straight-line code at the top level (unrolled loop bodies included)
    loop: bool  # the variable of an unrolled loop
    inside: frozenset[str]  # the variables of the unrolled loops around it


def check(typer: Any) -> set[str]:
    """Check the bindings of `typer.static_names`; the names to unbind after their loops."""
    sites: dict[str, list[Site]] = {}
    for p in typer.fdef.args.args:
        sites.setdefault(p.arg, []).append(Site(p, True, False, frozenset()))
    _walk(typer, typer.fdef.body, True, [], frozenset(), sites)
    for n in ast.walk(typer.fdef):  # comprehension variables: bound in a runtime loop,
        if isinstance(n, ast.comprehension):  # or an unrolled one's, only while it runs
            unrolled = id(n) in typer.unrolled
            for name in _names(n.target):
                sites.setdefault(name.id, []).append(Site(name, False, unrolled,
                                                          frozenset()))
    scoped: set[str] = set()
    for name, where in sites.items():
        if name not in typer.static_names:
            continue
        what = _what(typer, name)
        for site in where:
            if not site.top and not site.loop:
                raise typer.src.error(site.node, f"'{name}' {what}, which is bound at compile "
                                      "time; it cannot be bound inside an if, while or "
                                      "for-range block", _WHERE)
        if any(s.loop and not s.top for s in where):
            for site in where:
                if not site.loop:
                    raise typer.src.error(site.node, f"'{name}' is the variable of a loop over "
                                          "a container inside a branch or loop, so it cannot "
                                          "be bound elsewhere too", "use another name")
                if name in site.inside:
                    raise typer.src.error(site.node, f"'{name}' is rebound inside the loop "
                                          "over a container that binds it", "use another name")
            scoped.add(name)
    return scoped


def _what(typer: Any, name: str) -> str:
    from enzyme_py.frontend import trees
    from enzyme_py.frontend.ftypes import NoneType

    t = typer.env.get(name)
    if trees.is_container(t):
        return f"holds {t}"
    if isinstance(t, NoneType):  # None, or a string (`ftypes.Text`)
        return f"holds {t}"
    return "is the variable of a loop over a container's children of different types"


def _names(target: ast.AST) -> list[ast.Name]:
    """The names a target binds (not those a subscript target reads)."""
    return [n for n in ast.walk(target) if isinstance(n, ast.Name) and
            isinstance(n.ctx, ast.Store)]


def _walk(typer: Any, body: list[ast.stmt], top: bool, loops: list[bool],
          inside: frozenset[str], sites: dict[str, list[Site]]) -> None:
    def add(target: ast.AST, loop: bool = False) -> None:
        for n in _names(target):
            sites.setdefault(n.id, []).append(Site(n, top, loop, inside))

    for s in body:
        if isinstance(s, ast.For):
            unrolled = id(s) in typer.unrolled
            add(s.target, unrolled)
            names = frozenset(n.id for n in _names(s.target)) if unrolled else frozenset()
            _walk(typer, s.body, top and unrolled, [*loops, unrolled], inside | names, sites)
            _walk(typer, s.orelse, False, loops, inside, sites)
        elif isinstance(s, ast.While):
            _walk(typer, s.body, False, [*loops, False], inside, sites)
            _walk(typer, s.orelse, False, loops, inside, sites)
        elif isinstance(s, ast.If | ast.With | ast.Try):
            for part in ("body", "orelse", "finalbody"):
                _walk(typer, getattr(s, part, []), False, loops, inside, sites)
        elif isinstance(s, ast.Break | ast.Continue) and loops and loops[-1]:
            word = "break" if isinstance(s, ast.Break) else "continue"
            raise typer.src.error(s, f"'{word}' in a loop over a container is not supported "
                                  "(the loop is unrolled at compile time)",
                                  "a loop over range(len(...)) of arrays, or a flag tested "
                                  "in the body")
        elif isinstance(s, ast.Assign):
            for t in s.targets:
                add(t)
        elif isinstance(s, ast.AnnAssign | ast.AugAssign):
            add(s.target)
