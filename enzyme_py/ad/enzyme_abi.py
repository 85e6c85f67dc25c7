"""Enzyme's C ABI: lower `__enzyme_autodiff(fnptr, args...)` calls to generated gradients.

Markers `enzyme_dup`, `enzyme_dupnoneed`, `enzyme_const`, `enzyme_out` arrive as loads of the
external globals of those names (what clang emits at any -O level) or as the globals' addresses.
An unmarked argument defaults as in Enzyme: integers `const`, floating point `out`, pointers
`dup`. The call's result receives the adjoints of the `out` arguments in order, whatever shape
the C compiler gave the declared return type (a scalar, a struct, a coerced vector, or an sret
pointer).

Invariants: every lowered call site is replaced by a call to a gradient function; one gradient
is generated per (function, activities, active return) and shared by the calls that need it;
the marker globals are defined in the output module so it links with plain clang.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from enzyme_py.ad.dupnoneed import drop_unneeded_stores
from enzyme_py.ad.reverse import ReverseOptions, reverse_diff
from enzyme_py.analysis.activity import carries_float
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.printer import Slots
from enzyme_py.ir.values import ConstantExpr, ConstantInt, Value, zero

MARKERS = {"enzyme_dup": "dup", "enzyme_dupnoneed": "dupnoneed", "enzyme_const": "const",
           "enzyme_out": "out"}
AUTODIFF = "__enzyme_autodiff"


@dataclass(frozen=True)
class CallPlan:
    call: I.Call
    function: Function
    activities: tuple[str, ...]
    args: tuple[Value, ...]  # gradient arguments, before conversion to parameter types
    result_ptr: Value | None  # sret destination of the adjoints, if the C ABI used one


def is_marker_function(name: str | None, marker: str) -> bool:
    """`__enzyme_autodiff`, `__enzyme_autodiff1`..., or a C++ declaration of it (a template
    or overload, whose mangled name is `_Z<len>__enzyme_autodiff...`)."""
    if not name:
        return False
    if name.startswith(marker):
        return True
    return name.startswith("_Z") and re.match(r"_Z(?:L)?\d+" + marker, name) is not None


def autodiff_calls(module: Module) -> list[I.Call]:
    return [inst for fn in module.functions for inst in fn.instructions()
            if isinstance(inst, I.Call) and is_marker_function(inst.callee_name, AUTODIFF)]


def lower_autodiff_calls(module: Module) -> list[str]:
    """Replace every `__enzyme_autodiff` call; returns the names of the gradients made."""
    made: dict[tuple[str, tuple[str, ...], bool], Function] = {}
    for call in autodiff_calls(module):
        plan = plan_call(module, call)
        fn = plan.function
        ret_active = carries_float(fn.return_type)
        key = (fn.name or "", plan.activities, ret_active)
        grad = made.get(key)
        if grad is None:
            grad = reverse_diff(module, fn, list(plan.activities), ret_active,
                                ReverseOptions())
            drop_unneeded_stores(grad, fn, list(plan.activities))
            made[key] = grad
        _replace_call(plan, grad, ret_active)
    define_markers(module)
    decl = module.symbols.get(AUTODIFF)
    return [g.name or "" for g in made.values()] if decl is None else \
        [g.name or "" for g in made.values()]


def _where(call: I.Call) -> str:
    """Where an Enzyme ABI call is, for messages (any of the `__enzyme_*` entry points)."""
    fn = call.function
    if fn is None or call.parent is None:
        return f"a call to {call.callee_name or AUTODIFF}"
    return f"in @{fn.name}, block {Slots(fn).local(call.parent)}, the call to {call.callee_name}"


def _marker(v: Value) -> str | None:
    if isinstance(v, I.Load) and isinstance(v.pointer, GlobalVariable):
        return MARKERS.get(v.pointer.name or "")
    if isinstance(v, GlobalVariable):
        return MARKERS.get(v.name or "")
    return None


def split_call(call: I.Call) -> tuple[Value | None, Function, list[Value]]:
    """An Enzyme ABI call's parts: the sret destination (if the C ABI used one), the function
    to differentiate, and the remaining arguments (markers and values)."""
    args = list(call.args)
    result_ptr = None
    if args and call.arg_attrs and any(a.startswith("sret(") for a in call.arg_attrs[0]):
        result_ptr = args.pop(0)
    if not args:
        raise DifferentiationError(f"{_where(call)} has no function argument")
    target = args.pop(0)
    while isinstance(target, ConstantExpr) and target.opcode in ("bitcast", "addrspacecast"):
        target = target.ops[0]
    if not isinstance(target, Function):
        raise DifferentiationError(f"{_where(call)}: the first argument must be a function "
                                   f"known at compile time, not {target.ref()}")
    if target.is_declaration:
        raise DifferentiationError(f"{_where(call)}: @{target.name} has no body in this "
                                   "module (it must be defined in the same file)")
    return result_ptr, target, args


def plan_call(module: Module, call: I.Call) -> CallPlan:
    result_ptr, target, args = split_call(call)
    activities: list[str] = []
    values: list[Value] = []
    i = 0
    for param in target.args:
        if i >= len(args):
            raise DifferentiationError(
                f"{_where(call)}: too few arguments for @{target.name} (parameter "
                f"{param.index} of {len(target.args)} is missing)")
        act = _marker(args[i])
        if act is not None:
            i += 1
        else:
            act = "const" if param.type.is_int else "out" if carries_float(param.type) \
                else "dup" if param.type.is_pointer else "const"
        need = 2 if act in ("dup", "dupnoneed") else 1
        if i + need > len(args):
            raise DifferentiationError(
                f"{_where(call)}: parameter {param.index} of @{target.name} is '{act}' "
                f"and needs {need} value(s), but the arguments ran out")
        if any(_marker(a) for a in args[i:i + need]):
            raise DifferentiationError(
                f"{_where(call)}: a marker stands where a value for parameter "
                f"{param.index} of @{target.name} was expected")
        activities.append(act)
        values.extend(args[i:i + need])
        i += need
    if i != len(args):
        raise DifferentiationError(
            f"{_where(call)}: {len(args) - i} argument(s) left over after the "
            f"{len(target.args)} parameters of @{target.name}")
    return CallPlan(call, target, tuple(activities), tuple(values), result_ptr)


def _convert(b: Builder, v: Value, to: T.Type, what: str) -> Value:
    """C's default argument promotions undone (double->float, int widths)."""
    if v.type == to:
        return v
    if v.type.is_float and to.is_float:
        fb = T.FLOAT_BITS
        op = "fptrunc" if fb[str(v.type)] > fb[str(to)] else "fpext"
        return b.cast(op, v, to)
    if isinstance(v.type, T.IntType) and isinstance(to, T.IntType):
        return b.cast("trunc" if v.type.bits > to.bits else "sext", v, to)
    raise DifferentiationError(f"{what}: cannot pass {v.type} as {to}")


