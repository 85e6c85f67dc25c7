"""Masked vector loads and stores (`llvm.masked.load`/`llvm.masked.store`, which the loop
vectorizer emits for conditional accesses and predicated tails), in both modes.

Forward: the same intrinsic on the shadows with the same mask; a masked load's pass-through
lanes take the pass-through operand's tangent. Reverse (the transpose):

- `v = masked.load(p, m, passthru)`: the lanes of v's adjoint under m are added into p's
  shadow (a masked load of the shadow, the sum, a masked store back: lanes off the mask are
  never touched); the other lanes go to passthru's adjoint;
- `masked.store(v, p, m)`: v's adjoint is the masked load of p's shadow (zero off the mask),
  and those lanes of the shadow are then zeroed (the store overwrote them).

Invariants: the shadow accesses keep the primal call's attributes (the pointer's `align`),
and touch exactly the lanes the primal touched, so memory outside the mask is never read or
written; gathers, scatters and the other vector memory intrinsics are refused in both modes
(`call_kind.no_derivative_error`).
"""

from __future__ import annotations

from enzyme_py.ad.forward_state import ForwardState
from enzyme_py.ad.reverse_state import ReverseState
from enzyme_py.analysis.memory_effects import MASKED_MEMORY
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import Value, zero

LOAD, STORE = MASKED_MEMORY


def forward_masked(st: ForwardState, call: I.Call) -> None:
    is_load = (call.callee_name or "").startswith(LOAD)
    ptr = call.args[0] if is_load else call.args[1]
    if not carries_float(call.type if is_load else call.args[0].type):
        return
    if not st.ctx.activity.touches_shadow(ptr):
        if is_load and st.is_active(call):  # only the pass-through lanes carry a tangent
            passthru = st.tangent_or_zero(call.args[2])
            b = st.b.position_after_def(call)
            mask = call.args[1]
            st.set_tangent(call, tuple(b.select(mask, zero(call.type), t) for t in passthru))
        return
    shadows = st.shadows(ptr)
    other = st.tangent_or_zero(call.args[2] if is_load else call.args[0])
    b = st.b.position_after_def(call)
    lanes = []
    for sp, t in zip(shadows, other, strict=True):
        new = clone_instruction(call, {}, {})
        new.name = None
        if is_load:
            new.operands[0], new.operands[2] = sp, t
        else:
            new.operands[0], new.operands[1] = t, sp
        b.insert(new)
        lanes.append(new)
    if is_load:
        st.set_tangent(call, tuple(lanes))


def reverse_masked(st: ReverseState, call: I.Call) -> None:
    if (call.callee_name or "").startswith(LOAD):
        _reverse_load(st, call)
    else:
        _reverse_store(st, call)


def _reverse_load(st: ReverseState, call: I.Call) -> None:
    if not st.is_active(call):
        return
    ptr, mask, passthru = call.args
    b = st.b
    d = st.take_adjoint(call)
    m = st.tape.lookup(mask)
    if st.ctx.activity.touches_shadow(ptr):
        sp = st.reverse_shadow(ptr)
        old = _masked_load(st, call, sp, m)
        _masked_store(st, call, b.fadd(old, d), sp, m)
    if st.is_active(passthru):
        st.add_adjoint(passthru, b.select(m, zero(d.type), d))


def _reverse_store(st: ReverseState, call: I.Call) -> None:
    value, ptr, mask = call.args
    if not carries_float(value.type) or not st.ctx.activity.touches_shadow(ptr):
        return
    sp = st.reverse_shadow(ptr)
    m = st.tape.lookup(mask)
    if st.is_active(value):
        st.add_adjoint(value, _masked_load(st, call, sp, m))
    _masked_store(st, call, zero(value.type), sp, m)


def _masked_load(st: ReverseState, like: I.Call, ptr: Value, mask: Value) -> Value:
    """`masked.load(ptr, mask, zero)` of the type `like` moves, with its pointer attributes."""
    vec = like.type if (like.callee_name or "").startswith(LOAD) else like.args[0].type
    fn = st.ctx.module.declare_function(_name(LOAD, like), T.FunctionType(
        vec, (T.PTR, mask.type, vec)))
    call = st.b.call(fn, [ptr, mask, zero(vec)])
    call.arg_attrs[0] = list(_pointer_attrs(like))
    return call


def _masked_store(st: ReverseState, like: I.Call, value: Value, ptr: Value,
                  mask: Value) -> None:
    fn = st.ctx.module.declare_function(_name(STORE, like), T.FunctionType(
        T.VOID, (value.type, T.PTR, mask.type)))
    call = st.b.call(fn, [value, ptr, mask])
    call.arg_attrs[1] = list(_pointer_attrs(like))


def _name(prefix: str, like: I.Call) -> str:
    """The intrinsic `prefix` overloaded as `like` is (`.v4f64.p0`)."""
    name = like.callee_name or ""
    return prefix + name.removeprefix(LOAD).removeprefix(STORE)


def _pointer_attrs(call: I.Call) -> list[str]:
    """The attributes of the primal call's pointer argument that say where it points
    (`align N`), without those that describe the primal's own use of it."""
    index = 0 if (call.callee_name or "").startswith(LOAD) else 1
    return [a for a in call.arg_attrs[index] if a.startswith("align")]
