"""Rules for the float vector reductions `llvm.vector.reduce.{fadd,fmul,fmax,fmin,...}`.

The vector operand's map is not elementwise, so it is a `Linear`: forward takes a vector
tangent to a scalar tangent, reverse broadcasts a scalar adjoint to a vector adjoint. The
scalar start value of `fadd` / `fmul` is an ordinary elementwise partial.

Conventions: `reduce.fmul` differentiates without division (each lane's partial is the product
of the other lanes, from prefix and suffix products), so it is exact at zeros. For `fmax`,
`fmin`, `fmaximum`, `fminimum` the derivative flows to the lanes equal to the result
(`fcmp oeq`); on ties *every* tied lane receives the whole seed (forward sums their tangents),
which keeps forward and reverse exact transposes. A NaN result sends nothing anywhere.
Fixed-length vectors only (lanes are enumerated).
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, ConstantKeyword, Value
from enzyme_py.rules.common import identity
from enzyme_py.rules.mathcalls import splat
from enzyme_py.rules.registry import Linear, PartialSpec, RuleContext, Spec, rule

_START_AND_VECTOR = Spec(domain=((-2.0, 2.0), (-2.0, 2.0)),
                         note="operand 1 is tested as <4 x double>, every lane from domain[1]")


def _vector_type(v: Value) -> T.VectorType:
    ty = v.type
    if not isinstance(ty, T.VectorType) or ty.scalable:
        raise TypeError(f"vector reduction rules need a fixed-length vector, not {ty}")
    return ty


def _sum(ctx: RuleContext, v: Value) -> Value:
    """The exact sum of the lanes of `v` (start -0.0, the additive identity)."""
    return ctx.math("vector.reduce.fadd", ctx.const(-0.0, ctx.inst), v)


@rule("llvm.vector.reduce.fadd", spec=_START_AND_VECTOR)
def reduce_fadd(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder
    vec_type = ctx.inst.operands[1].type
    return [identity, Linear(forward=lambda t: _sum(ctx, t),
                             reverse=lambda s: splat(b, s, vec_type))]


def _products_of_others(ctx: RuleContext, v: Value) -> Value:
    """Vector whose lane i is the product of every lane of `v` but i (no division)."""
    b = ctx.builder
    ty = _vector_type(v)
    lanes = [b.extractelement(v, ConstantInt(T.I32, i)) for i in range(ty.count)]
    prefix: list[Value | None] = [None]
    for lane in lanes[:-1]:
        prefix.append(lane if prefix[-1] is None else b.fmul(prefix[-1], lane))
    suffix: list[Value | None] = [None]
    for lane in reversed(lanes[1:]):
        suffix.append(lane if suffix[-1] is None else b.fmul(lane, suffix[-1]))
    suffix.reverse()
    out: Value = ConstantKeyword(ty, "poison")
    for i, (before, after) in enumerate(zip(prefix, suffix, strict=True)):
        if before is None and after is None:
            others: Value = ctx.const(1.0, lanes[i])
        elif before is None or after is None:
            others = before if after is None else after  # type: ignore[assignment]
        else:
            others = b.fmul(before, after)
        out = b.insertelement(out, others, ConstantInt(T.I32, i))
    return out


@rule("llvm.vector.reduce.fmul", spec=_START_AND_VECTOR)
def reduce_fmul(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder
    vec_type = ctx.inst.operands[1].type

    def d_start(s: Value) -> Value:
        v = ctx.operand(1)
        return b.fmul(s, ctx.math("vector.reduce.fmul", ctx.const(1.0, s), v))

    def forward(t: Value) -> Value:
        weighted = b.fmul(t, _products_of_others(ctx, ctx.operand(1)))
        return b.fmul(ctx.operand(0), _sum(ctx, weighted))

    def reverse(s: Value) -> Value:
        scale = splat(b, b.fmul(s, ctx.operand(0)), vec_type)
        return b.fmul(scale, _products_of_others(ctx, ctx.operand(1)))

    return [d_start, Linear(forward=forward, reverse=reverse)]


def _extremum(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder
    vec_type = ctx.inst.operands[0].type

    def winners() -> Value:
        return b.fcmp("oeq", ctx.operand(0), splat(b, ctx.result(), vec_type))

    def forward(t: Value) -> Value:
        return _sum(ctx, b.select(winners(), t, ctx.const(0.0, t)))

    def reverse(s: Value) -> Value:
        return b.select(winners(), splat(b, s, vec_type), ctx.const(0.0, ctx.inst.operands[0]))

    return [Linear(forward=forward, reverse=reverse)]


_VECTOR = Spec(domain=((-2.0, 2.0),), note="tested as <4 x double>")

for _name in ("fmax", "fmin", "fmaximum", "fminimum"):
    rule(f"llvm.vector.reduce.{_name}", spec=_VECTOR)(_extremum)