def _replace_call(plan: CallPlan, grad: Function, ret_active: bool) -> None:
    call = plan.call
    b = Builder().position_before(call)
    params = grad.function_type.params
    args = [_convert(b, v, p, _where(call)) for v, p in zip(plan.args, params, strict=False)]
    if ret_active:
        args.append(_seed(grad.function_type.params[-1]))
    if len(args) != len(params):
        raise DifferentiationError(f"{_where(call)}: internal error: {len(args)} arguments "
                                   f"for a gradient taking {len(params)}")
    result = b.call(grad, args)
    adjoints = _unpack(b, result)
    if plan.result_ptr is not None:
        _store_adjoints(b, plan.result_ptr, adjoints, call)
        replacement: Value | None = None
    elif call.type.is_void or not _has_uses(call):
        replacement = None  # the declared result is ignored: nothing to match it against
    else:
        replacement = _pack(b, adjoints, call.type, call)
    fn = call.function
    assert fn is not None and call.parent is not None
    if replacement is not None:
        fn.replace_all_uses(call, replacement)
    remove_marker_call(call)


def remove_marker_call(call: I.Call) -> None:
    """Remove a lowered `__enzyme_*` call. C++ with exceptions calls it with `invoke`: the
    derivative call that replaces it does not unwind, so the block branches to the normal
    destination, and the landing pad loses this block as a predecessor."""
    block = call.parent
    assert block is not None
    block.remove(call)
    if isinstance(call, I.Invoke):
        for phi in call.unwind.phis():
            keep = [(v, b) for v, b in phi.incoming() if b is not block]
            phi.operands = [v for v, _ in keep]
            phi.incoming_blocks = [b for _, b in keep]
        Builder().position_at_end(block).br(call.normal)


