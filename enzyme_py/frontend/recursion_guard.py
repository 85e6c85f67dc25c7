"""A depth guard for recursive functions: deep recursion raises `RecursionError`, never
overflows the C stack.

A function that a call cycle returns to (the session notes it in `recursive` when a call
finds it still being compiled) counts its active calls in a module global: entry adds one,
the exit block takes it back, and a call that would go past the limit records a "recursion"
failure (see `compiler.FunctionCompiler.check`) and leaves at once, so every caller leaves
too and Python raises `RecursionError` naming the function's line.

Invariants: every path through a guarded function adds and takes back exactly one (the
failing guard too, through the exit block); the counter is updated atomically, so threads
sharing the compiled code never corrupt it (their depths add up: the limit is for all
threads together); the limit keeps `limit * frame` within `STACK_BUDGET`, `frame` being the
function's stack slots plus a fixed allowance, and is never below `MIN_DEPTH`.
"""

from __future__ import annotations

import ast
from typing import Any, Protocol

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import alloc_size
from enzyme_py.ir.module import Block, GlobalVariable
from enzyme_py.ir.values import ConstantInt, Value

STACK_BUDGET = 4 << 20  # bytes: half of Linux's default 8 MiB thread stack
FRAME_ALLOWANCE = 256  # bytes a call takes beyond its slots (return address, spills, ...)
MIN_DEPTH, MAX_DEPTH = 1_000, 100_000


class Guarded(Protocol):
    """What the guard needs of the function compiler (`compiler.FunctionCompiler`)."""

    entry: Block
    exit: Block
    alloca_at: Builder
    b: Builder
    fdef: ast.FunctionDef
    session: Any  # module, error_name

    def new_block(self, name: str) -> Block: ...
    def check(self, ok: Value, node: ast.AST, what: str, index: Value, extent: Value,
              axis: int) -> None: ...


def depth_limit(c: Guarded) -> int:
    """How deep the function may recurse, from the size of its stack slots."""
    slots = 0
    for inst in c.entry.instructions:
        if isinstance(inst, I.Alloca):
            count = inst.operands[0] if inst.operands else None
            n = count.value if isinstance(count, ConstantInt) else 1
            slots += alloc_size(inst.allocated_type) * n
    return max(MIN_DEPTH, min(MAX_DEPTH, STACK_BUDGET // (slots + FRAME_ALLOWANCE)))


def _counter(c: Guarded) -> GlobalVariable:
    module = c.session.module
    name = c.session.error_name.replace("error", "depth")
    g = module.symbols.get(name)
    if isinstance(g, GlobalVariable):
        return g
    gv = GlobalVariable(name, T.I64, ConstantInt(T.I64, 0))
    gv.suffix = ["align 8"]
    return module.add_global(gv)


def guard(c: Guarded, body: Block) -> None:
    """Branch from the entry block through the guard to `body`; take the count back in the
    exit block (called before the exit block gets its terminator)."""
    counter = _counter(c)
    limit = depth_limit(c)
    check = c.new_block("depth.check")
    c.alloca_at.br(check)
    c.b.position_at_end(check)
    depth = c.b.insert(I.AtomicRMW("add", T.I64, counter, ConstantInt(T.I64, 1), "monotonic",
                                   8), "depth")
    ok = c.b.icmp("slt", depth, ConstantInt(T.I64, limit))
    c.check(ok, c.fdef, "recursion", depth, ConstantInt(T.I64, limit), 0)
    c.b.br(body)
    Builder(c.exit).insert(I.AtomicRMW("sub", T.I64, counter, ConstantInt(T.I64, 1),
                                       "monotonic", 8))
