"""In-place stores that read their own destination, without a temporary.

`u[1:-1] = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])` and its 2-D form
`u[1:-1, 1:-1] = u[1:-1, 1:-1] + rk * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + ...)` read
slices of the variable they write. NumPy evaluates the right side whole before it stores, so
each read must see the values from before the statement. `writes` computes such a right side
into a temporary; the loops here get the same values without one, walking the destination in
index order (row by row) and keeping what they overwrite while a later read still needs it:

- a read shifted ahead (`u[2:]` beside `u[1:-1]`: element i + q with q >= 0, or any later
  row) meets memory not yet written;
- a read shifted back by one element in the last axis (`u[:-2]`; `u[1:-1, :-2]`) reads a
  register holding the element the previous step overwrote;
- in 2-D, a read shifted back by one row (`u[:-2, 1:-1]`, also one column left or any number
  right) reads a line buffer holding the previous row as it was: each step saves the element
  it overwrites there, and the row's end saves the cells beside the destination that later
  reads of that row address (they are never written, so they come from memory);
- in a gradient (`reverse_mode`), reads of later rows come from copies of those rows made
  before each row (`_rows_ahead`): the row loop then touches the destination only where it
  stores and one column ahead, a loop whose reverse vectorizes (`ad/overwritten_loads.py`).

A `plan` maps each overlapping read (by pointer) to its shift q: read[i] is dest[i + q].
Invariants: the plan exists only for reads that are slices of the destination's variable
(`AVal.origin`: constant starts, step 1, the variable's strides) with shifts the loops can
serve (`servable`); the carried loops run only where the reads have the destination's
extents and nothing broadcasts (then the constant starts are the real ones, and every cell
a loop loads before its rows is memory of the variable); otherwise the statement goes
through a temporary. The reads are addressed from the destination's pointer, so LLVM sees
the constant distances and vectorizes the inner loop.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.values import AVal, SVal, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling

Shift = tuple[int, ...]
Plan = dict[Value, tuple[AVal, Shift]]

MAX_RIGHT_REACH = 8  # the most columns to the right a read one row back may reach


def servable(q: Shift) -> bool:
    """Whether the carried loops can serve a read shifted by q (see the module docstring)."""
    if len(q) == 1:
        return q[0] >= -1
    if len(q) != 2:
        return False
    row, col = q
    return row >= 1 or (row == 0 and col >= -1) or (row == -1 and -1 <= col <= MAX_RIGHT_REACH)


def plan_for(dest: AVal, reads: list[AVal]) -> Plan | None:
    """Each overlapping read's pointer -> (the read, its shift), or None when a read is not
    a slice of the destination's variable or its shift cannot be served."""
    if dest.origin is None:
        return None
    name, _, start = dest.origin
    plan: Plan = {}
    for r in reads:
        if r.moved or r.origin is None or r.origin[0] != name or \
                r.type.elem != dest.type.elem or len(r.origin[2]) != len(start):
            return None
        q = tuple(a - s for a, s in zip(r.origin[2], start, strict=True))
        if not servable(q):
            return None
        plan[r.ptr] = (r, q)
    return plan


def carried_store(c: Compiling, dest: AVal, src: Any, plan: Plan, node: ast.AST) -> None:
    """dest[...] = src, where src reads slices of dest's variable (`plan`): the carried loop
    where the reads have dest's extents and nothing broadcasts, else through a temporary.
    In an optimistic compile (see `lazy.versioned`) the temporary's form is not emitted:
    where the carried loop cannot run, the function leaves with the request for the
    checked copy, so the gradient holds (and tapes) the statement's loop nest once."""
    b = c.b
    tests: list[Value] = []
    for r, _ in plan.values():
        tests += [b.icmp("eq", d, n) for d, n in zip(r.dims, dest.dims, strict=True)
                  if not L.same_extent(d, n)]
        if r.origin[1] is not dest.origin[1]:  # type: ignore[index]
            tests.append(b.icmp("eq", r.origin[1], dest.origin[1]))  # type: ignore[index]
    form = src
    if src.fast is not None and src.assume:
        tests += src.assume
        form = src.fast
    shifts = {p: q for p, (_, q) in plan.items()}
    if not tests:  # (known at compile time: the carried loop is the only form)
        _carried(c, dest, form, shifts, node)
        return
    ok: Value = tests[0]
    for test in tests[1:]:
        ok = b.binop("and", ok, test)
    carried, copied, done = (c.new_block("store.carried"), c.new_block("store.copied"),
                             c.new_block("store.end"))
    b.condbr(ok, carried, copied)
    b.position_at_end(carried)
    _carried(c, dest, form, shifts, node)
    b.br(done)
    b.position_at_end(copied)
    if c.session.optimistic:
        c.leave_for_retry(b)  # (as `lazy.versioned`: the checked copy has the temporary)
    else:
        tmp = L.copy(c, src, node)
        L.store_elements(c, dest, L.as_lazy(c, tmp))
        assert tmp.base is not None
        c.heap.release(tmp.base)
        b.br(done)
    b.position_at_end(done)


