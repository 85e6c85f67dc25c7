"""Rules for float instructions: arithmetic, `freeze` and casts.

Invariants: operand indices are the instruction's operand positions. Integer operands and
casts to or from integers have no derivative (`None`). `select` and the vector and aggregate
opcodes are linear maps of their operands taken together: their rules are in `structural`.
A `phi` has no rule: its derivative depends on the edge taken, so each transform moves it
with the control flow (reverse: along the edge, forward: a tangent phi).

Conventions: `frem` is C `fmod`, a - trunc(a/b)*b, so d/db = -trunc(a/b) (the jumps where a/b
crosses an integer are ignored, as in JAX's `rem`). A `bitcast` between float types moves the
tangent through the same bitcast: exact when both sides have the same element type (e.g.
`<1 x double>` <-> `double`); between different float layouts (`<2 x float>` <-> `double`) it
reinterprets the shadow bits as Enzyme does, which is exact only while the value is not used
as float math in the other layout. A `bitcast` with an integer side gets `None`: type analysis
in the transforms decides whether such bits carry float data.
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.ir.values import Value
from enzyme_py.rules.common import divided, identity, negated, operand, scaled
from enzyme_py.rules.registry import Linear, PartialSpec, RuleContext, Spec, rule

_WIDE = Spec(domain=((-2.0, 2.0), (-2.0, 2.0)))


@rule("fadd", spec=_WIDE)
def fadd(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [identity, identity]


@rule("fsub", spec=_WIDE)
def fsub(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [identity, negated(ctx)]


@rule("fmul", spec=_WIDE)
def fmul(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, operand(ctx, 1)), scaled(ctx, operand(ctx, 0))]


@rule("fdiv", spec=Spec(domain=((-2.0, 2.0), (0.5, 2.0))))
def fdiv(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder
    # d/db (a/b) = -(a/b)/b: reuse the result instead of squaring b.
    return [divided(ctx, operand(ctx, 1)),
            lambda s: b.fneg(b.fdiv(b.fmul(s, ctx.result()), ctx.operand(1)))]


@rule("frem", "fmod", "fmodf",
      spec=Spec(domain=((5.0, 5.5), (2.0, 2.4)), note="trunc(a/b) stays 2 on the domain"))
def frem(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder

    def d_divisor(s: Value) -> Value:
        quotient = ctx.math("trunc", b.fdiv(ctx.operand(0), ctx.operand(1)))
        return b.fneg(b.fmul(s, quotient))

    return [identity, d_divisor]


@rule("fneg", spec=Spec(domain=((-2.0, 2.0),)))
def fneg(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [negated(ctx)]


@rule("freeze", spec=Spec(domain=((-2.0, 2.0),)))
def freeze(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [identity]


def _float_cast(ctx: RuleContext, inverse: str) -> Sequence[PartialSpec]:
    """A cast between float types: forward repeats the cast, reverse applies `inverse`."""
    inst, b = ctx.inst, ctx.builder
    source, target = inst.operands[0].type, inst.type
    if not (source.is_fp_or_fp_vector and target.is_fp_or_fp_vector):
        return [None]
    return [Linear(forward=lambda t: b.cast(inst.opcode, t, target),
                   reverse=lambda s: b.cast(inverse, s, source))]


@rule("fpext", spec=Spec(domain=((-2.0, 2.0),)))
def fpext(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _float_cast(ctx, "fptrunc")


@rule("fptrunc", spec=Spec(domain=((-2.0, 2.0),), tol=1e-3))
def fptrunc(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _float_cast(ctx, "fpext")


@rule("bitcast", spec=Spec(domain=((-2.0, 2.0),)))
def bitcast(ctx: RuleContext) -> Sequence[PartialSpec]:
    return _float_cast(ctx, "bitcast")


_NO_DERIVATIVE = Spec(domain=((-8.0, 8.0),), note="no float operand carries a derivative")


@rule("sitofp", spec=_NO_DERIVATIVE)
def sitofp(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [None]


@rule("uitofp", spec=_NO_DERIVATIVE)
def uitofp(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [None]


@rule("fptosi", spec=_NO_DERIVATIVE)
def fptosi(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [None]


@rule("fptoui", spec=Spec(domain=((0.0, 8.0),)))
def fptoui(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [None]


@rule("fcmp", spec=_WIDE)
def fcmp(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [None, None]