def _has_uses(call: I.Call) -> bool:
    fn = call.function
    return fn is not None and any(call in inst.operands for inst in fn.instructions())


def _seed(t: T.Type) -> Value:
    from enzyme_py.ir.values import const_float

    return const_float(t, 1.0)


def _unpack(b: Builder, v: Value) -> list[Value]:
    if v.type.is_void:
        return []
    if isinstance(v.type, T.StructType):
        return [b.extractvalue(v, [k]) for k in range(len(v.type.elements))]
    return [v]


def _leaves(t: T.Type) -> list[tuple[tuple[int, ...], T.Type]]:
    """Scalar positions of an aggregate/vector return type, in memory order."""
    if isinstance(t, (T.StructType, T.IdentifiedStructType)):
        out = []
        for k, e in enumerate(T.struct_elements(t)):
            out += [((k, *p), s) for p, s in _leaves(e)]
        return out
    if isinstance(t, T.ArrayType):
        return [((k, *p), s) for k in range(t.count) for p, s in _leaves(t.element)]
    if isinstance(t, T.VectorType):
        return [((-1 - k,), t.element) for k in range(t.count)]
    return [((), t)]


def _pack(b: Builder, adjoints: list[Value], t: T.Type, call: I.Call) -> Value:
    leaves = _leaves(t)
    if len(leaves) != len(adjoints):
        raise DifferentiationError(
            f"{_where(call)}: the declared return type {t} has {len(leaves)} value(s) but "
            f"the function has {len(adjoints)} 'out' argument(s)")
    if len(leaves) == 1 and leaves[0][0] == ():
        return _convert(b, adjoints[0], t, _where(call))
    agg: Value = zero(t)
    for (path, lt), v in zip(leaves, adjoints, strict=True):
        v = _convert(b, v, lt, _where(call))
        agg = _insert(b, agg, path, v)
    return agg


def _insert(b: Builder, agg: Value, path: tuple[int, ...], v: Value) -> Value:
    if not path:
        return v
    head = path[0]
    if head < 0:  # vector lane
        return b.insertelement(agg, v, ConstantInt(T.I32, -1 - head))
    inner = b.extractvalue(agg, [head])
    return b.insertvalue(agg, _insert(b, inner, path[1:], v), [head])


def _store_adjoints(b: Builder, ptr: Value, adjoints: list[Value], call: I.Call) -> None:
    sret = next((a for a in call.arg_attrs[0] if a.startswith("sret(")), "")
    text = sret[len("sret("):-1]
    module = call.function.parent if call.function else None
    ty = _struct_named(module, text)
    value = _pack(b, adjoints, ty, call)
    b.store(value, ptr)


def _struct_named(module: Module | None, text: str) -> T.Type:
    if module is not None and text.startswith("%"):
        t = module.types.get(text[1:].strip('"'))
        if t is not None:
            return t
    from enzyme_py.ir import parse

    probe = parse(f"@x = global {text} zeroinitializer\n")
    return probe.get_global("x").value_type


def define_markers(module: Module) -> None:
    """Give the marker globals definitions (distinct addresses), so the output links."""
    for k, name in enumerate(MARKERS):
        g = module.symbols.get(name)
        if isinstance(g, GlobalVariable) and g.initializer is None:
            g.prefix = [w for w in g.prefix if w not in ("external", "extern_weak")]
            g.initializer = ConstantInt(g.value_type if g.value_type.is_int else T.I32, k)
            if not g.value_type.is_int:
                g.value_type = T.I32
