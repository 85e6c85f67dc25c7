"""One atomic per warp instead of one per thread: where every thread of a kernel adds its part
of one adjoint (an active scalar argument's, into the pointer that follows it), the warp first
sums its lanes' parts with shuffles and its first lane adds the sum.

    lane = linear tid & 31;  left = threads of the block - (linear tid - lane)
    mask = left >= 32 ? all lanes : the `left` lanes that exist (a partial last warp)
    v += shfl.down(v, d) where lane + d < left, for d = 16, 8, 4, 2, 1
    lane 0: atomicrmw fadd ptr, v

Invariants: emitted only where every thread of the block arrives exactly once (the gradient
kernel's return block), so each shuffle's mask names lanes that all execute it; a lane whose
source lies past the warp's last thread adds nothing; floats and doubles (a double travels as
two 32-bit halves) are summed this way, any other type falls back to one atomic per thread.
"""

from __future__ import annotations

from enzyme_py.ad.device import atomic_add, special_register
from enzyme_py.analysis.gpu import WARP_SIZE
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Module
from enzyme_py.ir.values import ConstantInt, Value, const_float


def _i32(v: int) -> ConstantInt:
    return ConstantInt(T.I32, v)


def _shuffle_down(b: Builder, module: Module, mask: Value, v: Value, d: int) -> Value:
    fn = module.declare_function("llvm.nvvm.shfl.sync.down.i32",
                                 T.FunctionType(T.I32, (T.I32, T.I32, T.I32, T.I32)))
    if v.type == T.FLOAT:
        bits = b.bitcast(v, T.I32)
        return b.bitcast(b.call(fn, [mask, bits, _i32(d), _i32(WARP_SIZE - 1)]), T.FLOAT)
    bits = b.bitcast(v, T.I64)
    lo = b.trunc(bits, T.I32)
    hi = b.trunc(b.binop("lshr", bits, ConstantInt(T.I64, 32)), T.I32)
    lo, hi = (b.call(fn, [mask, h, _i32(d), _i32(WARP_SIZE - 1)]) for h in (lo, hi))
    wide = b.binop("or", b.zext(lo, T.I64),
                   b.binop("shl", b.zext(hi, T.I64), ConstantInt(T.I64, 32)))
    return b.bitcast(wide, T.DOUBLE)


def add_per_warp(b: Builder, module: Module, ptr: Value, value: Value) -> None:
    """`*ptr += value` summed over the block's threads warp by warp (see the module
    docstring); the builder continues in a new block after the leader's add."""
    if value.type not in (T.FLOAT, T.DOUBLE):
        atomic_add(b, ptr, value)
        return
    reg = {r: special_register(b, module, r) for r in
           ("tid.x", "tid.y", "tid.z", "ntid.x", "ntid.y", "ntid.z")}
    linear = b.add(reg["tid.x"], b.mul(reg["ntid.x"], b.add(reg["tid.y"], b.mul(
        reg["ntid.y"], reg["tid.z"]))), name="warp.tid")
    threads = b.mul(b.mul(reg["ntid.x"], reg["ntid.y"]), reg["ntid.z"])
    lane = b.binop("and", linear, _i32(WARP_SIZE - 1), name="warp.lane")
    left = b.sub(threads, b.sub(linear, lane), name="warp.left")
    partial = b.sub(b.binop("shl", _i32(1), left), _i32(1))
    mask = b.select(b.icmp("uge", left, _i32(WARP_SIZE)), _i32(-1), partial,
                    name="warp.mask")
    zero = const_float(value.type, 0.0)
    total = value
    d = WARP_SIZE // 2
    while d:
        other = _shuffle_down(b, module, mask, total, d)
        there = b.icmp("ult", b.add(lane, _i32(d)), left)
        total = b.fadd(total, b.select(there, other, zero))
        d //= 2
    total.name = "warp.sum"
    is_leader = b.icmp("eq", lane, _i32(0))
    done, (leader,) = b.split_block("warp.done", "warp.leader")
    b.condbr(is_leader, leader, done)
    at = Builder().position_at_end(leader)
    atomic_add(at, ptr, total)
    at.br(done)
    b.position_at_end(done)
