"""Typing of calls (a mixin of the `Typer`): registered NumPy functions and array methods,
math functions and builtins, NumPy ufuncs over arrays, and calls of Python functions.

Invariants: a call of a registered NumPy function or array method is typed by its entry's type
rule (`arrays.registry`), nowhere else; an array reaches a scalar function only as a NumPy
ufunc applied element-wise; a call of a Python function is typed by specializing the callee on
its argument types (keywords and defaults bound, a local function's captured variables last)
through `return_type_of`, which gives None for a recursive call still being typed; with
`lenient`, a call whose operand is not typed yet has type None (the typer's fixpoint comes
back).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable

from enzyme_py.custom import CustomRule
from enzyme_py.frontend import arguments, local_functions, numpy_prelude, trees
from enzyme_py.frontend import builtins as B
from enzyme_py.frontend.arrays import types as AT
from enzyme_py.frontend.errors import SourceInfo
from enzyme_py.frontend.ftypes import (
    BOOL,
    F32,
    F64,
    I32,
    I64,
    NONE,
    Array,
    FType,
    Scalar,
    Text,
    Tree,
    Tuple,
    unify,
)

STRING = NONE  # the type registered calls see for a string literal argument
ReturnTypeOf = Callable[[object, tuple[FType, ...]], FType | None]


class CallTyper:
    """The types of calls; the `Typer` provides the variables' types and the hooks below."""

    env: dict[str, FType]
    src: SourceInfo
    fdef_assigned: set[str]
    return_type_of: ReturnTypeOf

    # hooks provided by the typer
    def expr_type(self, e: ast.expr, lenient: bool = False) -> FType | None: ...
    def resolve_global(self, e: ast.expr) -> object: ...
    def _binop_type(self, op: ast.operator, a: FType, b: FType, e: ast.AST) -> FType: ...

    def _is_global_ref(self, e: ast.expr) -> bool:
        """Does `e` name a module-level object (`np`, `np.linalg`, `math`)?"""
        if isinstance(e, ast.Name):
            return e.id not in self.env and self.resolve_global(e) is not _MISSING
        if isinstance(e, ast.Attribute):
            return self._is_global_ref(e.value)
        return False

    def _array_entry(self, e: ast.Call) -> tuple[object, ast.expr | None]:
        """The registered NumPy function (or array method) `e` calls, and its receiver."""
        from enzyme_py.frontend.arrays import catalog  # imports the entry modules once

        f = e.func
        if isinstance(f, ast.Attribute) and not self._is_global_ref(f.value):
            t = self.expr_type(f.value, lenient=True)
            if t is None and isinstance(f.value, ast.Name) and f.value.id not in self.env:
                return None, None
            if isinstance(t, Array) or t is None:
                entry = catalog.METHODS.get(f.attr)
                if entry is None and isinstance(t, Array):
                    raise self.src.error(f, f"the array method .{f.attr}() is not supported",
                                         ", ".join(f".{m}()" for m in
                                                   sorted(catalog.METHODS)))
                return entry, f.value
            return None, None
        fn = self.resolve_global(f)
        try:
            return catalog.FUNCTIONS.get(fn), None  # type: ignore[arg-type]
        except TypeError:  # unhashable
            return None, None

    def is_dtype(self, e: ast.expr) -> bool:
        """Does `e` name a dtype (`float`, `np.float32`, ...)? Registered calls read it from
        the node (`astype(float)`, `np.zeros(n, np.float32)`, `astype(y.dtype)` of a local
        array `y`)."""
        if isinstance(e, ast.Attribute) and e.attr == "dtype" and \
                isinstance(e.value, ast.Name) and not self._is_global_ref(e.value):
            return True
        if not isinstance(e, ast.Name | ast.Attribute) or \
                isinstance(e, ast.Name) and e.id in self.env:
            return False
        g = self.resolve_global(e)
        try:
            return g in B.DTYPES or g is bool or g is B.np.bool_
        except TypeError:
            return False

    def literal_type(self, e: ast.expr, lenient: bool = True) -> FType | None:
        """A list or tuple literal's type (a Tuple of its items), else the expression's."""
        if isinstance(e, ast.List | ast.Tuple):
            items = [self.literal_type(x, lenient) for x in e.elts]
            if any(i is None for i in items):
                return None
            return Tuple(tuple(items))  # type: ignore[arg-type]
        if _is_shape(e):  # x.shape as a whole: a tuple of its extents
            assert isinstance(e, ast.Attribute)
            base = self.expr_type(e.value, lenient)
            if base is None:
                return None
            if not isinstance(base, Array):
                raise self.src.error(e, f".shape of {base}")
            return Tuple((I64,) * base.ndim)
        return self.expr_type(e, lenient)

    def _registered_call_type(self, e: ast.Call, entry: object, receiver: ast.expr | None,
                              lenient: bool) -> FType | None:
        from enzyme_py.frontend.arrays.registry import TypeCall

        nodes = ([receiver] if receiver is not None else []) + list(e.args)
        if any(isinstance(a, ast.Starred) for a in nodes):
            raise self.src.error(e, "*args in calls is not supported")
        # string literals (einsum subscripts, norm orders) are read from the nodes
        types = [STRING if _is_string(n) or self.is_dtype(n) else
                 NONE if _is_none(n) else
                 self.literal_type(n, lenient) for n in nodes]
        for n in nodes:
            if _is_none(n) and getattr(entry, "name", "") not in _TAKES_NONE:
                raise self.src.error(n, f"None is not an argument of "
                                     f"{getattr(entry, 'name', 'this function')}() here")
        adds_up = self.resolve_global(e.func) is builtins.sum  # sum(t): its children
        for n, t in zip(nodes, types, strict=True):
            if not adds_up and (isinstance(t, Tree) and not isinstance(n, ast.List | ast.Tuple)
                                or isinstance(t, Tuple) and isinstance(n, ast.Name)):
                raise self.src.error(n, f"{t} cannot be passed to a NumPy function",
                                     "pass its arrays: t['W']")
        keywords: dict[str, ast.expr] = {}
        for k in e.keywords:
            if k.arg is None:
                raise self.src.error(k.value, "**kwargs in calls is not supported")
            keywords[k.arg] = k.value
        return entry.type_rule(TypeCall(self, e, types, nodes, keywords))  # type: ignore

    def _call_type(self, e: ast.Call, lenient: bool) -> FType | None:
        entry, receiver = self._array_entry(e)
        if entry is not None:
            return self._registered_call_type(e, entry, receiver, lenient)
        fn = numpy_prelude.stand_in(self.resolve_global(e.func), e)
        if fn is _MISSING and isinstance(e.func, ast.Attribute):
            base = self.container_of(e.func.value)  # type: ignore[attr-defined]
            if base is not None:
                raise self.src.error(e.func, f"method .{e.func.attr}() of "
                                     f"{trees.describe(base)} is not supported",
                                     "for v in d.values(), for k, v in d.items(), "
                                     "for k in d.keys() (loops, unrolled); len(t)")
        if fn is _MISSING:
            raise self.src.error(e.func, "cannot call this: only known functions",
                                 B.SUPPORTED_CALLS)
        if trees.is_record_class(fn):
            return self.record_type(e, fn, lenient)  # type: ignore[attr-defined,arg-type]
        args = [self.expr_type(a, lenient) for a in e.args]
        if any(a is None for a in args):
            return None
        refused = numpy_prelude.refusal(fn, args, e)
        if refused is not None:
            raise self.src.error(e, *refused)
        if not is_user_function(fn):
            for a, t in zip(e.args, args, strict=True):
                if trees.is_container(t) and not (fn in B.LEN and len(args) == 1):
                    raise self.src.error(a, f"{t} is passed where a number or an array is "
                                         "needed", "its children: t['W'], t[0], p.W")
        if any(isinstance(a, Array) for a in args) and _elementwise_function(fn):
            return self._elementwise_call_type(e, fn, args)
        if fn in B.UNARY_MATH or fn in B.LOG or fn in B.BINARY_MATH:
            if fn in B.INT_PRESERVING and len(args) == 1 and args[0] in (I64, I32):
                return I64
            if fn in B.INT_PRESERVING:
                return I64  # math.floor(x) is an int in Python
            np_style = getattr(fn, "__module__", "") == "numpy" or isinstance(
                fn, type(B.np.sin))
            first = args[0] if args else F64
            if np_style and first == F32:
                return F32
            return F64
        if fn in B.ABS or fn in B.SQUARE:
            t = args[0]
            if not isinstance(t, Scalar):
                raise self.src.error(e, f"{getattr(fn, '__name__', fn)} of {t} is not supported")
            return I64 if t == BOOL else t
        if fn in B.MIN or fn in B.MAX:
            if len(args) < 2:
                raise self.src.error(e, "min/max need two or more numbers",
                                     "min(a, b, ...), max(a, b, ...)")
            t = args[0]
            for a in args[1:]:
                t = unify(t, a) if isinstance(t, Scalar) and isinstance(a, Scalar) else None
                if t is None:
                    raise self.src.error(e, "min/max of arrays is not supported",
                                         "min/max of numbers; loop over the elements")
            return t
        if fn in B.POW:
            return self._binop_type(ast.Pow(), args[0], args[1], e)
        if fn in B.FLOAT_CTORS:
            return F64 if B.FLOAT_CTORS[fn] == "f64" else F32
        if fn in B.INT_CTORS:
            return I64 if B.INT_CTORS[fn] == "i64" else I32
        if fn in B.BOOL_CTORS:
            return BOOL
        if fn in B.LEN:
            return I64
        if is_user_function(fn):
            types = self.call_arg_types(e, fn, args, lenient)
            if types is None:
                return None
            if isinstance(fn, CustomRule) and any(trees.is_container(a) for a in types):
                raise self.src.error(e, "a function with a custom rule takes numbers and "
                                     "arrays, not containers", "pass the arrays themselves")
            return self.return_type_of(fn, tuple(types))  # type: ignore[arg-type]
        raise self.src.error(e.func, f"calling {getattr(fn, '__name__', fn)!s} is not "
                             "supported", B.SUPPORTED_CALLS)

    def call_arg_types(self, e: ast.Call, fn: object, args: list,
                       lenient: bool) -> list[FType] | None:
        """The callee's parameter types for this call (keywords and defaults bound; a local
        function's captured variables last)."""
        out: list[FType] = []
        for bnd in arguments.bind(self.src, e, fn, len(args)):
            if bnd.index is not None:
                t = args[bnd.index]
            elif bnd.keyword is not None:
                t = self.expr_type(bnd.keyword, lenient)
            elif bnd.default is None:
                t = NONE
            elif isinstance(bnd.default, str):
                t = Text(bnd.default)
            else:
                t = _constant_type(bnd.default, e, self.src)
            if t is None:
                return None
            out.append(trees.tree_value(t))
        if isinstance(fn, local_functions.LocalFunction):
            for name in fn.captured:
                t = self.env.get(name)
                if t is None:
                    if name in self.fdef_assigned:
                        return None  # not typed yet
                    raise self.src.error(e, f"{fn.name}() reads '{name}', which is not "
                                         "defined here")
                if name in self.key_names:  # type: ignore[attr-defined]
                    raise self.src.error(e, f"{fn.name}() reads '{name}', a dict's key "
                                         "known at compile time only", "pass d[k] instead")
                out.append(trees.tree_value(t))
        return out

    def _elementwise_call_type(self, e: ast.Call, fn: object, args: list) -> FType:
        """A NumPy ufunc (np.exp, np.maximum, abs, ...) applied to arrays, element-wise."""
        name = getattr(fn, "__name__", str(fn))
        numpy_fn = isinstance(fn, type(B.np.sin)) or getattr(fn, "__module__", "") == "numpy"
        elem: Scalar
        if fn in B.UNARY_MATH or fn in B.LOG or fn in B.BINARY_MATH:
            if not numpy_fn:
                raise self.src.error(e, f"math.{name} takes numbers, not arrays",
                                     f"np.{name}(x) works element-wise on arrays")
            if e.keywords:
                raise self.src.error(e, f"keywords of np.{name} are not supported")
            elem = AT.float_elem(AT.promote(args))
            if fn is B.np.power and not elem.is_float:
                elem = AT.promote(args)
        elif fn in B.ABS or fn in B.SQUARE:
            elem = AT.promote(args)
            elem = I64 if elem == BOOL else elem
        elif (fn in B.MIN or fn in B.MAX) and numpy_fn:
            elem = AT.promote(args)
        elif fn in B.MIN or fn in B.MAX:
            raise self.src.error(e, "min/max of arrays is not supported",
                                 "np.maximum / np.minimum (element-wise), np.max / np.min "
                                 "(reductions)")
        else:
            raise self.src.error(e.func, f"{name}() of an array is not supported",
                                 "NumPy ufuncs (np.exp, np.maximum, ...), reductions, "
                                 "constructors")
        return Array(elem, AT.result_rank(args))


