"""Deferred bindings: an array variable read in one later statement is computed where it is read.

Binding a lazy element-wise value (`arrays.lazy`) to a variable computes it into a heap buffer;
a statement that reads the variable then loads it back. In GMM's NumPy form,

    qx = qdiags[None, :, :] * xc + np.einsum("kji,nki->nkj", ls, xc)
    main_term = alphas[None, :] + sum_qs[None, :] - 0.5 * np.sum(qx * qx, axis=2)

wrote and read n*k*d doubles for `qx` (and its gradient kept a shadow of that size). Deferred,
the name stands for the lazy value itself until its one reading statement, whose loops compute
each element of `qx` where they read it, as if the expression were written there.

A binding `v = e` is deferred when (pure AST analysis, before any code is made):

- it is a statement of the function's body (in no loop or branch), with the one target `v`,
  the only binding site of `v` (`binding_sites.once_bound`: not a parameter either), an array
  variable no other array variable views (not in `Typer.shared`);
- `e` is cheap to compute more than once per element: arithmetic (`+ - * /`, unary `-`),
  comparisons and `& | ^ ~`, NumPy's functions of about that cost (`np.square`, `np.abs`,
  `np.maximum`, `np.where`, `np.clip` ...), names, constants, subscripts, `.T`, and matrix
  products (`@`, `np.einsum`, `np.dot`, `np.matmul`: their results are buffers made by the
  binding statement). No function is
  evaluated per element (`np.exp`), so an element computed again (a broadcast read) costs a
  few operations and loads, as the read of a stored element does;
- every read of `v` lies in one later statement of the body, `use` (an assignment, a
  `return` or an expression: no branch or loop), outside nested scopes (lambdas,
  comprehensions, local functions): read once, anywhere an expression may be; read
  more than once, only as an operand of arithmetic (`qx * qx`: the optimizer computes the
  element once);
- nothing from the binding to the end of `use` can change what `e` reads: the statements
  between assign names only (not `v`, nor a name `e` reads, nor one that a deferred value `e`
  reads reads: rebinding frees an owned buffer),
  and neither they nor `use` call anything but NumPy's and math's functions that write no
  array (no `out=`, no `np.copyto`, no `ufunc.at`), a few builtins, and methods that return
  a new value (`a.sum()`, `a.reshape(...)`).

The compiler (`compiler.FunctionCompiler`) then binds `v` only where `e` turns out to be lazy
(a view binds as before), keeps the binding statement's buffers until `use` ends, and frees
them there. Invariant: the program computes the same values with the same operations in the
same order; only where they are stored changes.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp,
           ast.DictComp, ast.GeneratorExp, ast.ClassDef)
# statements that may read a deferred value: no branch or loop (whose body could write what
# it reads before reading it, or read it again on every iteration)
_SIMPLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Expr)
_ARITHMETIC = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_PRODUCTS = frozenset({"einsum", "dot", "matmul"})
# NumPy's element-wise functions that cost about an arithmetic operation per element
_CHEAP_FUNCTIONS = frozenset({"square", "abs", "absolute", "negative", "add", "subtract",
                              "multiply", "maximum", "minimum", "fmax", "fmin", "where",
                              "clip", "sign"})
# NumPy functions that write an array they are given
_WRITERS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis",
                      "at"})
_BUILTINS = frozenset({"len", "abs", "min", "max", "float", "int", "round", "bool", "pow",
                       "sum"})
# methods of arrays that return a new value and change nothing
_PURE_METHODS = frozenset({"sum", "mean", "max", "min", "prod", "reshape", "copy", "astype",
                           "ravel", "flatten", "transpose", "dot", "std", "var", "any", "all",
                           "cumsum", "squeeze", "clip", "argmax", "argmin"})


@dataclass(frozen=True)
class Deferral:
    """`name = value` (statement `binding`) is computed where statement `use` reads it."""

    name: str
    binding: ast.Assign
    use: ast.stmt


def deferred_bindings(fdef: ast.FunctionDef, arrays: set[str], shared: set[str],
                      once_bound: frozenset[str], resolve: Callable[[ast.expr], object]
                      ) -> dict[int, Deferral]:
    """The deferrable bindings of `fdef`'s body, by the id of their statement (see the module
    docstring). `arrays`: the names typed arrays; `resolve`: the object a global (dotted)
    name stands for."""
    body = fdef.body
    reads = _reads_by_name(fdef)
    resolve = _globals_only(fdef, resolve)
    out: dict[int, Deferral] = {}
    # what each deferred value reads, deferred values it reads included (a chain `a = x * 2`,
    # `b = a + 1`: b's value reads x too, where b's one statement reads it)
    read_sets: dict[str, set[str]] = {}
    for at, stmt in enumerate(body):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
                isinstance(stmt.targets[0], ast.Name)):
            continue
        name = stmt.targets[0].id
        if name not in arrays or name in shared or name not in once_bound or \
                not _cheap(stmt.value, resolve):
            continue
        use_at = _use_statement(body, at, reads.get(name, []))
        if use_at is None:
            continue
        read_by_value = {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
        for other in [n for n in read_by_value if n in read_sets]:
            read_by_value |= read_sets[other]
        between, use = body[at + 1:use_at], body[use_at]
        if isinstance(use, _SIMPLE) and \
                all(_rebinds_only(s, read_by_value | {name}) and _writes_nothing(s, resolve)
                    for s in between) and _writes_nothing(use, resolve) and \
                _read_where_fused(use, name):
            out[id(stmt)] = Deferral(name, stmt, use)
            read_sets[name] = read_by_value
    return out


def _globals_only(fdef: ast.FunctionDef, resolve: Callable[[ast.expr], object]
                  ) -> Callable[[ast.expr], object]:
    """`resolve` for names that are not the function's own (a parameter or a local that
    shares a global's name is not looked up: each lookup is recorded for the persistent
    cache, and a module-level array there would make the function uncacheable)."""
    args = fdef.args
    local = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)} | \
        {a.arg for a in (args.vararg, args.kwarg) if a is not None} | \
        {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name) and
         isinstance(n.ctx, ast.Store | ast.Del)}

    def resolved(e: ast.expr) -> object:
        root = e
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name) or root.id in local:
            raise LookupError(ast.unparse(e))
        return resolve(e)

    return resolved


def _reads_by_name(fdef: ast.FunctionDef) -> dict[str, list[ast.Name]]:
    found: dict[str, list[ast.Name]] = {}
    for node in ast.walk(fdef):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.setdefault(node.id, []).append(node)
    return found


def _use_statement(body: list[ast.stmt], at: int, reads: list[ast.Name]) -> int | None:
    """The index of the one later statement of `body` that holds every read in `reads`, none
    of them inside a nested scope; None if there is no such statement."""
    if not reads:
        return None
    wanted = {id(r) for r in reads}
    for k in range(at + 1, len(body)):
        inside = {id(n) for n in _outside_scopes(body[k])}
        if wanted <= inside:
            return k
        if wanted & {id(n) for n in ast.walk(body[k])}:
            return None  # read here, in a nested scope, or also elsewhere
    return None


def _outside_scopes(node: ast.AST):
    """The nodes under `node` (itself included) that no nested scope encloses."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, _SCOPES):
            yield from _outside_scopes(child)


