"""Stores into views with NumPy's semantics: `y[1:] = expr`, `X[:, j] = v`, `u[1:-1] += ...`.

The right side broadcasts to the view's shape (it may not grow it: a size mismatch is a
recorded `ValueError`). When the right side reads memory the store may overwrite at another
position (`u[1:-1] = u[:-2] + u[2:]`), it is computed into a temporary first, so the result
equals NumPy's, which evaluates the right side whole before storing. A 1-D store whose
overlapping reads are its own view shifted back by one element or views that
start at or ahead of it (the stencils' `u[:-2]`, `u[2:]` beside `u[1:-1]`: slices of one
variable with constant starts) needs no temporary: the loop keeps the element it overwrites
for the next iteration's read of the one before (`_carried_store`), where the extents show
the starts are the real ones, and uses the temporary otherwise.

Invariant: a read may overlap the destination unless it is the destination view itself
(element i is read before element i is written, as in `u[1:-1] += k * v`; not a read `moved`
to other indexes, as `np.roll`'s), or the two live in
memory that cannot overlap: a buffer made here (a temporary, or the buffer of a variable
that only ever holds buffers it made) and any other memory, or different parameters of a
build that promised `noalias` (arrays that overlap at run time get a build without that
promise).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import loops
from enzyme_py.frontend.ftypes import Array
from enzyme_py.frontend.values import AVal, SVal, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling


def store(c: Compiling, dest: AVal, val: Any, node: ast.AST) -> None:
    """dest[...] = val (an array broadcast to dest's shape, or a number)."""
    if isinstance(val, SVal):
        if not isinstance(val.type, type(dest.type.elem)):
            raise c.src.error(node, "a tuple cannot be stored into an array")
        src = L.scalar_lazy(c, val, dest.dims)
    elif L.is_array(val):
        src = L.as_lazy(c, val)
        if src.type.ndim > dest.type.ndim:
            raise c.src.error(node, f"cannot store a {src.type.ndim}-D array into a "
                              f"{dest.type.ndim}-D view")
        _check_fits(c, src.dims, dest.dims, node)
        src = L.broadcast_to(c, src, dest.dims)
        overlapping = [r for r in src.reads if _may_overlap(c, r, dest)]
        plan = _carry_plan(dest, overlapping) if overlapping else None
        if plan is not None:
            _carried_store(c, dest, src, plan, node)
            return
        if overlapping:
            src = L.as_lazy(c, L.copy(c, src, node))
    else:
        raise c.src.error(node, "only numbers and arrays can be stored into an array")
    L.store_elements(c, dest, src)


def _check_fits(c: Compiling, src: list, dest: list, node: ast.AST) -> None:
    """Each extent of the source equals the destination's or is 1 (aligned at the right)."""
    b = c.b
    one = ConstantInt(T.I64, 1)
    off = len(dest) - len(src)
    for k, d in enumerate(src):
        out = dest[off + k]
        if L.same_extent(d, out) or isinstance(d, ConstantInt) and d.value == 1:
            continue
        if isinstance(d, ConstantInt) and isinstance(out, ConstantInt):
            raise c.src.error(node, f"cannot store extent {d.value} into extent {out.value}")
        ok = b.binop("or", b.icmp("eq", d, out), b.icmp("eq", d, one))
        c.check(ok, node, "shape mismatch", d, out, off + k)


def _carry_plan(dest: AVal, reads: list[AVal]) -> dict[Value, tuple[AVal, int]] | None:
    """For a 1-D store whose overlapping reads are all slices of the destination's variable
    (`AVal.origin`), each read's pointer -> (the read, its shift q: read[i] is dest[i + q]);
    None when a shift is below -1 or a read is not such a slice."""
    if dest.type.ndim != 1 or dest.origin is None:
        return None
    name, _, start = dest.origin
    plan: dict[Value, tuple[AVal, int]] = {}
    for r in reads:
        if r.moved or r.origin is None or r.origin[0] != name or r.type.elem != dest.type.elem:
            return None
        q = r.origin[2] - start
        if q < -1:
            return None
        plan[r.ptr] = (r, q)
    return plan


def _carried_store(c: Compiling, dest: AVal, src: Any, plan: dict[Value, tuple[AVal, int]],
                   node: ast.AST) -> None:
    """dest[:] = src, where src reads slices of dest's variable shifted by q >= -1 (`plan`).

    Walking dest forward, a read with q >= 0 sees old values (element i + q is written after
    it is read); for q = -1 (`u[:-2]` beside `u[1:-1]`) the loop keeps each element it
    overwrites for the next iteration (the first comes from memory before the loop). The
    reads are addressed from dest's pointer, so LLVM sees the constant distances and
    vectorizes the loop. This runs where the reads have dest's extent (so their constant
    starts are their real ones) and nothing broadcasts; otherwise the right side is
    computed into a temporary first."""
    b = c.b
    n = dest.dims[0]
    ok: Value = ConstantInt(T.I1, 1)
    for r, _ in plan.values():
        ok = b.binop("and", ok, b.icmp("eq", r.dims[0], n))
        ok = b.binop("and", ok, b.icmp("eq", r.origin[1], dest.origin[1]))  # type: ignore
    form = src
    if src.fast is not None and src.assume:
        for cond in src.assume:
            ok = b.binop("and", ok, cond)
        form = src.fast
    carried, copied, done = (c.new_block("store.carried"), c.new_block("store.copied"),
                             c.new_block("store.end"))
    b.condbr(ok, carried, copied)
    b.position_at_end(carried)
    _carried_loop(c, dest, form, {p: q for p, (_, q) in plan.items()})
    b.br(done)
    b.position_at_end(copied)
    tmp = L.copy(c, src, node)
    L.store_elements(c, dest, L.as_lazy(c, tmp))
    assert tmp.base is not None
    c.heap.release(tmp.base)
    b.br(done)
    b.position_at_end(done)


def _carried_loop(c: Compiling, dest: AVal, src: Any, shifts: dict[Value, int]) -> None:
    """The loop of `_carried_store`: the reads (by pointer, with their shifts) are loaded
    from dest's pointer, the one shifted back from a register."""
    b = c.b
    etype = dest.type.elem
    n = dest.dims[0]
    slot = None
    if -1 in shifts.values():
        slot = c.alloca_at.alloca(etype.ir, name="carried")
        before = L.element_address(c, dest, [ConstantInt(T.I64, -1)])
        L.when(c, b.icmp("sgt", n, ConstantInt(T.I64, 0)),
               lambda: b.store(b.load(etype.ir, before), slot))

    def read(q: int) -> Callable[[list[Value]], Value]:
        if q == -1:
            return lambda idx: c.b.load(etype.ir, slot)
        return lambda idx: c.b.load(etype.ir, L.element_address(
            c, dest, [c.b.add(idx[0], ConstantInt(T.I64, q), flags=("nsw",))]))

    def body(idx: list[Value]) -> None:
        c.carried.update({p: read(q) for p, q in shifts.items()})
        try:
            x = convert(c.b, SVal(src.type.elem, src.element(idx)), etype).v
        finally:
            for p in shifts:
                c.carried.pop(p, None)
        at = L.element_address(c, dest, idx)
        if slot is not None:
            c.b.store(c.b.load(etype.ir, at), slot)
        c.b.store(x, at)

    loops.nest(c, [n], body)


def _may_overlap(c: Compiling, read: AVal, dest: AVal) -> bool:
    if not read.moved and (read is dest or (read.ptr is dest.ptr and
                                            read.strides == dest.strides and
                                            read.dims == dest.dims)):
        return False
    a, b = read.root, dest.root
    if a is None or b is None or a == b:
        return True
    if a[0] in ("temp", "own") or b[0] in ("temp", "own"):  # type: ignore[index]
        return False  # a buffer made here (owned by a variable, or a temporary) is apart
    both_params = a[0] == "param" and b[0] == "param"  # type: ignore[index]
    return not (both_params and c.session.noalias)


__all__ = ["Array", "store"]
