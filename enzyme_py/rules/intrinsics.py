"""Rules for LLVM's elementwise float intrinsics, shared with their C library names.

One rule serves every spelling of the same math: `llvm.sin` (any overload: `llvm.sin.f32`,
`llvm.sin.v4f64` ...), `sin` and `sinf`. Rules are elementwise, so they work unchanged on
vectors. Integer operands (`powi`, `ldexp` exponents) and sign sources have no derivative.

Conventions at kinks and poles (chosen to match JAX):

- `fabs'(0) = 0` (JAX's `sign`); `copysign(a, b)`: d/da = sign(a) * sign-of(b), d/db = None.
- min/max (`minnum`, `maxnum`, `minimum`, `maximum`, `minimumnum`, `maximumnum`; C `fmin`,
  `fmax`, `fminimum`, `fmaximum`, `fminimum_num`, `fmaximum_num`): the operand equal to the
  result gets the seed, each gets half on a tie (JAX's `lax.max`); a NaN operand gets nothing.
- `sqrt'(0) = +inf` (seed / (2 sqrt x)), as JAX.
- `pow(x, y)`: d/dx = 0 where y == 0, d/dy = 0 where x == 0 (JAX), else the usual formulas.
- `powi(x, n)`: d/dx = n * powi(x, n - 1); no derivative at all for a constant n == 0.
- rounding (`floor`, `ceil`, `trunc`, `round`, `rint`, `nearbyint`, `roundeven`): `None`,
  so no `fadd 0.0` is ever built.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from enzyme_py.ir.values import ConstantInt, Value
from enzyme_py.rules.common import (
    balanced,
    divided,
    identity,
    libm,
    negated,
    operand,
    scaled,
    sign_times,
    square,
)
from enzyme_py.rules.mathcalls import splat
from enzyme_py.rules.registry import PartialSpec, RuleContext, Spec, rule

_UNIT = Spec(domain=((-2.0, 2.0),))
_POSITIVE = Spec(domain=((0.2, 3.0),))
_BINARY = Spec(domain=((-2.0, 2.0), (-2.0, 2.0)))


# --- trigonometric ----------------------------------------------------------------------------


@rule("llvm.sin", *libm("sin"), spec=_UNIT)
def sin(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, lambda: ctx.math("cos", ctx.operand(0)))]


@rule("llvm.cos", *libm("cos"), spec=_UNIT)
def cos(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [negated(ctx, scaled(ctx, lambda: ctx.math("sin", ctx.operand(0))))]


@rule("llvm.tan", *libm("tan"), spec=Spec(domain=((-1.2, 1.2),)))
def tan(ctx: RuleContext) -> Sequence[PartialSpec]:
    r = ctx.result
    return [scaled(ctx, lambda: ctx.builder.fadd(ctx.const(1.0, r()), square(ctx, r())))]


def _sqrt_one_minus_square(ctx: RuleContext) -> Value:
    x = ctx.operand(0)
    return ctx.math("sqrt", ctx.builder.fsub(ctx.const(1.0, x), square(ctx, x)))


@rule("llvm.asin", *libm("asin"), spec=Spec(domain=((-0.9, 0.9),)))
def asin(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [divided(ctx, lambda: _sqrt_one_minus_square(ctx))]


@rule("llvm.acos", *libm("acos"), spec=Spec(domain=((-0.9, 0.9),)))
def acos(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [negated(ctx, divided(ctx, lambda: _sqrt_one_minus_square(ctx)))]


@rule("llvm.atan", *libm("atan"), spec=_UNIT)
def atan(ctx: RuleContext) -> Sequence[PartialSpec]:
    def one_plus_square() -> Value:
        x = ctx.operand(0)
        return ctx.builder.fadd(ctx.const(1.0, x), square(ctx, x))

    return [divided(ctx, one_plus_square)]


@rule("llvm.atan2", *libm("atan2"), spec=Spec(domain=((-2.0, 2.0), (0.3, 2.0))))
def atan2(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder

    def radius2() -> Value:
        return b.fadd(square(ctx, ctx.operand(0)), square(ctx, ctx.operand(1)))

    # atan2(y, x): d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
    return [lambda s: b.fdiv(b.fmul(s, ctx.operand(1)), radius2()),
            lambda s: b.fneg(b.fdiv(b.fmul(s, ctx.operand(0)), radius2()))]


# --- hyperbolic, exponential, logarithmic -----------------------------------------------------


@rule("llvm.sinh", *libm("sinh"), spec=_UNIT)
def sinh(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, lambda: ctx.math("cosh", ctx.operand(0)))]


@rule("llvm.cosh", *libm("cosh"), spec=_UNIT)
def cosh(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, lambda: ctx.math("sinh", ctx.operand(0)))]


@rule("llvm.tanh", *libm("tanh"), spec=_UNIT)
def tanh(ctx: RuleContext) -> Sequence[PartialSpec]:
    r = ctx.result
    return [scaled(ctx, lambda: ctx.builder.fsub(ctx.const(1.0, r()), square(ctx, r())))]


def _result_times(ctx: RuleContext, c: float) -> Sequence[PartialSpec]:
    b = ctx.builder
    return [lambda s: b.fmul(b.fmul(s, ctx.result()), ctx.const(c, s))]


@rule("llvm.exp", *libm("exp"), spec=_UNIT)
def exp(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, ctx.result)]


@rule("llvm.exp2", *libm("exp2"), spec=_UNIT)
def exp2(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _result_times(ctx, math.log(2.0))


@rule("llvm.exp10", *libm("exp10"), spec=Spec(domain=((-1.0, 1.0),)))
def exp10(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _result_times(ctx, math.log(10.0))


def _log_base(ctx: RuleContext, ln_base: float) -> Sequence[PartialSpec]:
    def denominator() -> Value:
        x = ctx.operand(0)
        return ctx.builder.fmul(x, ctx.const(ln_base, x))

    return [divided(ctx, denominator)]


@rule("llvm.log", *libm("log"), spec=_POSITIVE)
def log(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [divided(ctx, operand(ctx, 0))]


@rule("llvm.log2", *libm("log2"), spec=_POSITIVE)
def log2(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _log_base(ctx, math.log(2.0))


@rule("llvm.log10", *libm("log10"), spec=_POSITIVE)
def log10(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _log_base(ctx, math.log(10.0))


@rule("llvm.pow", *libm("pow"), spec=Spec(domain=((0.5, 2.0), (-2.0, 2.0))))
def pow(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder

    def d_base(s: Value) -> Value:
        x, y = ctx.operand(0), ctx.operand(1)
        power = ctx.math("pow", x, b.fsub(y, ctx.const(1.0, y)))
        jac = b.select(b.fcmp("oeq", y, ctx.const(0.0, y)), ctx.const(0.0, y),
                       b.fmul(y, power))
        return b.fmul(s, jac)

    def d_exponent(s: Value) -> Value:
        x = ctx.operand(0)
        jac = b.select(b.fcmp("oeq", x, ctx.const(0.0, x)), ctx.const(0.0, x),
                       b.fmul(ctx.result(), ctx.math("log", x)))
        return b.fmul(s, jac)

    return [d_base, d_exponent]


@rule("llvm.powi", spec=Spec(domain=((0.5, 2.0), (0.0, 0.0)), int_args={1: 3}))
def powi(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder
    n = ctx.inst.operands[1]
    if isinstance(n, ConstantInt) and n.value == 0:
        return [None, None]

    def d_base(s: Value) -> Value:
        x, exponent = ctx.operand(0), ctx.operand(1)
        if isinstance(exponent, ConstantInt):
            minus_one: Value = ConstantInt(exponent.type, exponent.value - 1)
            factor: Value = ctx.const(float(exponent.value), x)
        else:
            minus_one = b.sub(exponent, ConstantInt(exponent.type, 1))
            factor = splat(b, b.sitofp(exponent, x.type.scalar), x.type)
        return b.fmul(s, b.fmul(factor, ctx.math("powi", x, minus_one)))

    return [d_base, None]


@rule("llvm.sqrt", *libm("sqrt"), spec=_POSITIVE)
def sqrt(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [divided(ctx, lambda: ctx.builder.fadd(ctx.result(), ctx.result()))]


@rule("llvm.ldexp", *libm("ldexp"), spec=Spec(domain=((-2.0, 2.0), (0.0, 0.0)),
                                              int_args={1: 3}))
def ldexp(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [lambda s: ctx.math("ldexp", s, ctx.operand(1)), None]


# --- sign, min/max, fused multiply-add --------------------------------------------------------


@rule("llvm.fabs", *libm("fabs"), spec=_UNIT)
def fabs(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [lambda s: sign_times(ctx, ctx.operand(0), s)]


@rule("llvm.copysign", *libm("copysign"), spec=_BINARY)
def copysign(ctx: RuleContext) -> Sequence[PartialSpec]:
    def d_magnitude(s: Value) -> Value:
        y = ctx.operand(1)
        sign_of_y = ctx.math("copysign", ctx.const(1.0, y), y)
        return sign_times(ctx, ctx.operand(0), ctx.builder.fmul(s, sign_of_y))

    return [d_magnitude, None]


def _min_max(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [balanced(ctx, 0, 1), balanced(ctx, 1, 0)]


@rule("llvm.maxnum", *libm("fmax"), spec=_BINARY)
def maxnum(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _min_max(ctx)


@rule("llvm.minnum", *libm("fmin"), spec=_BINARY)
def minnum(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _min_max(ctx)


@rule("llvm.maximum", *libm("fmaximum"), spec=_BINARY)
def maximum(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _min_max(ctx)


@rule("llvm.minimum", *libm("fminimum"), spec=_BINARY)
def minimum(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _min_max(ctx)


@rule("llvm.maximumnum", *libm("fmaximum_num"), spec=_BINARY)
def maximumnum(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _min_max(ctx)


@rule("llvm.minimumnum", *libm("fminimum_num"), spec=_BINARY)
def minimumnum(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _min_max(ctx)


@rule("llvm.fma", *libm("fma"), spec=Spec(domain=((-2.0, 2.0),) * 3))
def fma(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, operand(ctx, 1)), scaled(ctx, operand(ctx, 0)), identity]


@rule("llvm.fmuladd", spec=Spec(domain=((-2.0, 2.0),) * 3))
def fmuladd(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, operand(ctx, 1)), scaled(ctx, operand(ctx, 0)), identity]


@rule("llvm.canonicalize", spec=_UNIT)
def canonicalize(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [identity]


# --- rounding: piecewise constant -------------------------------------------------------------

_STEPS = Spec(domain=((0.05, 0.45),), note="away from every rounding jump")


def _piecewise_constant(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [None]


for _name in ("floor", "ceil", "trunc", "round", "rint", "nearbyint", "roundeven"):
    rule(f"llvm.{_name}", *libm(_name), spec=_STEPS)(_piecewise_constant)