def _cheap(e: ast.expr, resolve: Callable[[ast.expr], object]) -> bool:
    """`e` computes no function per element (see the module docstring)."""
    if isinstance(e, ast.Call):
        return _numpy_name(e.func, resolve) in _PRODUCTS | _CHEAP_FUNCTIONS and \
            not any(k.arg == "out" for k in e.keywords) and \
            all(_cheap(a, resolve) for a in (*e.args, *(k.value for k in e.keywords)))
    if isinstance(e, ast.BinOp):
        ok = isinstance(e.op, (*_ARITHMETIC, ast.MatMult, ast.BitAnd, ast.BitOr, ast.BitXor))
        return ok and _cheap(e.left, resolve) and _cheap(e.right, resolve)
    if isinstance(e, ast.UnaryOp):
        return isinstance(e.op, ast.USub | ast.UAdd | ast.Invert) and _cheap(e.operand, resolve)
    if isinstance(e, ast.Compare):
        return all(_cheap(x, resolve) for x in (e.left, *e.comparators))
    if isinstance(e, ast.Attribute):
        return e.attr == "T" and _cheap(e.value, resolve)
    if isinstance(e, ast.Subscript):
        return _cheap(e.value, resolve) and _cheap(e.slice, resolve)
    if isinstance(e, ast.Slice):
        return all(_cheap(p, resolve) for p in (e.lower, e.upper, e.step) if p is not None)
    if isinstance(e, ast.Tuple):
        return all(_cheap(x, resolve) for x in e.elts)
    return isinstance(e, ast.Name | ast.Constant)


