"""Call classification, shared by both modes: what a call is to the transforms (`CallKind`),
read from the callee's name, the module's registrations and the rule table.

The modes read the registrations through a `CallRules` policy: each has its own table of
user rules (reverse: `__enzyme_register_gradient`, forward: `__enzyme_register_derivative`),
and a Python rule written for the other mode only is that mode's to refuse or work around.
What a kind means for the derivative (whether the call carries one here) is the mode's.

Invariant: the kinds are tried in one order (memory functions, the matrix kernel, a GPU
barrier, inactive, the mode's own rule, the other mode's Python rule, the rule table, a
defined function), so both modes agree on what every call is; a call no kind explains has
one error message (`no_derivative_error`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from enzyme_py.ad.context import DerivationContext
from enzyme_py.ad.registrations import Registrations
from enzyme_py.ad.rule_lookup import RULE_FILES
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.globals import touches_globals
from enzyme_py.analysis.gpu import is_barrier
from enzyme_py.analysis.memory import ALLOCATION_FUNCTIONS, DEALLOCATION_FUNCTIONS
from enzyme_py.analysis.memory_effects import (
    MASKED_MEMORY,
    MEMORY_INTRINSICS,
    UNSUPPORTED_MEMORY,
)
from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function
from enzyme_py.rules.inactive import is_known_inactive
from enzyme_py.rules.matrix_kernel import is_matrix_kernel
from enzyme_py.rules.registry import lookup


class CallKind(Enum):
    ALLOCATION = "allocation"  # malloc, calloc, operator new ...
    DEALLOCATION = "deallocation"  # free, operator delete ...
    MEMORY = "memory"  # llvm.memcpy / memmove / memset
    MASKED_MEMORY = "masked memory"  # llvm.masked.load / store
    MATRIX = "matrix kernel"  # @enzyme_py.gemm.<t>: differentiated by its BLAS-level rule
    BARRIER = "barrier"  # GPU threads wait for each other: mirrored in the reverse sweep
    INACTIVE = "inactive"  # known or declared (`__enzyme_inactivefn`) never to carry one
    CUSTOM = "custom rule"  # a rule the user registered for this mode
    OTHER_MODE = "other mode's rule"  # a Python rule (custom_vjp/custom_jvp) of the other mode
    RULE = "rule"  # the rule table (libm functions, intrinsics)
    DEFINED = "defined"  # a function with a body in the module: differentiated itself
    UNKNOWN = "unknown"  # no rule and no body, or an indirect call


@dataclass(frozen=True)
class CallRules:
    """How a mode reads the registrations."""

    custom: Callable[[Registrations], Mapping[str, object]]  # the mode's own user rules
    other_mode_rule: str  # `Registrations.python_rule` of a rule for the other mode only


REVERSE_CALLS = CallRules(custom=lambda reg: reg.custom, other_mode_rule="custom_jvp")
FORWARD_CALLS = CallRules(custom=lambda reg: reg.forward, other_mode_rule="custom_vjp")


def classify_call(ctx: DerivationContext, call: I.Call, rules: CallRules) -> CallKind:
    name = call.callee_name or ""
    if name in ALLOCATION_FUNCTIONS:
        return CallKind.ALLOCATION
    if name in DEALLOCATION_FUNCTIONS:
        return CallKind.DEALLOCATION
    if name.startswith(MEMORY_INTRINSICS):
        return CallKind.MEMORY
    if name.startswith(MASKED_MEMORY):
        return CallKind.MASKED_MEMORY
    if is_matrix_kernel(name):
        return CallKind.MATRIX
    if is_barrier(name):
        return CallKind.BARRIER
    if is_inactive_call(ctx, name):
        return CallKind.INACTIVE
    reg = ctx.registrations
    if name and name in rules.custom(reg):
        return CallKind.CUSTOM
    if name and reg.python_rule(name) == rules.other_mode_rule:
        return CallKind.OTHER_MODE
    if name and (lookup(name) is not None or name in reg.function_like):
        return CallKind.RULE
    callee = call.callee
    if isinstance(callee, Function) and not callee.is_declaration:
        return CallKind.DEFINED
    return CallKind.UNKNOWN


def is_inactive_call(ctx: DerivationContext, name: str) -> bool:
    return bool(name) and (is_known_inactive(name) or name in ctx.registrations.inactive)


def passes_shadowed_memory(ctx: DerivationContext, call: I.Call) -> bool:
    """A pointer argument of `call` (or a vector of pointers: a gather, a scatter) leads to
    shadowed memory (the callee may write there)."""
    return any(a.type.scalar.is_pointer and ctx.activity.touches_shadow(a) for a in call.args)


def returns_shadowed(ctx: DerivationContext, call: I.Call) -> bool:
    """The call returns a pointer into memory this function differentiates through."""
    return call.type.is_pointer and ctx.activity.touches_shadow(call)


def defined_call_carries_derivative(ctx: DerivationContext, call: I.Call,
                                    callee: Function) -> bool:
    """A call of a function of the module carries a derivative: it sees or returns shadowed
    memory, returns an active value, or touches the globals shared with callees (it may move
    active data there)."""
    return passes_shadowed_memory(ctx, call) or ctx.is_active(call) or \
        returns_shadowed(ctx, call) or touches_globals(callee, ctx.shared_globals)


def no_derivative_error(ctx: DerivationContext, call: I.Call) -> DifferentiationError:
    """A call that carries a derivative, and that no rule and no body explains."""
    name = call.callee_name or ""
    symbol = ctx.module.symbols.get(name) if name else None
    if symbol is not None and not isinstance(symbol, Function):  # an alias, a global
        return ctx.error(call, "only direct calls to functions are supported")
    if name.startswith(UNSUPPORTED_MEMORY):
        return ctx.error(call, f"@{name} reads or writes memory through a vector of pointers "
                               "or lanes, which enzyme_py does not differentiate yet (masked "
                               "loads and stores only; see enzyme_py/ad/masked_memory.py); "
                               "compile this loop without vectorizing it (-fno-vectorize, or "
                               "`#pragma clang loop vectorize(disable)`)")
    what = f"@{name}" if name else "an indirect call"
    return ctx.error(call, f"{what} has no derivative rule and no body; add a rule in "
                           f"{RULE_FILES}, or declare it inactive with __enzyme_inactivefn")
