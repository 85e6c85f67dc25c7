"""`SimpleContext`: the `RuleContext` of the rule tests.

Invariant: the instruction under test is built from the test function's own arguments (or
vectors packed from them), so `operand(i)` is the instruction's i-th operand and `result()` the
instruction itself; both are available wherever the builder inserts after the instruction.
"""

from __future__ import annotations

from enzyme_py.ir.builder import Builder
from enzyme_py.ir.instructions import Call, Instruction
from enzyme_py.ir.values import Value
from enzyme_py.rules.mathcalls import MathContextMixin


class SimpleContext(MathContextMixin):
    """A `RuleContext` whose primal values are the instruction's operands and result."""

    def __init__(self, builder: Builder, inst: Instruction) -> None:
        self.builder = builder
        self.inst = inst
        self.fetched: list[int | str] = []  # which primal values the partials asked for

    def operand(self, index: int) -> Value:
        self.fetched.append(index)
        ops = self.inst.args if isinstance(self.inst, Call) else self.inst.operands
        return ops[index]

    def result(self) -> Value:
        self.fetched.append("result")
        return self.inst
