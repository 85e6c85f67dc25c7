"""The BLAS-level rule of the matrix kernel: calls of `@enzyme_py.gemm.<t>` (C += A @ B).

The kernel's instructions are never differentiated; its calls are, as Enzyme's BLAS rules do
for gemm, by more calls of the same kernel on the shadows (`rules.matrix_kernel` takes any
strides, so a transpose is the same pointer with its strides swapped):

- reverse: C's adjoint passes through unchanged (C_new = C_old + A B), and
  dA += dC @ B.T, dB += A.T @ dC (per matrix of the batch), each only for an operand whose
  memory has a shadow;
- forward: dC += dA @ B + A @ dB, right after the call.

The reverse sweep reads A (for dB) and B (for dA) as the call saw them. Memory the function
writes after the call (a later statement, or the call again in a loop) is copied right after
the call in the forward sweep (`@enzyme_py.gemm.save.<t>`: a contiguous copy on the heap,
freed once the reverse has used it); memory nothing writes again is read in place.

Invariant: the call's argument order is the kernel's (batch, m, n, k, then a, b and c each
with its batch, row and column strides); a broadcast operand (batch stride 0) gets the sum
of the batch's adjoint products in one call; the products run in the kernel's exact order,
so a gradient is deterministic.
"""

from __future__ import annotations

from enzyme_py.ad.forward_state import ForwardState
from enzyme_py.ad.reverse_state import ReverseState
from enzyme_py.analysis.memory_effects import write_after
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.install import install_function
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import ConstantInt, Value
from enzyme_py.rules.matrix_kernel import PREFIX, kernel_type

# the kernel's arguments: batch, extents, then each operand's pointer and three strides
_Q, _M, _N, _K, _A, _ABS, _ARS, _ACS, _B, _BBS, _BRS, _BCS, _C, _CBS, _CRS, _CCS = range(16)

_SAVE = """
define internal ptr @{name}(i64 %batch, i64 %rows, i64 %cols, ptr %src, i64 %bs, i64 %rs, \
i64 %cs) {{
entry:
  %shared = icmp eq i64 %bs, 0
  %count = select i1 %shared, i64 1, i64 %batch
  %size = mul i64 %rows, %cols
  %all = mul i64 %count, %size
  %bytes = mul i64 %all, {size}
  %dst = call ptr @malloc(i64 %bytes)
  %any = icmp sgt i64 %all, 0
  br i1 %any, label %matrix, label %done
matrix:
  %q = phi i64 [ 0, %entry ], [ %q.next, %matrix.end ]
  %src.q.off = mul i64 %q, %bs
  %src.q = getelementptr {ty}, ptr %src, i64 %src.q.off
  %dst.q.off = mul i64 %q, %size
  %dst.q = getelementptr {ty}, ptr %dst, i64 %dst.q.off
  br label %row
row:
  %i = phi i64 [ 0, %matrix ], [ %i.next, %row.end ]
  %src.off = mul i64 %i, %rs
  %src.row = getelementptr {ty}, ptr %src.q, i64 %src.off
  %dst.off = mul i64 %i, %cols
  %dst.row = getelementptr {ty}, ptr %dst.q, i64 %dst.off
  br label %col
col:
  %j = phi i64 [ 0, %row ], [ %j.next, %col ]
  %s.off = mul i64 %j, %cs
  %s.at = getelementptr {ty}, ptr %src.row, i64 %s.off
  %x = load {ty}, ptr %s.at, align {size}
  %d.at = getelementptr {ty}, ptr %dst.row, i64 %j
  store {ty} %x, ptr %d.at, align {size}
  %j.next = add i64 %j, 1
  %j.more = icmp slt i64 %j.next, %cols
  br i1 %j.more, label %col, label %row.end
row.end:
  %i.next = add i64 %i, 1
  %i.more = icmp slt i64 %i.next, %rows
  br i1 %i.more, label %row, label %matrix.end
matrix.end:
  %q.next = add i64 %q, 1
  %q.more = icmp slt i64 %q.next, %count
  br i1 %q.more, label %matrix, label %done
done:
  ret ptr %dst
}}
declare ptr @malloc(i64)
"""


def _kernel_of(call: I.Call) -> Function:
    """The kernel the call calls (the one its rule calls again)."""
    callee = call.callee
    assert isinstance(callee, Function)
    return callee


