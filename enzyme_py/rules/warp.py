"""Rules for the warp shuffles (`llvm.nvvm.shfl.sync.{down,up,bfly,idx}.f32`): a lane reads the
value of another lane of its warp.

A shuffle is linear in the value: forward mode shuffles the tangents the same way; reverse mode
applies the transpose of the lane permutation, so the adjoint of each lane's value collects the
adjoints of the lanes that read it. PTX's source lane (`src`) for lane `L`, with `c`'s clamp and
segment mask (`clamp = c & 31`, `seg = (c >> 8) & 31`, `lo = L & seg`, `hi = lo | (clamp & ~seg)`):

- down: `L + b` if `<= hi`; up: `L - b` if `>= hi` (for up, `hi` is the lower bound); bfly:
  `L ^ b` if `<= hi`; idx: `lo | (b & ~seg)` if `<= hi`; otherwise `L` itself (the clamp).

For down, up and bfly each lane is read by at most one other lane, `M` (`L - b`, `L + b`,
`L ^ b`), so the transpose is one shuffle: lane `L` takes `M`'s adjoint when `src(M) == L`, plus
its own when `src(L) == L`. For idx with a lane index that is the same for every lane (a
constant) and no segments, every lane reads one lane `j`: `j` collects the warp's sum (a
butterfly reduction). A varying idx index is an error, not a guess.

Invariants: the transpose runs where the primal shuffle ran, with its mask (the same lanes take
part; the reverse sweep mirrors the forward control flow); only LLVM instructions and nvvm
shuffles are emitted, so the derivative is valid PTX. These rules are checked on the simulated
grid (`Spec.checked_in`), the CPU harness having no warps.
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.values import ConstantInt, Value, const_float
from enzyme_py.rules.mathcalls import module_of
from enzyme_py.rules.registry import Linear, PartialSpec, RuleContext, Spec, rule

_CHECKED = "tests/gpu/test_kernel_gradients.py::test_warp_shuffles"
_SPEC = Spec(domain=((-2.0, 2.0),), checked_in=_CHECKED)
_LANEID = "llvm.nvvm.read.ptx.sreg.laneid"
_WARP = 32


def _shuffle(b: Builder, mode: str, mask: Value, value: Value, lane: Value, c: Value) -> Value:
    module = module_of(b)
    fn = module.declare_function(f"llvm.nvvm.shfl.sync.{mode}.f32",
                                 T.FunctionType(T.FLOAT, (T.I32, T.FLOAT, T.I32, T.I32)))
    return b.call(fn, [mask, value, lane, c])


def _const(v: int) -> ConstantInt:
    return ConstantInt(T.I32, v)


def source_lane(b: Builder, mode: str, lane: Value, bval: Value, cval: Value) -> Value:
    """PTX's source lane of `lane` (see the module docstring)."""
    clamp = b.binop("and", cval, _const(0x1F))
    seg = b.binop("and", b.binop("lshr", cval, _const(8)), _const(0x1F))
    not_seg = b.binop("xor", seg, _const(-1))
    lo = b.binop("and", lane, seg)
    hi = b.binop("or", lo, b.binop("and", clamp, not_seg))
    if mode == "up":
        j = b.sub(lane, bval)
        ok = b.icmp("sge", j, hi)
    else:
        if mode == "down":
            j = b.add(lane, bval)
        elif mode == "bfly":
            j = b.binop("xor", lane, bval)
        else:
            j = b.binop("or", lo, b.binop("and", b.binop("and", bval, _const(0x1F)), not_seg))
        ok = b.icmp("sle", j, hi)
    return b.select(ok, j, lane)


def _reader(b: Builder, mode: str, lane: Value, bval: Value) -> Value:
    """The one lane that may read `lane` (the inverse of the lane map, before the clamp)."""
    if mode == "down":
        return b.sub(lane, bval)
    if mode == "up":
        return b.add(lane, bval)
    return b.binop("xor", lane, bval)


def _transpose(ctx: RuleContext, mode: str, seed: Value) -> Value:
    b = ctx.builder
    mask, _, bval, cval = (ctx.operand(k) for k in range(4))
    laneid = module_of(b).declare_function(_LANEID, T.FunctionType(T.I32, ()))
    lane = b.call(laneid, [], name="lane")
    if mode == "idx":
        return _transpose_broadcast(ctx, seed, lane)
    zero = const_float(seed.type, 0.0)
    own = b.select(b.icmp("eq", source_lane(b, mode, lane, bval, cval), lane), seed, zero)
    reader = _reader(b, mode, lane, bval)
    in_warp = b.icmp("ult", reader, _const(_WARP))
    reads_me = b.icmp("eq", source_lane(b, mode, reader, bval, cval), lane)
    other = b.icmp("ne", reader, lane)
    valid = b.select(in_warp, b.select(reads_me, other, ConstantInt(T.I1, 0)),
                     ConstantInt(T.I1, 0))
    got = _shuffle(b, "idx", mask, seed, b.binop("and", reader, _const(_WARP - 1)),
                   _const(_WARP - 1))
    return b.fadd(own, b.select(valid, got, zero), name="shfl.adjoint")


def _transpose_broadcast(ctx: RuleContext, seed: Value, lane: Value) -> Value:
    """idx with one source lane `j` for the whole warp: `j` collects every lane's seed."""
    b = ctx.builder
    mask, _, bval, cval = (ctx.operand(k) for k in range(4))
    if not (isinstance(bval, ConstantInt) and isinstance(cval, ConstantInt) and
            (cval.value >> 8) & 0x1F == 0 and isinstance(mask, ConstantInt) and
            mask.value & 0xFFFFFFFF == 0xFFFFFFFF):
        inst = ctx.inst
        raise DifferentiationError(
            f"the adjoint of `{str(inst).strip()}`: a warp shuffle by index is differentiated "
            "when every lane of a full warp reads the same constant lane (a broadcast); a "
            "lane index that varies between lanes, a partial mask or segments are not "
            "supported")
    j = bval.value & 0x1F
    if j > cval.value & 0x1F:  # out of range: every lane reads itself
        return seed
    total = seed
    for d in (16, 8, 4, 2, 1):
        total = b.fadd(total, _shuffle(b, "bfly", mask, total, _const(d), _const(0x1F)))
    zero = const_float(seed.type, 0.0)
    return b.select(b.icmp("eq", lane, _const(j)), total, zero, name="shfl.adjoint")


def _shuffle_rule(mode: str):
    def partials(ctx: RuleContext) -> Sequence[PartialSpec]:
        def forward(t: Value) -> Value:
            mask, _, bval, cval = (ctx.operand(k) for k in range(4))
            return _shuffle(ctx.builder, mode, mask, t, bval, cval)

        return [None, Linear(forward, lambda d: _transpose(ctx, mode, d)), None, None]

    partials.__name__ = f"shfl_{mode}"
    return partials


for _mode in ("down", "up", "bfly", "idx"):
    rule(f"llvm.nvvm.shfl.sync.{_mode}", spec=_SPEC)(_shuffle_rule(_mode))
