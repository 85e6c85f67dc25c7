"""Enzyme's C ABI, forward mode: lower `__enzyme_fwddiff(fnptr, args...)` to `@fwddiffe_f`.

Markers (`enzyme_dup`, `enzyme_dupnoneed`, `enzyme_const`, and `enzyme_width`) arrive as
loads of external globals, as in reverse mode. Unmarked arguments default as in Enzyme's
forward mode: integers `const`, floating point and pointers `dup`. A `dup` argument is followed
by its tangent (a float) or its shadow (a pointer). `enzyme_width, k` before the arguments asks
for vector forward mode: each `dup` argument is then followed by k tangents or k shadows, and
the call returns k tangents (Enzyme's `[k x double]`; in C a struct of k doubles, or any
return type with k scalars). The call's result is the tangent of `f`'s result (nothing when
`f` returns no float), as `__enzyme_fwddiff` does; `enzyme_out` has no meaning in forward mode
and is an error.

Example (C)::

    double dy = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
    struct { double d[4]; } t = __enzyme_fwddiff((void *)f, enzyme_width, 4,
                                                  enzyme_dup, x, dx0, dx1, dx2, dx3);

Invariants: every lowered call site is replaced by a call to a forward derivative; one
derivative is made per (function, activities, width) and shared; the marker globals are
defined in the output module so it links with plain clang.
"""

from __future__ import annotations

import warnings

from enzyme_py.ad.enzyme_abi_calls import (
    MARKERS,
    CallPlan,
    call_site,
    convert_value,
    define_markers,
    is_marker_function,
    marker_global,
    pack_result,
    read_parameters,
    replace_marker_call,
    scalar_leaves,
    split_call,
    sret_type,
)
from enzyme_py.ad.forward import ForwardOptions, forward_diff
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.activity import carries_float
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.values import Argument, Constant, ConstantInt, Value, zero

FWDDIFF = "__enzyme_fwddiff"
WIDTH = "enzyme_width"


def fwddiff_calls(module: Module) -> list[I.Call]:
    return [inst for fn in module.functions for inst in fn.instructions()
            if isinstance(inst, I.Call) and is_marker_function(inst.callee_name, FWDDIFF)]


def fwddiff_targets(module: Module) -> list[str]:
    """Names of the functions `__enzyme_fwddiff` calls differentiate (their callees get
    inlined into them by `driver.prepare`)."""
    return [plan_fwddiff_call(c).function.name or "" for c in fwddiff_calls(module)]


def lower_fwddiff_calls(module: Module) -> list[str]:
    """Replace every `__enzyme_fwddiff` call; returns the names of the derivatives made."""
    made: dict[tuple[str, tuple[str, ...], int], Function] = {}
    calls = fwddiff_calls(module)
    for call in calls:
        plan = plan_fwddiff_call(call)
        key = (plan.function.name or "", plan.activities, plan.width)
        fwd = made.get(key)
        if fwd is None:
            fwd = forward_diff(module, plan.function, list(plan.activities),
                               ForwardOptions(return_primal=False, width=plan.width))
            made[key] = fwd
        _replace_call(plan, fwd)
    if calls:
        define_markers(module)
        _define_width_marker(module)
    return [g.name or "" for g in made.values()]


def _marker(v: Value) -> Activity | str | None:  # "width": enzyme_width
    name = marker_global(v)
    if name == WIDTH:
        return "width"
    return MARKERS.get(name or "")


def _refused(act: str, param: Argument, target: Function) -> str | None:
    """The markers forward mode does not take where a parameter's marker stands."""
    if act == "width":
        return "enzyme_width must come right after the function, before the arguments"
    if act is Activity.OUT:
        return (f"parameter {param.index} of @{target.name} is enzyme_out, which forward mode "
                "does not have (pass a float as enzyme_dup, value then tangent)")
    return None


