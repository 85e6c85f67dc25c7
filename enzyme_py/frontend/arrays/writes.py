"""Stores into views with NumPy's semantics: `y[1:] = expr`, `X[:, j] = v`, `u[1:-1] += ...`.

The right side broadcasts to the view's shape (it may not grow it: a size mismatch is a
recorded `ValueError`). When the right side reads memory the store may overwrite at another
position (`u[1:-1] = u[:-2] + u[2:]`), it is computed into a temporary first, so the result
equals NumPy's, which evaluates the right side whole before storing. A 1-D or 2-D store
whose overlapping reads are slices of its own variable with constant starts (the stencils'
`u[:-2]`, `u[2:]` beside `u[1:-1]`, and their 2-D forms) needs no temporary: the loop keeps
what it overwrites while a later read needs it (`carried`).

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
from typing import TYPE_CHECKING, Any

from enzyme_py.frontend.arrays import carried
from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.ftypes import Array
from enzyme_py.frontend.values import AVal, SVal
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt

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
        plan = carried.plan_for(dest, overlapping) if overlapping else None
        if plan is not None:
            carried.carried_store(c, dest, src, plan, node)
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
