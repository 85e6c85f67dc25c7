"""Enzyme's C ABI: lower `__enzyme_autodiff(fnptr, args...)` calls to generated gradients.

Markers `enzyme_dup`, `enzyme_dupnoneed`, `enzyme_const`, `enzyme_out` arrive as loads of the
external globals of those names (`enzyme_abi_calls.py` reads them). An unmarked argument
defaults as in Enzyme: integers `const`, floating point `out`, pointers `dup`. The call's
result receives the adjoints of the `out` arguments in order, whatever shape the C compiler
gave the declared return type (a scalar, a struct, a coerced vector, or an sret pointer).

Invariants: every lowered call site is replaced by a call to a gradient function; one gradient
is generated per (function, activities, active return) and shared by the calls that need it;
the marker globals are defined in the output module so it links with plain clang.
"""

from __future__ import annotations

from enzyme_py.ad.dupnoneed import drop_unneeded_stores
from enzyme_py.ad.enzyme_abi_calls import (
    MARKERS,
    CallPlan,
    call_site,
    convert_value,
    define_markers,
    deliver_result,
    is_marker_function,
    marker_global,
    read_parameters,
    replace_marker_call,
    split_call,
)
from enzyme_py.ad.reverse import ReverseOptions, reverse_diff
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import Argument, ConstantExpr, Value, const_float

AUTODIFF = "__enzyme_autodiff"


def autodiff_calls(module: Module) -> list[I.Call]:
    """The `__enzyme_autodiff` calls, innermost first (see `innermost_first`)."""
    return innermost_first([inst for fn in module.functions for inst in fn.instructions()
                            if isinstance(inst, I.Call)
                            and is_marker_function(inst.callee_name, AUTODIFF)])


def _referenced_functions(fn: Function) -> set[Function]:
    """The functions `fn` reaches: called, or used as a value (a pointer passed on)."""
    seen: set[Function] = set()
    todo = [fn]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for inst in f.instructions():
            for op in inst.operands:
                while isinstance(op, ConstantExpr) and op.opcode in ("bitcast", "addrspacecast"):
                    op = op.ops[0]
                if isinstance(op, Function) and op not in seen:
                    todo.append(op)
    return seen


def call_target(call: I.Call) -> Function | None:
    """The function an Enzyme ABI call differentiates, if it names one."""
    for a in call.args[:2]:  # after an sret destination, if any
        while isinstance(a, ConstantExpr) and a.opcode in ("bitcast", "addrspacecast"):
            a = a.ops[0]
        if isinstance(a, Function):
            return a
    return None


def innermost_rounds(calls: list[I.Call]) -> list[list[I.Call]]:
    """`calls` in rounds: a call inside a function that another call differentiates (directly
    or through callees) comes in an earlier round (nested `__enzyme_autodiff`: the outer
    gradient differentiates the inner gradient, never an unlowered call). Module order within
    a round; whatever is left of a cycle is the last round."""
    reach = {id(c): _referenced_functions(t) if (t := call_target(c)) is not None else set()
             for c in calls}
    left = list(calls)
    rounds: list[list[I.Call]] = []
    while left:
        ready = [c for c in left
                 if not any(o is not c and o.function in reach[id(c)] for o in left)]
        if not ready:
            rounds.append(left)
            break
        rounds.append(ready)
        left = [c for c in left if all(c is not r for r in ready)]
    return rounds


def innermost_first(calls: list[I.Call]) -> list[I.Call]:
    """`calls` ordered innermost first (`innermost_rounds`, flattened)."""
    return [c for r in innermost_rounds(calls) for c in r]


ITER = "__enzyme_iter"


