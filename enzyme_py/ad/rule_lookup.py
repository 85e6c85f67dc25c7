"""An instruction's rule in the shared table, as both modes look it up: the rule, the operands
its partials refer to, and the errors that say where a missing rule belongs.

Invariant: a rule gives exactly one partial (or None) per operand of `diff_operands`.
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.ad.context import DerivationContext
from enzyme_py.ir import instructions as I
from enzyme_py.ir.values import Value
from enzyme_py.rules.registry import JointLinear, lookup, rule_key

RULE_FILES = ("enzyme_py/rules/libm.py (libm functions), enzyme_py/rules/intrinsics.py "
              "(llvm.* intrinsics) or enzyme_py/rules/nvvm.py (llvm.nvvm.* and __nv_*)")


def diff_operands(inst: I.Instruction) -> list[Value]:
    """The operands a rule's partials refer to (call arguments, without the callee)."""
    if isinstance(inst, I.Call):
        return inst.args
    return inst.operands


# Instructions that read or write memory: no rule (a function of values) can state their
# derivative; the transforms move it through the shadow memory.
MEMORY_OPCODES = frozenset({"load", "store", "atomicrmw", "cmpxchg", "va_arg", "fence"})


def find_rule(ctx: DerivationContext, inst: I.Instruction):
    """The rule of `inst` (of the math a call's callee is declared like, if it is: see
    `registrations`); raises, naming where to add one, when there is none."""
    key = rule_key(inst)
    if isinstance(inst, I.Call) and key in ctx.registrations.function_like:
        key = ctx.registrations.function_like[key]
    rule = lookup(key) if key else None
    if rule is not None:
        return rule
    if key in MEMORY_OPCODES:
        raise ctx.error(inst, f"'{key}' on active data is not supported yet: it reads or "
                              "writes memory, which the transforms differentiate through the "
                              "shadow memory (enzyme_py/ad/reverse_ops.py and forward_ops.py), "
                              "not by a rule")
    where = RULE_FILES if isinstance(inst, I.Call) else (
        "enzyme_py/rules/arith.py (float arithmetic and casts) or enzyme_py/rules/"
        "structural.py (select, vector and aggregate instructions)")
    raise ctx.error(inst, f"no derivative rule for '{key}'; add one in {where}")


def check_partials(ctx: DerivationContext, inst: I.Instruction, rule,
                   got: Sequence[object] | JointLinear) -> None:
    """A rule's partials (or its `JointLinear`'s transposes) match the operands."""
    partials = got.reverse if isinstance(got, JointLinear) else got
    ops = diff_operands(inst)
    if len(partials) != len(ops):
        raise ctx.error(inst, f"rule {rule.where} gives {len(partials)} partials for "
                              f"{len(ops)} operands")