class _Missing:
    """What `resolve_global` gives for a name that refers to nothing."""


_MISSING = _Missing()


def _constant_type(g: object, e: ast.AST, src: SourceInfo) -> FType:
    if isinstance(g, bool):
        return BOOL
    if isinstance(g, int):
        return I64
    if isinstance(g, float):
        return F64
    raise src.error(e, f"global '{ast.unparse(e)}' is a {type(g).__name__}; only int, float "
                    "and bool module constants (and tuples of them) can be used as values")


def is_user_function(fn: object) -> bool:
    """A Python function compiled too (module-level, with a custom rule, or local)."""
    return isinstance(fn, CustomRule | local_functions.LocalFunction) or \
        callable(fn) and hasattr(fn, "__code__")


_TAKES_NONE = frozenset({"clip", "flip", "roll"})  # a positional None: no bound, all axes


def _is_none(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value is None


def _is_string(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and isinstance(e.value, str)


def _elementwise_function(fn: object) -> bool:
    """Is `fn` a scalar function that NumPy applies element-wise to arrays?"""
    try:
        return fn in B.UNARY_MATH or fn in B.LOG or fn in B.BINARY_MATH or fn in B.ABS or \
            fn in B.SQUARE or fn in B.MIN or fn in B.MAX
    except TypeError:  # unhashable
        return False


def _is_shape(e: ast.expr) -> bool:
    return isinstance(e, ast.Attribute) and e.attr == "shape"
