"""Arguments of registered NumPy calls as NumPy spells them: by position or by keyword, and
the `dtype=` keyword.

Invariants: an argument given both by position and by keyword is an error; `dtype_of` gives
the element type `dtype=` names (a Python or NumPy scalar type, a dtype string, `x.dtype` of a
local array), the default without one, and None while `x` is not typed yet (the typer's
fixpoint comes back); an unknown dtype is the typer's `FrontendError`.
"""

from __future__ import annotations

import ast
import builtins
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall
from enzyme_py.frontend.ftypes import (
    BOOL,
    F32,
    F64,
    I32,
    I64,
    Array,
    FType,
    Scalar,
    scalar_of_dtype,
)

_DTYPES: dict[object, Scalar] = {np.float64: F64, np.float32: F32, np.int64: I64,
                                 np.int32: I32, np.bool_: BOOL, builtins.float: F64,
                                 builtins.int: I64, builtins.bool: BOOL}
_DTYPE_HINT = "float, int, bool, np.float64, np.float32, np.int64, np.int32, x.dtype"


# --- arguments --------------------------------------------------------------------------------


def arg_node(call: TypeCall | EmitCall, k: int, name: str) -> ast.expr | None:
    """The argument at position `k` or given as `name=`, as a node."""
    if k < len(call.arg_nodes):
        if name in call.keywords:
            raise call_error(call, f"argument '{name}' given by position and by keyword")
        return call.arg_nodes[k]
    return call.keywords.get(name)


def arg_value(call: EmitCall, k: int, name: str) -> Any:
    """The compiled argument at position `k` or given as `name=` (None when absent)."""
    if k < len(call.args):
        return call.args[k]
    e = call.keywords.get(name)
    return None if e is None else call.c.expr(e)


def arg_type(call: TypeCall, k: int, name: str) -> FType | None:
    """The type of the argument at position `k` or given as `name=` (None: absent or not
    typed yet)."""
    if k < len(call.args):
        return call.args[k]
    e = call.keywords.get(name)
    return None if e is None else call.typeof(e)


def call_error(call: TypeCall | EmitCall, message: str, supported: str = "",
               node: ast.AST | None = None) -> Exception:
    src = call.typer.src if isinstance(call, TypeCall) else call.c.src
    return src.error(node or call.node, message, supported)


def check_positional(call: TypeCall, most: int, name: str) -> None:
    """At most `most` positional arguments; the others are keywords."""
    if len(call.arg_nodes) > most:
        raise call.error(f"{name} takes at most {most} positional arguments",
                         "dtype= and the other options as keywords")


def number(call: TypeCall, t: FType | None, what: str, node: ast.AST | None,
           ints: bool = False) -> Scalar | None:
    """`t` checked to be a number (an integer or bool with `ints`); None: not typed yet."""
    if t is None:
        return None
    if not isinstance(t, Scalar) or (ints and not t.is_int and t != BOOL):
        need = "an integer" if ints else "a number"
        raise call.error(f"{what} must be {need}, got {t}", node=node)
    return t


def dtype_of(call: TypeCall, default: Scalar | None) -> Scalar | None:
    """The `dtype=` keyword's element type, `default` without one; None: not typed yet."""
    e = call.keywords.get("dtype")
    if e is None or isinstance(e, ast.Constant) and e.value is None:
        return default
    return dtype_named(call, e)


def dtype_named(call: TypeCall, e: ast.expr) -> Scalar | None:
    """The element type the expression `e` names as a dtype (see the module docstring);
    None: `x` of `x.dtype` is not typed yet."""
    if isinstance(e, ast.Attribute) and e.attr == "dtype" and isinstance(e.value, ast.Name) \
            and _is_local(call, e.value.id):
        t = call.typer.env.get(e.value.id)
        if t is None:
            return None  # assigned later in the function: the typer's fixpoint comes back
        if not isinstance(t, Array):
            raise call.error(f"{e.value.id}.dtype: {e.value.id} is {t}, not an array", node=e)
        return t.elem
    g: object = e.value if isinstance(e, ast.Constant) else call.typer.resolve_global(e)
    try:
        found = _DTYPES.get(g) if not isinstance(g, str | np.dtype) else \
            scalar_of_dtype(np.dtype(g))
    except TypeError:
        found = None
    if found is None:
        raise call.error("unsupported dtype", _DTYPE_HINT, e)
    return found


def _is_local(call: TypeCall, name: str) -> bool:
    fdef = call.typer.fdef
    return name in call.typer.env or name in {a.arg for a in fdef.args.args} or any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
        for n in ast.walk(fdef))