def advance_iter_calls(functions: list[Function]) -> None:
    """Enzyme's `__enzyme_iter(n, k)` in a derivative's copy of the code becomes
    `__enzyme_iter(n + k, k)`: each derivative taken adds k (a truncated series keeps as many
    terms after differentiating); the primal keeps its own calls."""
    for fn in functions:
        for inst in list(fn.instructions()):
            if isinstance(inst, I.Call) and is_marker_function(inst.callee_name, ITER) and \
                    len(inst.args) == 2:
                total = Builder().position_before(inst).add(inst.args[0], inst.args[1])
                inst.operands[0] = total


def lower_iter_calls(module: Module) -> None:
    """Every `__enzyme_iter(n, k)` left (after the derivatives are made) is `n`."""
    for fn in module.functions:
        for inst in list(fn.instructions()):
            if isinstance(inst, I.Call) and is_marker_function(inst.callee_name, ITER) and \
                    len(inst.args) == 2:
                fn.replace_all_uses(inst, inst.args[0])
                assert inst.parent is not None
                inst.parent.remove(inst)


def lower_autodiff_calls(module: Module, calls: list[I.Call] | None = None) -> list[str]:
    """Replace every `__enzyme_autodiff` call (or those in `calls`); returns the names of the
    gradients made."""
    made: dict[tuple[str, tuple[str, ...], bool], Function] = {}
    for call in autodiff_calls(module) if calls is None else calls:
        plan = plan_call(module, call)
        fn = plan.function
        ret_active = carries_float(fn.return_type)
        key = (fn.name or "", plan.activities, ret_active)
        grad = made.get(key)
        if grad is None:
            before = {id(f) for f in module.functions}
            grad = reverse_diff(module, fn, list(plan.activities), ret_active,
                                ReverseOptions())
            drop_unneeded_stores(grad, fn, list(plan.activities))
            advance_iter_calls([f for f in module.functions if id(f) not in before])
            made[key] = grad
        _replace_call(plan, grad, ret_active)
    define_markers(module)
    return [g.name or "" for g in made.values()]


def _marker(v: Value) -> Activity | None:
    return MARKERS.get(marker_global(v) or "")


def _default_activity(param: Argument) -> str:
    """Enzyme's default in reverse mode: integers const, floats out, pointers dup."""
    return Activity.CONST if param.type.is_int else Activity.OUT \
        if carries_float(param.type) else Activity.DUP if param.type.is_pointer \
        else Activity.CONST


def plan_call(module: Module, call: I.Call) -> CallPlan:
    result_ptr, target, args = split_call(call)
    return plan_arguments(call, target, args, result_ptr)


def plan_arguments(call: I.Call, target: Function, args: list[Value],
                   result_ptr: Value | None = None) -> CallPlan:
    """Read `args` (markers and values, after the function) as `__enzyme_autodiff` does."""
    activities, values = read_parameters(
        call, target, args, marker=_marker, default=_default_activity,
        count=lambda act: 2 if act.shadowed else 1)
    return CallPlan(call, target, tuple(activities), tuple(values), result_ptr)


def _replace_call(plan: CallPlan, grad: Function, ret_active: bool) -> None:
    call = plan.call
    b = Builder().position_before(call)
    params = grad.function_type.params
    where = call_site(call)
    args = [convert_value(b, v, p, where) for v, p in zip(plan.args, params, strict=False)]
    if ret_active:
        args.append(_seed(grad.function_type.params[-1]))
    if len(args) != len(params):
        raise DifferentiationError(f"{where}: internal error: {len(args)} arguments "
                                   f"for a gradient taking {len(params)}")
    result = b.call(grad, args)
    replacement = deliver_result(b, call, plan.result_ptr, unpack_adjoints(b, result))
    replace_marker_call(call, replacement)


def _seed(t: T.Type) -> Value:
    return const_float(t, 1.0)


def unpack_adjoints(b: Builder, v: Value) -> list[Value]:
    """The adjoints a gradient returned (nothing, one value, or a struct of them)."""
    if v.type.is_void:
        return []
    if isinstance(v.type, T.StructType):
        return [b.extractvalue(v, [k]) for k in range(len(v.type.elements))]
    return [v]
