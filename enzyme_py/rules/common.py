"""Small building blocks shared by the rule modules (no rules are registered here).

Invariants: every helper returns a lazy `Partial`; primal values are fetched through the
context only when the partial is applied, at the builder's insertion point then.
"""

from __future__ import annotations

from collections.abc import Callable

from enzyme_py.ir.values import Value
from enzyme_py.rules.registry import Partial, RuleContext

Thunk = Callable[[], Value]


def identity(seed: Value) -> Value:
    """d(result)/d(operand) = 1."""
    return seed


def scaled(ctx: RuleContext, factor: Thunk) -> Partial:
    """`seed * factor()`."""
    return lambda s: ctx.builder.fmul(s, factor())


def divided(ctx: RuleContext, denominator: Thunk) -> Partial:
    """`seed / denominator()` (no reciprocal is formed, so no extra rounding)."""
    return lambda s: ctx.builder.fdiv(s, denominator())


def negated(ctx: RuleContext, partial: Partial = identity) -> Partial:
    """`-partial(seed)`."""
    return lambda s: ctx.builder.fneg(partial(s))


def libm(name: str) -> tuple[str, str]:
    """The C names of a double function and its float twin: `("sin", "sinf")`."""
    return name, name + "f"


def operand(ctx: RuleContext, i: int) -> Thunk:
    return lambda: ctx.operand(i)


def square(ctx: RuleContext, x: Value) -> Value:
    return ctx.builder.fmul(x, x)


def sign_times(ctx: RuleContext, x: Value, seed: Value) -> Value:
    """`sign(x) * seed` with sign(0) = sign(NaN) = 0 (JAX's `sign`), built from selects."""
    b = ctx.builder
    zero = ctx.const(0.0, seed)
    negative = b.select(b.fcmp("olt", x, ctx.const(0.0, x)), b.fneg(seed), zero)
    return b.select(b.fcmp("ogt", x, ctx.const(0.0, x)), seed, negative)


def balanced(ctx: RuleContext, mine: int, other: int) -> Partial:
    """Derivative of a min/max with respect to operand `mine` (JAX's `_balanced_eq`): the
    seed when this operand alone equals the result, half of it on a tie, else zero."""

    def partial(s: Value) -> Value:
        b = ctx.builder
        r = ctx.result()
        is_mine = b.fcmp("oeq", ctx.operand(mine), r)
        is_other = b.fcmp("oeq", ctx.operand(other), r)
        share = b.select(is_other, ctx.const(0.5, s), ctx.const(1.0, s))
        return b.select(is_mine, b.fmul(s, share), ctx.const(0.0, s))

    return partial
