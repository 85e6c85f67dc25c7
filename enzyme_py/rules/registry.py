"""The rule registry: one derivative rule per opcode, intrinsic or libm function.

A rule states each differentiable operand's partial derivative once, as a small function of a
`RuleContext` (which owns the builder and hands out primal values). For each operand it returns:

- `None`: the operand never carries a derivative (an integer, a condition, an index);
- a `Partial` (a callable `seed -> Value`): an *elementwise* linear map, self-adjoint, used as
  `tangent_result += partial(tangent_operand)` by forward mode and
  `adjoint_operand += partial(adjoint_result)` by reverse mode;
- a `Linear(forward, reverse)` when the map is not elementwise (reductions, type-changing
  casts): forward maps an operand tangent to a result tangent, reverse maps a result adjoint to
  an operand adjoint (its transpose).

A rule may instead return one `JointLinear` for the whole instruction, when the instruction is
linear in its differentiable operands taken together (`select`, the vector and aggregate
opcodes): forward builds the result's tangent from all operand tangents at once (the same
instruction on the tangents), reverse gives each operand's transpose.

Invariants: rules never look at the AD mode; they fetch primal values lazily through the
context (`ctx.operand(i)`, `ctx.result()`) inside the partial, so a transform materializes (or
caches) only the primal values a derivative really uses; every registered name has a `Spec`
(`spec=`) that the test suite checks against finite differences.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.instructions import Call, Instruction
from enzyme_py.ir.values import Value

Partial = Callable[[Value], Value]


@dataclass(frozen=True)
class Linear:
    """A non-elementwise linear map: `forward(tangent)` and its transpose `reverse(adjoint)`."""

    forward: Partial
    reverse: Partial


PartialSpec = Partial | Linear | None


@dataclass(frozen=True)
class JointLinear:
    """An instruction linear in its differentiable operands together (conditions, indices and
    masks held fixed): `forward(tangents)` builds the result's tangent from one tangent per
    operand (None: that operand has none, a zero), as one instruction rather than a sum of
    one per operand; `reverse[i]` maps the result's adjoint to operand i's contribution (its
    transpose; None: operand i carries no derivative), so only active operands cost code."""

    forward: Callable[[Sequence[Value | None]], Value]
    reverse: Sequence[Partial | None]


class RuleContext(Protocol):
    """What a rule may use. Implemented by each transform (and by the rule tests)."""

    builder: Builder
    inst: Instruction

    def operand(self, index: int) -> Value:
        """Primal value of differentiable operand `index`, usable at the insertion point."""

    def result(self) -> Value:
        """The instruction's primal result, usable at the insertion point."""

    def math(self, name: str, *args: Value) -> Value:
        """Call the math function `name` (`cos`, `exp`, `pow` ...) on values of any float type
        or float vector type (an LLVM intrinsic where one exists, else libm)."""

    def const(self, x: float, like: Value) -> Value:
        """The float constant `x` in the type of `like` (a splat for vectors)."""


@dataclass(frozen=True)
class Spec:
    """How the test suite checks a rule: input sampler bounds, arity and tolerance.

    `domain[i]` is the (low, high) interval operand i is sampled from; `tol` the relative
    tolerance against central finite differences; `int_args` maps operand index to a fixed
    integer value (e.g. the exponent of `powi`); `ptr_args` are pointer operands to integer
    outputs the function writes (`frexp`'s exponent), passed scratch memory. `checked_in` names
    the test (`path::name`) that checks a rule the CPU harness cannot run (a warp shuffle: its
    operands are lanes of other threads), instead of the harness.
    """

    domain: tuple[tuple[float, float], ...]
    tol: float = 1e-6
    int_args: dict[int, int] = field(default_factory=dict)
    ptr_args: frozenset[int] = frozenset()
    note: str = ""
    checked_in: str = ""


RuleFn = Callable[[RuleContext], Sequence[PartialSpec] | JointLinear]


@dataclass(frozen=True)
class Rule:
    name: str
    partials: RuleFn
    spec: Spec | None
    where: str  # "module:function" where the rule is defined (for messages)


RULES: dict[str, Rule] = {}
ALIASES: dict[str, str] = {}


def rule(name: str, *aliases: str, spec: Spec | None) -> Callable[[RuleFn], RuleFn]:
    """Register `fn` as the derivative rule for `name` (and `aliases`), with its test spec."""

    def deco(fn: RuleFn) -> RuleFn:
        for key in (name, *aliases):
            if key in RULES or key in ALIASES:
                raise ValueError(f"rule {key!r} registered twice")
        RULES[name] = Rule(name, fn, spec, f"{fn.__module__}:{fn.__name__}")
        for a in aliases:
            ALIASES[a] = name
        return fn

    return deco


_OVERLOAD_SUFFIX = re.compile(r"(\.(?:v\d+|nxv\d+)?(?:f16|bf16|f32|f64|f80|f128|i\d+|p\d+))+$")


def intrinsic_base(name: str) -> str:
    """`llvm.sin.v4f64` -> `llvm.sin`; `llvm.powi.f64.i32` -> `llvm.powi`; others unchanged."""
    if name.startswith("llvm."):
        return _OVERLOAD_SUFFIX.sub("", name)
    return name


def rule_key(inst: Instruction) -> str | None:
    """The registry key for an instruction: its opcode, or its callee's (base) name."""
    if isinstance(inst, Call):
        callee = inst.callee_name
        return intrinsic_base(callee) if callee is not None else None
    return inst.opcode


def lookup(name: str) -> Rule | None:
    """The rule registered for `name` (an opcode, `llvm.sin`, `sinf` ...), or None."""
    _ensure_loaded()
    key = intrinsic_base(name)
    key = ALIASES.get(key, key)
    return RULES.get(key)


def all_rules() -> dict[str, Rule]:
    _ensure_loaded()
    return RULES


def _ensure_loaded() -> None:
    # Importing the rule modules registers their rules (no hand-written central list).
    from enzyme_py.rules import load_all

    load_all()


def float_type(v: Value) -> T.Type:
    return v.type
