"""NumPy functions and array methods as data: each name's type rule beside its emitter.

An entry is registered where it is implemented (`@array_function(np.sum, method="sum")`),
and `catalog` imports every module that does (this module imports none of them); the typer
asks `type_rule` for the result type and the compiler calls `emit`. A method call
`x.sum(axis=0)` is the function called with the receiver first.

Invariants: a type rule only reads types and compile-time constants (`axis=`, `keepdims=`,
shape tuples of literals), returns None when an operand is not typed yet (the typer's
fixpoint), and raises the typer's `FrontendError` for a call NumPy would reject; lookups are
by the function object, so `np.sum`, `numpy.sum` and `from numpy import sum` are one entry.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling, TypeContext
    from enzyme_py.frontend.errors import FrontendError
    from enzyme_py.frontend.ftypes import FType


@dataclass
class TypeCall:
    """What a type rule sees: the call, its positional argument types, its keywords."""

    typer: TypeContext
    node: ast.Call
    args: list[FType | None]
    arg_nodes: list[ast.expr]
    keywords: dict[str, ast.expr]

    def error(self, message: str, supported: str = "", node: ast.AST | None = None
              ) -> FrontendError:
        return self.typer.src.error(node or self.node, message, supported)

    def typeof(self, e: ast.expr) -> FType | None:
        return self.typer.expr_type(e, lenient=True)

    def constant(self, e: ast.expr) -> Any:
        """A compile-time constant: a literal, a tuple of them, -k, a module constant."""
        return constant_value(self.typer, e)

    def only(self, *allowed: str) -> None:
        for k, v in self.keywords.items():
            if k not in allowed:
                raise self.error(f"keyword '{k}' is not supported here",
                                 f"keywords: {', '.join(allowed) or 'none'}", v)


@dataclass
class EmitCall:
    """What an emitter sees: the compiler, the call, compiled positional arguments (arrays as
    views or lazies, numbers as SVal; list and tuple literals as Python lists of those), the
    keyword nodes and the result type the rule gave."""

    c: Compiling
    node: ast.Call
    args: list[Any]
    arg_nodes: list[ast.expr]
    keywords: dict[str, ast.expr]
    type: FType

    def constant(self, e: ast.expr) -> Any:
        return constant_value(self.c.typer, e)


@dataclass(frozen=True)
class ArrayFunction:
    name: str
    type_rule: Callable[[TypeCall], FType | None]
    emit: Callable[[EmitCall], Any]
    lists: bool = False  # list/tuple literal arguments are passed as lists of values
    view: bool = False  # the result is a view of the first argument's memory
    filters: bool = False  # a filtered comprehension argument is fine (filtered-out: 0)


FUNCTIONS: dict[object, ArrayFunction] = {}
METHODS: dict[str, ArrayFunction] = {}


def array_function(*objects: object, type_rule: Callable[[TypeCall], FType | None],
                   method: str | tuple[str, ...] = (), lists: bool = False,
                   view: bool = False, filters: bool = False) -> Callable:
    """Register the decorated emitter, with `type_rule`, for `objects` and method names."""

    def wrap(emit: Callable[[EmitCall], Any]) -> Callable[[EmitCall], Any]:
        names = (method,) if isinstance(method, str) else method
        name = getattr(objects[0], "__name__", "?") if objects else names[0]
        entry = ArrayFunction(name, type_rule, emit, lists, view, filters)
        for o in objects:
            FUNCTIONS[o] = entry
        for m in names:
            METHODS[m] = entry
        return emit

    return wrap


def constant_value(typer: TypeContext, e: ast.expr) -> Any:
    """The value of a compile-time constant expression, or raise the typer's error."""
    if isinstance(e, ast.Constant) and isinstance(e.value, int | float | bool | type(None)):
        return e.value
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        v = constant_value(typer, e.operand)
        if isinstance(v, int | float) and not isinstance(v, bool):
            return -v
    if isinstance(e, ast.Tuple | ast.List):
        return tuple(constant_value(typer, x) for x in e.elts)
    if isinstance(e, ast.Name | ast.Attribute) and not (
            isinstance(e, ast.Name) and e.id in typer.env):
        g = typer.resolve_global(e)
        if isinstance(g, int | float | bool) or g is None or isinstance(g, tuple) and all(
                isinstance(x, int | float | bool) or x is None for x in g):
            return g
    raise typer.src.error(e, "a compile-time constant is needed here",
                          "literal integers, tuples of them, True/False, module constants")