def _numpy_name(func: ast.expr, resolve: Callable[[ast.expr], object]) -> str | None:
    """The name of the NumPy function `func` stands for, else None."""
    if not isinstance(func, ast.Attribute | ast.Name):
        return None
    got = _looked_up(func, resolve)
    module = getattr(got, "__module__", None) or ""
    if isinstance(got, np.ufunc) or module == "numpy" or module.startswith("numpy."):
        return func.attr if isinstance(func, ast.Attribute) else func.id
    return None


def _looked_up(e: ast.expr, resolve: Callable[[ast.expr], object]) -> object | None:
    """The global `e` stands for, or None (a local value, a name no global has)."""
    try:
        return resolve(e)
    except Exception:  # noqa: BLE001 - whatever the resolver refuses is no global of ours
        return None


def _rebinds_only(stmt: ast.stmt, kept: set[str]) -> bool:
    """`stmt` assigns names only, none of them in `kept`."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        targets = [stmt.target]
    else:
        return False
    names = [n for t in targets for n in ast.walk(t)
             if not isinstance(n, ast.Tuple | ast.expr_context)]
    return all(isinstance(n, ast.Name) and n.id not in kept for n in names)


def _writes_nothing(stmt: ast.stmt, resolve: Callable[[ast.expr], object]) -> bool:
    """No call in `stmt` may write an array (see the module docstring)."""
    for node in ast.walk(stmt):
        if isinstance(node, ast.NamedExpr | ast.Yield | ast.YieldFrom | ast.Await):
            return False
        if not isinstance(node, ast.Call):
            continue
        if any(k.arg == "out" for k in node.keywords):
            return False
        func = node.func
        name = _numpy_name(func, resolve)
        if name is not None:
            if name in _WRITERS:
                return False
            continue
        if isinstance(func, ast.Attribute) and func.attr in _PURE_METHODS and \
                _numpy_name(func.value, resolve) is None and \
                not _is_module(func.value, resolve):
            continue  # a method of an array value
        if _is_math(func, resolve) or (isinstance(func, ast.Name) and func.id in _BUILTINS
                                       and _is_builtin(func, resolve)):
            continue
        return False
    return True


def _is_module(e: ast.expr, resolve: Callable[[ast.expr], object]) -> bool:
    return type(_looked_up(e, resolve)).__name__ == "module"


def _is_math(func: ast.expr, resolve: Callable[[ast.expr], object]) -> bool:
    return getattr(_looked_up(func, resolve), "__module__", None) == "math"


def _is_builtin(func: ast.Name, resolve: Callable[[ast.expr], object]) -> bool:
    return _looked_up(func, resolve) is getattr(builtins, func.id)


def _read_where_fused(use: ast.stmt, name: str) -> bool:
    """`name` is read once in `use`, or only as an operand of arithmetic; never for its
    `.shape`."""
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(use):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    reads = [n for n in ast.walk(use) if isinstance(n, ast.Name) and n.id == name and
             isinstance(n.ctx, ast.Load)]
    for r in reads:
        parent = parents.get(id(r))
        if isinstance(parent, ast.Attribute) and parent.attr == "shape":
            return False  # (`n, m = v.shape` unpacks a view's extents)
        if len(reads) == 1:
            return True
        if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, _ARITHMETIC) or
                isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub | ast.UAdd)):
            return False
    return True
