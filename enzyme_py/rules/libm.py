"""Rules for C library math functions that have no LLVM intrinsic.

Functions that do have one (`sin`, `exp`, `pow`, `fmax`, `fmod` ...) are registered once,
as aliases of the intrinsic (`intrinsics.py`) or instruction (`arith.py`) with the same math.
Each name here comes with its `float` twin (`erf`, `erff`). These are scalar calls; the
derivatives use `ctx.math`, so they also hold for a vector argument should a transform need it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from enzyme_py.ir.values import Value
from enzyme_py.rules.common import divided, identity, libm, negated, scaled, square
from enzyme_py.rules.registry import PartialSpec, RuleContext, Spec, rule

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _sqrt_square_plus(ctx: RuleContext, c: float) -> Value:
    x = ctx.operand(0)
    return ctx.math("sqrt", ctx.builder.fadd(square(ctx, x), ctx.const(c, x)))


@rule("asinh", *libm("asinh")[1:], spec=Spec(domain=((-2.0, 2.0),)))
def asinh(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [divided(ctx, lambda: _sqrt_square_plus(ctx, 1.0))]


@rule("acosh", *libm("acosh")[1:], spec=Spec(domain=((1.2, 3.0),)))
def acosh(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [divided(ctx, lambda: _sqrt_square_plus(ctx, -1.0))]


@rule("atanh", *libm("atanh")[1:], spec=Spec(domain=((-0.8, 0.8),)))
def atanh(ctx: RuleContext) -> Sequence[PartialSpec]:
    def one_minus_square() -> Value:
        x = ctx.operand(0)
        return ctx.builder.fsub(ctx.const(1.0, x), square(ctx, x))

    return [divided(ctx, one_minus_square)]


@rule("expm1", *libm("expm1")[1:], spec=Spec(domain=((-2.0, 2.0),)))
def expm1(ctx: RuleContext) -> Sequence[PartialSpec]:
    r = ctx.result
    return [scaled(ctx, lambda: ctx.builder.fadd(r(), ctx.const(1.0, r())))]


@rule("log1p", *libm("log1p")[1:], spec=Spec(domain=((-0.5, 2.0),)))
def log1p(ctx: RuleContext) -> Sequence[PartialSpec]:
    def one_plus() -> Value:
        x = ctx.operand(0)
        return ctx.builder.fadd(x, ctx.const(1.0, x))

    return [divided(ctx, one_plus)]


@rule("cbrt", *libm("cbrt")[1:], spec=Spec(domain=((0.2, 3.0),)))
def cbrt(ctx: RuleContext) -> Sequence[PartialSpec]:
    def three_r_squared() -> Value:
        r = ctx.result()
        return ctx.builder.fmul(ctx.const(3.0, r), square(ctx, r))

    return [divided(ctx, three_r_squared)]


@rule("hypot", *libm("hypot")[1:], spec=Spec(domain=((-2.0, 2.0), (0.3, 2.0))))
def hypot(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder
    return [lambda s: b.fdiv(b.fmul(s, ctx.operand(0)), ctx.result()),
            lambda s: b.fdiv(b.fmul(s, ctx.operand(1)), ctx.result())]


def _gaussian(ctx: RuleContext) -> Value:
    """2/sqrt(pi) * exp(-x^2), the derivative of erf."""
    x = ctx.operand(0)
    e = ctx.math("exp", ctx.builder.fneg(square(ctx, x)))
    return ctx.builder.fmul(ctx.const(_TWO_OVER_SQRT_PI, x), e)


@rule("erf", *libm("erf")[1:], spec=Spec(domain=((-2.0, 2.0),)))
def erf(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, lambda: _gaussian(ctx))]


@rule("erfc", *libm("erfc")[1:], spec=Spec(domain=((-2.0, 2.0),)))
def erfc(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [negated(ctx, scaled(ctx, lambda: _gaussian(ctx)))]


@rule("frexp", "frexpf", spec=Spec(domain=((-40.0, 40.0), (0.0, 0.0)), ptr_args=frozenset({1})))
def frexp(ctx: RuleContext) -> Sequence[PartialSpec]:
    """m = frexp(x, &e) = x * 2^-e with e an integer written to memory (no derivative): dm/dx
    is 2^-e = m / x, exact for finite nonzero x (a power of two); 1 at x == 0 (frexp(0) = 0,
    e = 0)."""
    b = ctx.builder

    def slope() -> Value:
        x, m = ctx.operand(0), ctx.result()
        at_zero = b.fcmp("oeq", x, ctx.const(0.0, x))
        return b.select(at_zero, ctx.const(1.0, x), b.fdiv(m, x))

    return [scaled(ctx, slope), None]



@rule("remquo", "remquof", spec=Spec(domain=((-5.0, 5.0), (0.7, 2.0), (0.0, 0.0)),
                                     ptr_args=frozenset({2})))
def remquo(ctx: RuleContext) -> Sequence[PartialSpec]:
    """r = remquo(x, y, &q) = x - n y with n = x/y rounded to nearest (q, written to memory,
    holds only its low bits and has no derivative): dr/dx = 1, dr/dy = -n, and n is the
    integer (x - r) / y."""
    b = ctx.builder

    def minus_n() -> Value:
        x, y, r = ctx.operand(0), ctx.operand(1), ctx.result()
        return b.fneg(ctx.math("rint", b.fdiv(b.fsub(x, r), y)))

    return [identity, scaled(ctx, minus_n), None]
