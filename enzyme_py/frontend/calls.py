"""Calls in the Python subset: math functions, builtins, numpy constructors and reductions,
and other Python functions (compiled too, specialized on their argument types).

Invariant: the callee is identified by the object its name resolves to (see `builtins`), and
the result type is the one `Typer` gives the call.
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING, Any

from enzyme_py.custom import CustomRule
from enzyme_py.frontend import builtins as B
from enzyme_py.frontend import comprehensions, domain_checks, numpy_prelude, tree_values, trees
from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays.elementwise import lift
from enzyme_py.frontend.ftypes import F64, I64, Array, FType, Scalar, Tree, Tuple
from enzyme_py.frontend.values import AVal, SVal, const, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value, const_float
from enzyme_py.rules.mathcalls import emit_math

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling


def compile_call(c: Compiling, e: ast.Call) -> Any:
    t = c.typer.expr_type(e)  # validates the call and gives the result type
    entry, receiver = c.typer._array_entry(e)
    if entry is not None:
        return _registered_call(c, e, entry, receiver, t)
    fn = numpy_prelude.stand_in(c.typer.resolve_global(e.func), e)
    if trees.is_record_class(fn):
        return tree_values.record(c, e, fn)  # type: ignore[arg-type]
    args = [c.expr(a) for a in e.args]
    if isinstance(t, Array) and any(L.is_array(a) for a in args) and not _is_user(fn):
        return lift(c, args, t.elem, lambda vals: _scalar_call(c, e, fn, vals, t.elem), e)
    if not _is_user(fn):
        return _scalar_call(c, e, fn, args, t)
    return _user_call(c, e, fn, args, t)


def _is_user(fn: object) -> bool:
    from enzyme_py.frontend.typing import is_user_function

    return is_user_function(fn)


def _registered_call(c: Compiling, e: ast.Call, entry: Any, receiver: ast.expr | None,
                     t: FType | None) -> Any:
    from enzyme_py.frontend.arrays.registry import EmitCall

    nodes = ([receiver] if receiver is not None else []) + list(e.args)
    args = [n.value if isinstance(n, ast.Constant) and isinstance(n.value, str | None) else
            c.typer.resolve_global(n) if c.typer.is_dtype(n) else
            comprehensions.lazy(c, n, entry.filters) if isinstance(n, ast.ListComp |
                                                                    ast.GeneratorExp) and
            not isinstance(c.typer.expr_type(n), Tree) else
            _literal(c, n) if entry.lists else c.expr(n) for n in nodes]
    keywords = {k.arg: k.value for k in e.keywords if k.arg is not None}
    return entry.emit(EmitCall(c, e, args, nodes, keywords, t))


def _literal(c: Compiling, e: ast.expr) -> Any:
    """List and tuple literals as Python lists of compiled items (nested)."""
    if isinstance(e, ast.List | ast.Tuple):
        return [_literal(c, x) for x in e.elts]
    if isinstance(e, ast.Attribute) and e.attr == "shape":  # the array: its extents are read
        return c.expr(e.value)
    return c.expr(e)


def _scalar_call(c: Compiling, e: ast.Call, fn: object, args: list,
                 t: FType | None) -> Any:
    """A call of a known function on numbers (also the element rule of its array form)."""
    b = c.b
    module = c.fn.parent
    if fn in B.UNARY_MATH or fn in B.LOG or fn in B.BINARY_MATH:
        return _math(c, e, fn, args, t)
    if fn in B.ABS:
        x = _scalar_arg(c, e, args, 0)
        rt = t
        assert isinstance(rt, Scalar)
        v = convert(b, x, rt).v
        if rt.is_float:
            return SVal(rt, emit_math(b, module, "fabs", [v]))
        neg = b.icmp("slt", v, ConstantInt(rt.ir, 0))
        return SVal(rt, b.select(neg, b.sub(ConstantInt(rt.ir, 0), v), v))
    if fn in B.SQUARE:
        x = _scalar_arg(c, e, args, 0)
        assert isinstance(t, Scalar)
        v = convert(b, x, t).v
        return SVal(t, b.fmul(v, v) if t.is_float else b.mul(v, v))
    if fn in B.MIN or fn in B.MAX:
        return _min_max(c, e, args, t, fn in B.MAX)
    if fn in B.POW:
        return c.binop(ast.Pow(), args[0], args[1], e)
    if fn in B.FLOAT_CTORS or fn in B.INT_CTORS or fn in B.BOOL_CTORS:
        if len(args) != 1:
            raise c.src.error(e, "conversions take one number")
        assert isinstance(t, Scalar)
        x = _scalar_arg(c, e, args, 0)
        if fn in B.INT_CTORS and x.type.is_float:
            return _float_to_int(c, e, x, t, python=fn is builtins.int)
        return convert(b, x, t)
    if fn in B.LEN:
        if len(args) == 1 and trees.is_container(c.typer.expr_type(e.args[0])):
            return tree_values.length(args[0], c.typer.expr_type(e.args[0]))
        if len(args) != 1 or not L.is_array(args[0]):
            raise c.src.error(e, "len() needs an array")
        return SVal(I64, args[0].dims[0])
    raise c.src.error(e.func, f"calling {getattr(fn, '__name__', fn)!s} is not supported",
                      B.SUPPORTED_CALLS)


def _float_to_int(c: Compiling, e: ast.Call, x: SVal, t: Scalar, python: bool) -> SVal:
    """`int(x)` of a float: Python's ValueError for nan and OverflowError for infinities and
    (unlike Python's unbounded ints) for values outside the int64 range; NumPy's integer
    types saturate (`llvm.fptosi.sat`: nan gives 0) instead of LLVM's poison."""
    b = c.b
    v = x.v
    if python:
        nothing = ConstantInt(I64.ir, 0)
        c.check(b.fcmp("ord", v, v), e, "float nan to integer", nothing, nothing, 0)
        bound = float(2 ** 63)
        fits = b.binop("and", b.fcmp("oge", v, const_float(v.type, -bound)),
                       b.fcmp("olt", v, const_float(v.type, bound)))
        c.check(fits, e, "float to integer overflow", nothing, nothing, 0)
        return convert(b, x, t)
    module = c.fn.parent
    assert module is not None
    name = f"llvm.fptosi.sat.{t.ir}.{'f64' if str(v.type) == 'double' else 'f32'}"
    sat = module.declare_function(name, T.FunctionType(t.ir, (v.type,)))
    return SVal(t, b.call(sat, [v]))


def _scalar_arg(c: Compiling, e: ast.Call, args: list, k: int) -> SVal:
    if k >= len(args) or not isinstance(args[k], SVal):
        raise c.src.error(e, "a number is needed as argument")
    return args[k]


def _math(c: Compiling, e: ast.Call, fn: object, args: list, t: FType | None) -> SVal:
    b = c.b
    module = c.fn.parent
    assert isinstance(t, Scalar)
    ft = t if t.is_float else F64
    vals = [convert(b, _scalar_arg(c, e, args, k), ft).v for k in range(len(args))]
    if fn in B.LOG:
        if len(vals) == 2:  # math.log(x, base)
            num = emit_math(b, module, "log", [vals[0]])
            domain_checks.check_math(c, e, fn, "log", vals[:1], num)
            den = emit_math(b, module, "log", [vals[1]])
            domain_checks.check_math(c, e, fn, "log", vals[1:], den)
            domain_checks.check_log_base(c, e, fn, den)
            return SVal(ft, b.fdiv(num, den))
        name = "log"
    elif fn in B.BINARY_MATH:
        name = B.BINARY_MATH[fn]
        if len(vals) != 2:
            raise c.src.error(e, f"{name} takes two numbers")
    else:
        name = B.UNARY_MATH[fn]
        if len(vals) != 1:
            raise c.src.error(e, f"{name} takes one number")
    result = SVal(ft, emit_math(b, module, name, vals))
    domain_checks.check_math(c, e, fn, name, vals, result.v)  # errors="python" only
    return convert(b, result, t) if t != ft else result


def _min_max(c: Compiling, e: ast.Call, args: list, t: FType | None,
             is_max: bool) -> SVal:
    assert isinstance(t, Scalar)
    b = c.b
    vals = [convert(b, _scalar_arg(c, e, args, k), t).v for k in range(len(args))]
    acc = vals[0]
    for v in vals[1:]:
        if t.is_float:
            # Python's max(a, b) returns a unless b > a (a NaN first argument wins)
            pick_new = b.fcmp("ogt" if is_max else "olt", v, acc)
        else:
            pick_new = b.icmp("sgt" if is_max else "slt", v, acc)
        acc = b.select(pick_new, v, acc)
    return SVal(t, acc)


def _user_call(c: Compiling, e: ast.Call, fn: object, args: list,
               t: FType | None) -> Any:
    from enzyme_py.frontend import arguments
    from enzyme_py.frontend.local_functions import LocalFunction
    from enzyme_py.frontend.typing import _constant_type

    bound: list[Any] = []
    for bnd in arguments.bind(c.src, e, fn, len(args)):
        if bnd.index is not None:
            bound.append(args[bnd.index])
        elif bnd.keyword is not None:
            bound.append(c.expr(bnd.keyword))
        elif bnd.default is None or isinstance(bnd.default, str):
            bound.append(bnd.default)  # (a compile-time value: see `static_conditions`)
        else:
            dt = _constant_type(bnd.default, e, c.src)
            assert isinstance(dt, Scalar)
            bound.append(const(dt, bnd.default))
    if isinstance(fn, LocalFunction):
        for name in fn.captured:
            if name not in c.vars:
                raise c.src.error(e, f"{fn.name}() reads '{name}', which is not a variable "
                                  "here (local functions calling each other share no "
                                  "variables)", "pass it as an argument")
            bound.append(c.load_var(name))
    arg_types: list[FType] = []
    flat: list[Value] = []
    for a in bound:
        if L.is_array(a):
            view = L.materialize(c, a, e)
            strided = not view.contiguous
            if strided and isinstance(fn, CustomRule) and numpy_prelude.is_stand_in(fn):
                view, strided = L.copy(c, view, e), False  # (a stand-in never writes it)
            if strided and isinstance(fn, CustomRule):
                raise c.src.error(e, "a function with a custom rule takes C-contiguous "
                                  "arrays; this argument is a view",
                                  "pass x.copy() or an array argument as it came")
            arg_types.append(Array(view.type.elem, view.type.ndim, strided))
            flat.append(view.ptr)
            flat.extend(view.dims)
            if strided:
                flat.extend(view.strides)
        elif isinstance(a, SVal) and not isinstance(a.type, Tuple):
            arg_types.append(a.type)
            flat.append(a.v)
        else:  # a container: its leaves, flat
            at, leaves = tree_values.flatten_argument(c, a, e)
            arg_types.append(at)
            flat.extend(leaves)
    callee = c.session.function_for(fn, tuple(arg_types))
    result = c.b.call(callee, flat)
    c.pass_on_retry(callee, e if numpy_prelude.is_stand_in(fn) else None)
    if isinstance(t, Scalar):
        return SVal(t, result)
    if isinstance(t, Tree):
        leaf_tuple = tree_values.leaf_tuple(t)
        leaves = _unpack_result(c, result, leaf_tuple) if _has_array(leaf_tuple) else [
            SVal(it, c.b.extractvalue(result, [k])) for k, it in enumerate(leaf_tuple.items)]
        return tree_values.unpack_result(c, t, leaves)
    if isinstance(t, Array | Tuple) and _has_array(t):
        items = _unpack_result(c, result, t)
        return items[0] if isinstance(t, Array) else items
    if isinstance(t, Tuple):
        return SVal(t, result)  # type: ignore[arg-type]
    return const(I64, 0)


def _has_array(t: FType) -> bool:
    return isinstance(t, Array) or isinstance(t, Tuple) and any(
        isinstance(i, Array) for i in t.items)


def _unpack_result(c: Compiling, result: Value, t: FType) -> list[Any]:
    """A callee's flat result struct as values; its arrays are fresh temporaries here."""
    from enzyme_py.frontend.values import c_strides

    b = c.b
    items = [t] if isinstance(t, Array) else list(t.items)  # type: ignore[union-attr]
    out: list[Any] = []
    k = 0
    for it in items:
        if isinstance(it, Array):
            ptr = b.extractvalue(result, [k])
            dims = [b.extractvalue(result, [k + 1 + d]) for d in range(it.ndim)]
            k += 1 + it.ndim
            if c.heap.levels:
                c.heap.levels[-1].append(ptr)
            out.append(AVal(it.value, ptr, dims, c_strides(b, dims), True, ("temp", ptr),
                            ptr))
        else:
            out.append(SVal(it, b.extractvalue(result, [k])))
            k += 1
    return out
