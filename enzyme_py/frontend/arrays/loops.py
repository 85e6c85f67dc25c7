"""Loop nests over array extents, emitted at a compiler's builder.

Invariant: `nest(c, dims, body)` calls `body(idx)` once, inside the innermost loop, with one
i64 index per extent (row-major: the last extent varies fastest); after it returns, the
builder is positioned after the nest. `joined_nest` runs joined axes as one loop (an inner
extent of 2 or 10 vectorizes poorly; their product does), so its body receives flat indexes
(0 on each joined axis, the flat index on the axis after it). Counters live in entry-block
allocas (SROA makes them SSA), so each loop is a canonical counted loop LLVM can vectorize.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from enzyme_py.frontend.values import mul_i64
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value

if TYPE_CHECKING:
    from enzyme_py.frontend.context import Compiling


def nest(c: Compiling, dims: list[Value], body: Callable[[list[Value]], None]) -> None:
    """`for i0 in range(d0): for i1 in range(d1): ... body([i0, i1, ...])`."""

    def level(k: int, idx: list[Value]) -> None:
        if k == len(dims):
            body(idx)
            return
        c.counted_loop(dims[k], lambda i: level(k + 1, [*idx, i]))

    level(0, [])


def joined_nest(c: Compiling, dims: list[Value], joins: frozenset[int],
                body: Callable[[list[Value]], None]) -> None:
    """`nest` with each axis k in `joins` run together with axis k + 1 as one loop of
    d_k * d_k+1 trips: `body` gets index 0 on axis k and the flat index on axis k + 1 (the
    caller's promise: everything `body` reads and writes is addressed by that flat index;
    see `Lazy.joins`). While a store redirects reads of a view (`c.carried`), whose
    redirection takes its own indexes, no axes join."""
    if c.carried:
        joins = frozenset()
    groups: list[list[int]] = []
    for k in range(len(dims)):
        if groups and k - 1 in joins:
            groups[-1].append(k)
        else:
            groups.append([k])
    if len(groups) == len(dims):
        nest(c, dims, body)
        return
    zero = ConstantInt(T.I64, 0)
    extents = []
    for group in groups:
        extent = dims[group[0]]
        for k in group[1:]:
            extent = mul_i64(c.b, extent, dims[k])
        extents.append(extent)

    def spread(flat: list[Value]) -> None:
        idx: list[Value] = []
        for group, i in zip(groups, flat, strict=True):
            idx += [zero] * (len(group) - 1) + [i]
        body(idx)

    nest(c, extents, spread)