def _carried(c: Compiling, dest: AVal, src: Any, shifts: dict[Value, Shift],
             node: ast.AST) -> None:
    """The carried loop of dest[...] = src (1-D or 2-D)."""
    if dest.type.ndim == 1:
        _carried_elements(c, dest, src, shifts)
    else:
        _carried_rows(c, dest, src, shifts, node)


def _element_value(c: Compiling, dest: AVal, src: Any, idx: list[Value],
                   reads: dict[Value, Callable[[list[Value]], Value]]) -> Value:
    """src's element at idx, with the planned reads redirected (`c.carried`)."""
    c.carried.update(reads)
    try:
        return convert(c.b, SVal(src.type.elem, src.element(idx)), dest.type.elem).v
    finally:
        for p in reads:
            c.carried.pop(p, None)


def _shifted(c: Compiling, dest: AVal, q: Shift) -> Callable[[list[Value]], Value]:
    """A read of dest's memory at idx + q (addressed from dest's pointer)."""
    def read(idx: list[Value]) -> Value:
        at = [c.b.add(i, ConstantInt(T.I64, k), flags=("nsw",)) for i, k in zip(idx, q,
                                                                                 strict=True)]
        return c.b.load(dest.type.elem.ir, L.element_address(c, dest, at))
    return read


def _carried_elements(c: Compiling, dest: AVal, src: Any, shifts: dict[Value, Shift]) -> None:
    """The 1-D loop: reads shifted back by one come from a register holding the element
    the previous step overwrote (the first from memory before the loop)."""
    b = c.b
    etype = dest.type.elem
    n = dest.dims[0]
    slot = None
    if (-1,) in shifts.values():
        slot = c.alloca_at.alloca(etype.ir, name="carried")
        before = L.element_address(c, dest, [ConstantInt(T.I64, -1)])
        L.when(c, b.icmp("sgt", n, ConstantInt(T.I64, 0)),
               lambda: b.store(b.load(etype.ir, before), slot))

    def read(q: Shift) -> Callable[[list[Value]], Value]:
        if q == (-1,):
            return lambda idx: c.b.load(etype.ir, slot)
        return _shifted(c, dest, q)

    def body(idx: list[Value]) -> None:
        x = _element_value(c, dest, src, idx, {p: read(q) for p, q in shifts.items()})
        at = L.element_address(c, dest, idx)
        if slot is not None:
            c.b.store(c.b.load(etype.ir, at), slot)
        c.b.store(x, at)

    c.counted_loop(n, lambda i: body([i]))


