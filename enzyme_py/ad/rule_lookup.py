"""An instruction's rule in the shared table, as both modes look it up: the rule, the operands
its partials refer to, and the errors that say where a missing rule belongs.

Invariant: a rule gives exactly one partial (or None) per operand of `diff_operands`.
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.ad.context import DerivationContext
from enzyme_py.ir import instructions as I
from enzyme_py.ir.values import Value
from enzyme_py.rules.registry import lookup, rule_key

RULE_FILES = ("enzyme_py/rules/libm.py (libm functions) or enzyme_py/rules/intrinsics.py "
              "(llvm.* intrinsics)")


def diff_operands(inst: I.Instruction) -> list[Value]:
    """The operands a rule's partials refer to (call arguments, without the callee)."""
    if isinstance(inst, I.Call):
        return inst.args
    return inst.operands


def find_rule(ctx: DerivationContext, inst: I.Instruction):
    """The rule of `inst`; raises, naming where to add one, when there is none."""
    key = rule_key(inst)
    rule = lookup(key) if key else None
    if rule is None:
        raise ctx.error(inst, f"no derivative rule for '{key}'; add one in "
                              f"enzyme_py/rules/ ({RULE_FILES})")
    return rule


def check_partials(ctx: DerivationContext, inst: I.Instruction, rule,
                   partials: Sequence[object]) -> None:
    ops = diff_operands(inst)
    if len(partials) != len(ops):
        raise ctx.error(inst, f"rule {rule.where} gives {len(partials)} partials for "
                              f"{len(ops)} operands")
