"""Functions defined inside the function being compiled: nested `def`s and lambdas bound to a
name (`sq = lambda v: v * v`), compiled like module functions and inlined like them.

A local function reads the enclosing function's variables (a closure): each variable its body
uses but does not assign, and that the enclosing function binds, becomes an extra parameter,
passed the variable's value at every call — Python's late binding, since a closure sees the
variable as it is when called.

Invariants: a local function never assigns an enclosing variable (that needs `nonlocal`, a
clear error); one is identified by the enclosing function and its position in the source,
so retyping the enclosing function finds the same compiled specialization; a name bound to a
local function is not also a variable.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from enzyme_py.frontend.errors import SourceInfo


@dataclass(frozen=True)
class LocalFunction:
    owner: object  # the enclosing Python function
    name: str
    line: int
    col: int
    fdef: ast.FunctionDef = field(compare=False, hash=False)
    src: SourceInfo = field(compare=False, hash=False)
    globals: dict = field(compare=False, hash=False)
    captured: tuple[str, ...] = ()  # enclosing variables passed after the parameters
    siblings: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def __name__(self) -> str:  # noqa: PLW3201 - read like a function's name
        return self.name

    def with_captures(self) -> ast.FunctionDef:
        """The definition with the captured variables appended as parameters."""
        args = ast.arguments(posonlyargs=[], args=[*self.fdef.args.args,
                                                   *(ast.arg(n) for n in self.captured)],
                             vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                             defaults=list(self.fdef.args.defaults))
        out = ast.FunctionDef(self.fdef.name, args, self.fdef.body, [], None)
        return ast.copy_location(out, self.fdef)


def collect(owner: object, fdef: ast.FunctionDef, src: SourceInfo,
            globals_: dict) -> dict[str, LocalFunction]:
    """The local functions `fdef` defines (nested defs and named lambdas, at any depth of
    its statements), by name."""
    outer = {a.arg for a in fdef.args.args} | {
        n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    found: dict[str, LocalFunction] = {}
    for node in _statements(fdef.body):
        inner: ast.FunctionDef | None = None
        if isinstance(node, ast.FunctionDef):
            inner = node
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda) and \
                len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            lam = node.value
            inner = ast.FunctionDef(node.targets[0].id, lam.args,
                                    [ast.copy_location(ast.Return(lam.body), lam.body)], [],
                                    None)
            ast.copy_location(inner, node)
        if inner is None:
            continue
        if inner.name in found:
            raise src.error(inner, f"'{inner.name}' is defined twice in this function",
                            "one definition per local function name")
        _check(inner, src)
        found[inner.name] = LocalFunction(owner, inner.name, inner.lineno, inner.col_offset,
                                          inner, src, globals_,
                                          _captured(inner, outer - {inner.name}))
    names = set(found)  # other local functions are called, not passed ...
    captured = {k: [n for n in f.captured if n not in names] for k, f in found.items()}
    calls = {k: {n.id for n in ast.walk(f.fdef) if isinstance(n, ast.Name) and n.id in names
                 and n.id != k} for k, f in found.items()}
    changed = True
    while changed:  # ... but what a called one reads, its caller passes on
        changed = False
        for k in found:
            for g in calls[k]:
                for n in captured[g]:
                    if n not in captured[k]:
                        captured[k].append(n)
                        changed = True
    out = {k: LocalFunction(f.owner, f.name, f.line, f.col, f.fdef, f.src, f.globals,
                            tuple(captured[k]))
           for k, f in found.items()}
    for f in out.values():
        f.siblings.update(out)
    return out


def _statements(body: list[ast.stmt]):
    for s in body:
        yield s
        if isinstance(s, ast.FunctionDef | ast.Lambda):
            continue
        for sub in ("body", "orelse"):
            inner = getattr(s, sub, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _check(inner: ast.FunctionDef, src: SourceInfo) -> None:
    for n in ast.walk(inner):
        if isinstance(n, ast.Nonlocal | ast.Global):
            raise src.error(n, "nonlocal/global in a local function is not supported",
                            "return the new value instead")
        if n is not inner and isinstance(n, ast.FunctionDef):
            raise src.error(n, "a function nested two levels deep is not supported",
                            "define it beside the others, in the outer function")
    if inner.decorator_list:
        raise src.error(inner.decorator_list[0], "decorators on local functions are not "
                        "supported")


def _captured(inner: ast.FunctionDef, outer: set[str]) -> tuple[str, ...]:
    params = {a.arg for a in inner.args.args}
    stored = {n.id for n in ast.walk(inner) if isinstance(n, ast.Name) and
              isinstance(n.ctx, ast.Store)}
    loaded = [n.id for n in ast.walk(inner) if isinstance(n, ast.Name) and
              isinstance(n.ctx, ast.Load)]
    out: list[str] = []
    for name in loaded:
        if name in outer and name not in params and name not in out:
            if name in stored:
                continue  # a local of the inner function that shadows the outer one
            out.append(name)
    return tuple(out)