def _carried_rows(c: Compiling, dest: AVal, src: Any, shifts: dict[Value, Shift],
                  node: ast.AST) -> None:
    """The 2-D loop, row by row (see the module docstring).

    The line buffer holds one row of the destination as it was, from column -left to
    column width + right - 1: before the first row, the row above the destination; as row i
    is walked, its columns < j are row i's (saved as they are overwritten) and the rest still
    row i - 1's; at the row's end the cells beside the destination are refreshed from row i.
    A read one row back and one column left takes a register: the line cell it needs was
    refreshed one step before."""
    b = c.b
    etype = dest.type.elem
    rows, width = dest.dims
    zero = ConstantInt(T.I64, 0)
    up = [q[1] for q in shifts.values() if q[0] == -1]
    left = 1 if -1 in up else 0
    right = max([0, *up])
    line = None
    if up:
        count = b.add(width, ConstantInt(T.I64, left + right), flags=("nsw",))
        line = c.heap.allocate(etype, count, node)

    def line_at(col: Value) -> Value:  # the line cell of column col
        return b.getelementptr(etype.ir, line, [b.add(col, ConstantInt(T.I64, left),
                                                      flags=("nsw",))])

    def refresh(row: Value, cols: list[tuple[Value, Value]]) -> None:
        """Line cells of the columns [lo, hi) in each range <- memory of dest's `row`."""
        for lo, hi in cols:
            span = b.sub(hi, lo, flags=("nsw",))
            c.counted_loop(span, lambda k, lo=lo: b.store(
                b.load(etype.ir, L.element_address(c, dest, [row, b.add(lo, k)])),
                line_at(b.add(lo, k))))

    beside = []  # the cells beside the destination that reads one row back address
    if left:
        beside.append((ConstantInt(T.I64, -1), zero))
    if right:
        beside.append((width, b.add(width, ConstantInt(T.I64, right), flags=("nsw",))))
    nonempty = b.binop("and", b.icmp("sgt", rows, zero), b.icmp("sgt", width, zero))
    if line is not None:  # the row above the destination, with the cells beside it
        L.when(c, nonempty, lambda: refresh(ConstantInt(T.I64, -1), [
            (ConstantInt(T.I64, -left), b.add(width, ConstantInt(T.I64, right)))]))
    back = c.alloca_at.alloca(etype.ir, name="carried") if (0, -1) in shifts.values() else None
    corner = c.alloca_at.alloca(etype.ir, name="carried.up") if left else None
    # a gradient reads the rows ahead from copies made before each row (`_rows_ahead`)
    ahead = _rows_ahead(c, dest, shifts, node) if c.session.reverse_mode else {}

    def read(q: Shift) -> Callable[[list[Value]], Value]:
        if q == (0, -1):
            return lambda idx: c.b.load(etype.ir, back)
        if q == (-1, -1):
            return lambda idx: c.b.load(etype.ir, corner)
        if q[0] == -1:
            return lambda idx: c.b.load(etype.ir, line_at(
                c.b.add(idx[1], ConstantInt(T.I64, q[1]), flags=("nsw",))))
        if q[0] in ahead:
            copy, lo, _ = ahead[q[0]]
            return lambda idx: c.b.load(etype.ir, b.getelementptr(etype.ir, copy, [
                c.b.add(idx[1], ConstantInt(T.I64, q[1] - lo), flags=("nsw",))]))
        return _shifted(c, dest, q)

    reads = {p: read(q) for p, q in shifts.items()}

    def step(i: Value, j: Value) -> None:
        x = _element_value(c, dest, src, [i, j], reads)
        at = L.element_address(c, dest, [i, j])
        if back is not None or line is not None:
            old = b.load(etype.ir, at)
            if corner is not None:
                b.store(b.load(etype.ir, line_at(j)), corner)
            if line is not None:
                b.store(old, line_at(j))
            if back is not None:
                b.store(old, back)
        b.store(x, at)

    def row(i: Value) -> None:
        for r, (copy, lo, span) in ahead.items():  # row i + r, columns lo .. lo + span - 1
            at_row = b.add(i, ConstantInt(T.I64, r), flags=("nsw",))
            c.counted_loop(span, lambda k, copy=copy, lo=lo, at_row=at_row: b.store(
                b.load(etype.ir, L.element_address(c, dest, [
                    at_row, b.add(k, ConstantInt(T.I64, lo), flags=("nsw",))])),
                b.getelementptr(etype.ir, copy, [k])))
        if back is not None:
            b.store(b.load(etype.ir, L.element_address(c, dest, [i, ConstantInt(T.I64, -1)])),
                    back)
        if corner is not None:
            b.store(b.load(etype.ir, line_at(ConstantInt(T.I64, -1))), corner)
        c.counted_loop(width, lambda j: step(i, j))
        if beside:
            refresh(i, beside)

    L.when(c, nonempty, lambda: c.counted_loop(rows, row))
    if line is not None:
        c.heap.release(line)
    for copy, _, _ in ahead.values():
        c.heap.release(copy)


def _rows_ahead(c: Compiling, dest: AVal, shifts: dict[Value, Shift], node: ast.AST
                ) -> dict[int, tuple[Value, int, Value]]:
    """For each row shift r >= 1 of a read: (a buffer for the columns the reads of row i + r
    address while row i is walked, its first column, its length). A gradient's row loop then touches
    the destination only where it stores and one column ahead, so its reverse stores each
    adjoint instead of adding into the element the previous reversed step cleared
    (`ad/overwritten_loads.py`); the copies cost one read of those rows."""
    b = c.b
    out: dict[int, tuple[Value, int, Value]] = {}
    for r in sorted({q[0] for q in shifts.values() if q[0] >= 1}):
        cols = [q[1] for q in shifts.values() if q[0] == r]
        count = b.add(dest.dims[1], ConstantInt(T.I64, max(cols) - min(cols)), flags=("nsw",))
        out[r] = (c.heap.allocate(dest.type.elem, count, node), min(cols), count)
    return out


__all__ = ["carried_store", "plan_for", "servable"]