def plan_fwddiff_call(call: I.Call) -> CallPlan:
    """Read one `__enzyme_fwddiff` call: the function, activities, width and values."""
    where = call_site(call)
    result_ptr, target, args = split_call(call)
    width = 1
    if args and _marker(args[0]) == "width":
        if len(args) < 2 or not isinstance(args[1], ConstantInt) or args[1].value < 1:
            got = "nothing" if len(args) < 2 else args[1].ref() if isinstance(
                args[1], Constant) else "a value known only at run time"
            raise DifferentiationError(f"{where}: enzyme_width must be followed by a positive "
                                       f"integer constant, not {got}")
        width = args[1].value
        args = args[2:]
    activities, values = read_parameters(
        call, target, args, marker=_marker,
        default=lambda p: Activity.DUP if p.type.is_pointer or carries_float(p.type)
        else Activity.CONST,
        count=lambda act: 1 + width if act.shadowed else 1,
        refuse=lambda act, param: _refused(act, param, target))
    return CallPlan(call, target, tuple(activities), tuple(values), result_ptr, width)


def _replace_call(plan: CallPlan, fwd: Function) -> None:
    call = plan.call
    where = call_site(call)
    b = Builder().position_before(call)
    params = fwd.function_type.params
    if len(plan.args) != len(params):
        raise DifferentiationError(f"{where}: internal error: {len(plan.args)} arguments for "
                                   f"a derivative taking {len(params)}")
    args = [convert_value(b, v, p, where) for v, p in zip(plan.args, params, strict=True)]
    result = b.call(fwd, args)
    scalars = _scalars(b, result) if not result.type.is_void else []
    if plan.result_ptr is not None:
        b.store(_pack_checked(b, scalars, sret_type(call), call, plan), plan.result_ptr)
        replacement: Value | None = None
    elif call.type.is_void:
        replacement = None
    else:
        replacement = _pack_checked(b, scalars, call.type, call, plan)
    replace_marker_call(call, replacement)


def _scalars(b: Builder, v: Value) -> list[Value]:
    """The scalar leaves of an aggregate or vector value, in memory order."""
    out = []
    for path, _ in scalar_leaves(v.type):
        x = v
        for k in path:
            x = b.extractelement(x, ConstantInt(T.I32, -1 - k)) if k < 0 else \
                b.extractvalue(x, [k])
        out.append(x)
    return out


def _pack_checked(b: Builder, scalars: list[Value], ty: T.Type, call: I.Call,
                  plan: CallPlan) -> Value:
    leaves = scalar_leaves(ty)
    if not scalars and leaves:
        # Enzyme's ForwardMode tests declare `double __enzyme_fwddiff(...)` for functions
        # that return nothing: the result is undefined there and never used; here it is 0
        warnings.warn(f"{call_site(call)}: @{plan.function.name} returns no floating point "
                      f"value, so the {ty} that __enzyme_fwddiff is declared to return carries "
                      "nothing (it is 0.0, as undefined in Enzyme); its tangents are the ones "
                      "written into the shadows", DerivativeResultWarning, stacklevel=2)
        return zero(ty)
    if len(leaves) != len(scalars):
        what = (f"{len(scalars)} tangent value(s)" if scalars else
                f"no tangent (@{plan.function.name} returns no floating point value)")
        raise DifferentiationError(
            f"{call_site(call)}: the declared return type {ty} has {len(leaves)} value(s) but "
            f"the derivative of @{plan.function.name} (width {plan.width}) gives {what}")
    return pack_result(b, scalars, ty, call)


class DerivativeResultWarning(UserWarning):
    """A derivative call's declared result cannot carry anything (see `_pack_checked`)."""


def _define_width_marker(module: Module) -> None:
    g = module.symbols.get(WIDTH)
    if isinstance(g, GlobalVariable) and g.initializer is None:
        g.prefix = [w for w in g.prefix if w not in ("external", "extern_weak")]
        g.value_type = g.value_type if g.value_type.is_int else T.I32
        g.initializer = ConstantInt(g.value_type, len(MARKERS))
