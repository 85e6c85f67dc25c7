"""Names bound at one site that is compiled once: every value they ever hold comes from one
piece of compiled code.

A variable's view is kept in allocas and loaded where it is read, so its extents reach a
reader as fresh loads, and a constant extent (the 1 of `keepdims=True`) is no longer known
to be 1: `v - np.max(v, axis=-1, keepdims=True)` needed a run-time broadcast test, and a
gradient's first call left for a second compile on it. Where the name is bound once, an
extent that is a constant or a function argument at the binding is that same value at every
read compiled after it (`array_vars`).

A binding site is a parameter, an assignment target, a `for` target, an `except ... as`, a
`with ... as`, a walrus or a `del`. A site counts as compiled once unless it lies in the
body of an unrolled loop (`Typer.unrolled`: compiled once per element), a nested function
or lambda (compiled at each call), or a comprehension (its own bindings).

Invariant: pure AST analysis; a name it returns has exactly one site, and that site is
compiled at most once per compile of the function.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp, ast.ClassDef)


def once_bound(fdef: ast.FunctionDef, unrolled: set[int]) -> frozenset[str]:
    """The names of `fdef` with one binding site, compiled once (see the module docstring);
    `unrolled`: ids of the loops (and comprehension generators) compiled once per element."""
    sites: Counter[str] = Counter()
    repeated: set[str] = set()
    for name, repeats in _sites(fdef, unrolled):
        sites[name] += 1
        if repeats:
            repeated.add(name)
    for node in ast.walk(fdef):  # names declared global or nonlocal are not ours
        if isinstance(node, ast.Global | ast.Nonlocal):
            repeated.update(node.names)
    return frozenset(n for n, count in sites.items() if count == 1 and n not in repeated)


def _sites(fdef: ast.FunctionDef, unrolled: set[int]
           ) -> Iterator[tuple[str, bool]]:
    """(name, whether the site may be compiled more than once) per binding site."""
    for a in (*fdef.args.posonlyargs, *fdef.args.args, *fdef.args.kwonlyargs):
        yield a.arg, False
    for a in (fdef.args.vararg, fdef.args.kwarg):
        if a is not None:
            yield a.arg, False

    def visit(node: ast.AST, repeats: bool) -> Iterator[tuple[str, bool]]:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            yield node.id, repeats
        elif isinstance(node, ast.arg):
            yield node.arg, True  # (a nested function's or lambda's parameter)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            yield node.name, repeats
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name, repeats
        elif isinstance(node, ast.alias):
            yield (node.asname or node.name).split(".")[0], repeats
        inner = repeats or isinstance(node, _SCOPES) or \
            (isinstance(node, ast.For | ast.comprehension) and id(node) in unrolled)
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inner)

    for stmt in fdef.body:
        yield from visit(stmt, False)