def _save_function(call: I.Call) -> Function:
    """`@enzyme_py.gemm.save.<t>(batch, rows, cols, src, bs, rs, cs)`: a fresh contiguous
    copy of the batch's matrices (of one, when the batch shares it: `bs` 0)."""
    kernel = _kernel_of(call)
    elem, size = kernel_type(kernel.name or "")
    assert kernel.parent is not None
    name = f"enzyme_py.gemm.save.{(kernel.name or '')[len(PREFIX):]}"
    return install_function(kernel.parent, name, _SAVE.format(name=name, ty=elem, size=size),
                            "enzyme_py gemm")


def reverse_matrix_call(st: ReverseState, call: I.Call) -> None:
    """dA += dC @ B.T and dB += A.T @ dC (each matrix of the batch), at the builder of the
    reverse sweep."""
    activity = st.ctx.activity
    a, b, c = call.args[_A], call.args[_B], call.args[_C]
    if not activity.touches_shadow(c):
        return
    a_active, b_active = activity.touches_shadow(a), activity.touches_shadow(b)
    if not (a_active or b_active):
        return
    kernel = _kernel_of(call)
    q, m, n, k = (st.tape.lookup(call.args[i]) for i in (_Q, _M, _N, _K))
    # what the reverse reads of the primal: B for dA, A for dB
    b_read = _operand_as_called(st, call, _B) if a_active else None
    a_read = _operand_as_called(st, call, _A) if b_active else None
    dc = [st.reverse_shadow(c), *(st.tape.lookup(call.args[i]) for i in (_CBS, _CRS, _CCS))]
    bld = st.b
    if b_read is not None:
        ptr, bs, rs, cs, _ = b_read
        bld.call(kernel, [q, m, k, n, *dc, ptr, bs, cs, rs, st.reverse_shadow(a),
                          *(st.tape.lookup(call.args[i]) for i in (_ABS, _ARS, _ACS))])
    if a_read is not None:
        ptr, bs, rs, cs, _ = a_read
        bld.call(kernel, [q, k, n, m, ptr, bs, cs, rs, *dc, st.reverse_shadow(b),
                          *(st.tape.lookup(call.args[i]) for i in (_BBS, _BRS, _BCS))])
    free = st.ctx.libc.free()
    for got in (a_read, b_read):
        if got is not None and got[4]:
            bld.call(free, [got[0]])


def _operand_as_called(st: ReverseState, call: I.Call, at: int
                       ) -> tuple[Value, Value, Value, Value, bool]:
    """(pointer, batch, row and column strides, whether it is a copy to free) of the operand
    at argument `at` (A or B) as the call read it, for the reverse sweep: the memory itself
    when nothing writes it after the call, else a copy made right after the call in the
    forward sweep (contiguous; one matrix when the batch shares it)."""
    ptr = call.args[at]
    strides = [call.args[at + 1], call.args[at + 2], call.args[at + 3]]
    if write_after(st.effects, call, [ptr]) is None:
        return (st.tape.lookup(ptr), *(st.tape.lookup(s) for s in strides), False)
    rows, cols = (call.args[_M], call.args[_K]) if at == _A else (call.args[_K], call.args[_N])
    after = Builder().position_after_def(call)
    saved = after.call(_save_function(call), [call.args[_Q], rows, cols, ptr, *strides],
                       name="gemm.saved")
    bld = st.b
    r, c, bs = st.tape.lookup(rows), st.tape.lookup(cols), st.tape.lookup(strides[0])
    zero_ = ConstantInt(T.I64, 0)
    shared = bld.icmp("eq", bs, zero_)
    return (st.tape.lookup(saved), bld.select(shared, zero_, bld.mul(r, c)), c,
            ConstantInt(T.I64, 1), True)


def forward_matrix_call(st: ForwardState, call: I.Call) -> None:
    """dC += dA @ B + A @ dB right after the call (C_new = C_old + A B)."""
    activity = st.ctx.activity
    a, b, c = call.args[_A], call.args[_B], call.args[_C]
    if not activity.touches_shadow(c):
        return
    a_active, b_active = activity.touches_shadow(a), activity.touches_shadow(b)
    kernel = _kernel_of(call)
    args = list(call.args)
    a_sh = st.shadows(a) if a_active else (None,) * st.width
    b_sh = st.shadows(b) if b_active else (None,) * st.width
    c_sh = st.shadows(c)
    bld = st.b.position_after_def(call)  # (after the shadows: finding one may insert code)
    for da, db, dc in zip(a_sh, b_sh, c_sh, strict=True):
        if da is not None:
            bld.call(kernel, [*args[:_A], da, *args[_ABS:_C], dc, *args[_CBS:]])
        if db is not None:
            bld.call(kernel, [*args[:_B], db, *args[_BBS:_C], dc, *args[_CBS:]])
