"""Module-level tuple constants as literals: `SHAPE = (3, 4)` at module level, then
`np.zeros(SHAPE)`, `np.tile(a, REPS)` or `for k in range(len(SIZES))` in a compiled function.

A plain name that the function reads from its globals (or closure) and that holds a tuple of
Python ints, floats and bools (nested tuples too) is replaced by the literal it holds, so
every construct that takes a literal tuple (shapes, repetition counts, axes, indexes) takes
the constant, with the literal's types: `(3, 4)` is a tuple of two ints known at compile time.

Invariants: the shared, parsed definition is never changed (a function with constants to
replace gets a copy); a name bound anywhere in the function (a parameter, an assignment, a
loop or comprehension target, a nested function, lambda or import) is never replaced, so a
local that shadows a global keeps Python's meaning; each replaced name is reported with its
value (`inline_tuple_constants`'s result), so the persistent cache can see it change.
"""

from __future__ import annotations

import ast
import copy

_NUMBERS = (bool, int, float)


def is_constant_tuple(value: object) -> bool:
    """A plain tuple (not a named tuple: a record has its own rules) of Python ints, floats
    and bools, or of such tuples (at any depth)."""
    return type(value) is tuple and all(
        type(v) in _NUMBERS or is_constant_tuple(v) for v in value)


def inline_tuple_constants(fdef: ast.FunctionDef, scope: dict[str, object]
                           ) -> tuple[ast.FunctionDef, list[tuple[str, object]]]:
    """`fdef` with each global tuple constant it reads written as its literal, and the
    (name, value) pairs replaced; `fdef` itself when there are none."""
    bound = _bound_names(fdef)
    wanted = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and
              isinstance(n.ctx, ast.Load) and n.id not in bound and
              is_constant_tuple(scope.get(n.id))}
    if not wanted:
        return fdef, []
    out = _Inline(wanted, scope).visit(copy.deepcopy(fdef))
    assert isinstance(out, ast.FunctionDef)
    return out, [(name, scope[name]) for name in sorted(wanted)]


class _Inline(ast.NodeTransformer):
    def __init__(self, wanted: set[str], scope: dict[str, object]) -> None:
        self.wanted = wanted
        self.scope = scope

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.wanted and isinstance(node.ctx, ast.Load):
            return _literal(self.scope[node.id], node)
        return node


def _literal(value: object, at: ast.AST) -> ast.expr:
    if isinstance(value, tuple):
        node: ast.expr = ast.Tuple(elts=[_literal(v, at) for v in value], ctx=ast.Load())
    else:
        node = ast.Constant(value=value)
    return ast.copy_location(node, at)


def _bound_names(fdef: ast.FunctionDef) -> set[str]:
    """Every name the function (or a scope nested in it) binds."""
    out: set[str] = set()
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            out.add(node.id)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node is not fdef:
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
    return out
