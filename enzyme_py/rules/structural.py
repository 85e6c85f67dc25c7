"""Rules for the structural opcodes: `select` and the vector and aggregate instructions.

Each is linear in its float operands taken together (the condition, indices and mask are held
fixed), so each rule is a `JointLinear`: forward repeats the instruction on the tangents, one
instruction however many operands are active; reverse is the transpose, operand by operand:

- `select c, a, b`: a gets `select c, s, 0`, b gets `select c, 0, s`;
- `extractelement v, i`: v gets `insertelement 0, s, i`;
- `insertelement v, x, i`: v gets `insertelement s, 0, i`, x gets `extractelement s, i`;
- `shufflevector a, b, mask`: each source gets the result lanes its lanes went to (one
  `shufflevector` of the seed when no source lane is used twice, else lane by lane, summed);
- `extractvalue agg, idx`: agg gets `insertvalue 0, s, idx`;
- `insertvalue agg, x, idx`: agg gets `insertvalue s, 0, idx`, x gets `extractvalue s, idx`.

Invariants: operand indices are the instruction's operand positions; integer, condition and
mask operands get `None`; partials are lazy (primal values are fetched when they are applied).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.values import (
    ConstantAggregate,
    ConstantInt,
    ConstantKeyword,
    ConstantSplat,
    Value,
    zero,
)
from enzyme_py.rules.registry import JointLinear, Partial, RuleContext, Spec, rule


def on_tangents(ctx: RuleContext, positions: Sequence[int]) -> Callable[
        [Sequence[Value | None]], Value]:
    """Forward of a structural instruction: the same instruction (flags, indices, mask and
    condition kept) with the tangents at `positions`, zero where an operand has none."""
    inst = ctx.inst

    def forward(tangents: Sequence[Value | None]) -> Value:
        new = clone_instruction(inst, {}, {})
        new.name = None
        new.type = inst.type
        for i in positions:
            t = tangents[i]
            new.operands[i] = t if t is not None else zero(inst.operands[i].type)
        return ctx.builder.insert(new)

    return forward


def _zero_like(ctx: RuleContext, v: Value) -> Value:
    """Zero of `v`'s type (a float splat for float vectors, as the arithmetic rules build)."""
    return ctx.const(0.0, v) if v.type.is_fp_or_fp_vector else zero(v.type)


_VALUE = (-2.0, 2.0)
_INDEX = (0.0, 0.0)  # (an integer operand: its value is `Spec.int_args`)


@rule("select", spec=Spec(domain=((0.0, 1.0), _VALUE, _VALUE),
                          note="operand 0 is tested as `fcmp olt p, 0.5`"))
def select(ctx: RuleContext) -> JointLinear:
    b = ctx.builder

    def when_true(s: Value) -> Value:
        return b.select(ctx.operand(0), s, _zero_like(ctx, s))

    def when_false(s: Value) -> Value:
        return b.select(ctx.operand(0), _zero_like(ctx, s), s)

    return JointLinear(on_tangents(ctx, (1, 2)), [None, when_true, when_false])


@rule("extractelement", spec=Spec(domain=(_VALUE, _INDEX), int_args={1: 2}))
def extractelement(ctx: RuleContext) -> JointLinear:
    b = ctx.builder
    vec_type = ctx.inst.operands[0].type

    def to_vector(s: Value) -> Value:
        return b.insertelement(zero(vec_type), s, ctx.operand(1))

    return JointLinear(on_tangents(ctx, (0,)), [to_vector, None])


@rule("insertelement", spec=Spec(domain=(_VALUE, _VALUE, _INDEX), int_args={2: 1}))
def insertelement(ctx: RuleContext) -> JointLinear:
    b = ctx.builder
    elem_type = ctx.inst.operands[1].type

    def to_vector(s: Value) -> Value:
        return b.insertelement(s, zero(elem_type), ctx.operand(2))

    def to_element(s: Value) -> Value:
        return b.extractelement(s, ctx.operand(2))

    return JointLinear(on_tangents(ctx, (0, 1)), [to_vector, to_element, None])


@rule("shufflevector", spec=Spec(domain=(_VALUE, _VALUE, _INDEX), int_args={2: 1}))
def shufflevector(ctx: RuleContext) -> JointLinear:
    inst = ctx.inst
    source = inst.operands[0].type
    assert isinstance(source, T.VectorType)
    lanes = mask_lanes(inst.operands[2], inst.type)
    reverse: list[Partial | None] = [_from_lanes(ctx, source, lanes, k) for k in (0, 1)]
    return JointLinear(on_tangents(ctx, (0, 1)), [*reverse, None])


def _from_lanes(ctx: RuleContext, source: T.VectorType, lanes: list[int | None],
                k: int) -> Partial | None:
    """The transpose of a shuffle for source `k`: lane l of the source gets the sum of the
    seed's lanes j with mask[j] = l (+ n for the second source); None when none."""
    n = source.count
    taken = [(j, m - k * n) for j, m in enumerate(lanes)
             if m is not None and k * n <= m < (k + 1) * n]
    if not taken:
        return None
    b = ctx.builder
    sources = [lane for _, lane in taken]
    if len(set(sources)) == len(sources):  # a permutation of some lanes: one shuffle back
        inverse = [len(lanes)] * n  # (lane 0 of the zero vector after the seed)
        for j, lane in taken:
            inverse[lane] = j
        mask = ConstantAggregate(T.VectorType(n, T.I32),
                                 tuple(ConstantInt(T.I32, i) for i in inverse))
        return lambda s: b.shufflevector(s, zero(s.type), mask)

    def summed(s: Value) -> Value:
        acc: Value = zero(source)
        for j, lane in taken:
            at = ConstantInt(T.I32, lane)
            e = b.extractelement(s, ConstantInt(T.I32, j))
            acc = b.insertelement(acc, b.fadd(b.extractelement(acc, at), e), at)
        return acc

    return summed


def mask_lanes(mask: Value, ty: T.Type) -> list[int | None]:
    """The source lane of each result lane of a shuffle (None: poison)."""
    assert isinstance(ty, T.VectorType)
    if isinstance(mask, ConstantKeyword):
        return [0 if mask.keyword == "zeroinitializer" else None] * ty.count
    if isinstance(mask, ConstantAggregate):
        return [e.value if isinstance(e, ConstantInt) else None for e in mask.elements]
    if isinstance(mask, ConstantSplat) and isinstance(mask.element, ConstantInt):
        return [mask.element.value] * ty.count
    raise ValueError(f"unsupported shufflevector mask {mask.ref()}")


@rule("extractvalue", spec=Spec(domain=(_VALUE,)))
def extractvalue(ctx: RuleContext) -> JointLinear:
    inst = ctx.inst
    assert isinstance(inst, I.AggregateOp)
    b, agg_type = ctx.builder, inst.operands[0].type

    def to_aggregate(s: Value) -> Value:
        return b.insertvalue(zero(agg_type), s, inst.indices)

    return JointLinear(on_tangents(ctx, (0,)), [to_aggregate])


@rule("insertvalue", spec=Spec(domain=(_VALUE, _VALUE)))
def insertvalue(ctx: RuleContext) -> JointLinear:
    inst = ctx.inst
    assert isinstance(inst, I.AggregateOp)
    b, member_type = ctx.builder, inst.operands[1].type

    def to_aggregate(s: Value) -> Value:
        return b.insertvalue(s, zero(member_type), inst.indices)

    def to_member(s: Value) -> Value:
        return b.extractvalue(s, inst.indices)

    return JointLinear(on_tangents(ctx, (0, 1)), [to_aggregate, to_member])
