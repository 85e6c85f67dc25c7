"""Loop nests over array extents, emitted at a compiler's builder.

Invariant: `nest(c, dims, body)` calls `body(idx)` once, inside the innermost loop, with one
i64 index per extent (row-major: the last extent varies fastest); after it returns, the
builder is positioned after the nest. Counters live in entry-block allocas (SROA makes them
SSA), so each loop is a canonical counted loop LLVM can vectorize.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from enzyme_py.ir.values import Value

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
