"""The block function of an outlined time loop: up to `count` steps in one function.

Checkpointing (`checkpoint.py`) reverses a time loop in *blocks* of consecutive steps: the
reverse sweep runs a block forward again with a tape and reverses it at once, so a block's
tape is written and read back while it is still in the cache, and only the states at block
boundaries are kept. The block is this function:

    i64 @L.step.block(the step's parameters..., i64 %count)

runs the step `count` times, or until a step returns non-zero (the loop is over: the step
that leaves it is the last), and returns how many steps ran, negated when the last of them
ended the loop (0 when `count` <= 0). The step's body is copied into the loop, not called, so
the reverse transform sees one loop, whose tape a bound known at entry (`count`) sizes, and
keeps one tape for the whole block; the checkpoint's forward runs call the block too (one
call per block, the state in registers in between).

Invariants: the function runs exactly what that many calls of `@L.step` run, in the same
order; it is canonical for the reverse transform (the loop has a dedicated preheader, one
latch whose test is on the step counter, a dedicated exit block, and only the count of
steps leaves it, through an exit phi); the step's static allocas sit in the entry block,
made once; a pointer parameter of the step that is `noalias` is `noalias` here too.
"""

from __future__ import annotations

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_body
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.values import ConstantInt, Value


def block_function(module: Module, step: Function) -> Function:
    """`@<step>.block`: up to `count` runs of `step` in one loop (see the module docstring)."""
    ftype = step.function_type
    fn = Function(module.unique_name(f"{step.name}.block"),
                  T.FunctionType(T.I64, (*ftype.params, T.I64)),
                  [a.name for a in step.args] + ["count"])
    fn.prefix = ["internal"]
    fn.suffix = ["noinline"]  # (one copy, however many forward runs call it)
    for a, b in zip(step.args, fn.args, strict=False):
        b.attrs = [w for w in a.attrs if w == "noalias"]  # (what the step's callers promise)
    module.add_function(fn)
    count = fn.args[-1]
    entry, preheader, head = (fn.append_block(n) for n in ("entry", "block.preheader",
                                                          "block.step"))
    zero = ConstantInt(T.I64, 0)
    vmap: dict[Value, Value] = dict(zip(step.args, fn.args[:-1], strict=True))
    bmap = clone_body(step, fn, vmap, block_prefix="block.")
    latch, leave, done = (fn.append_block(n) for n in ("block.latch", "block.exit",
                                                       "block.done"))
    b = Builder(entry)
    b.condbr(b.icmp("sgt", count, zero, name="any"), preheader, done)
    Builder(preheader).br(head)
    hb = Builder(head)
    index = hb.phi(T.I64, [(zero, preheader)], name="step.index")
    hb.br(bmap[step.entry])
    ended: list[tuple[Value, Block]] = []
    for blk in bmap.values():
        for inst in list(blk.instructions):
            if isinstance(inst, I.Alloca) and blk is bmap[step.entry]:
                blk.remove(inst)  # (made once: the step's own allocas are static)
                entry.insert(0, inst)
        term = blk.terminator
        if isinstance(term, I.Ret):
            blk.remove(term)
            rb = Builder(blk)
            ran = rb.add(index, ConstantInt(T.I64, 1), name="steps.run")
            on = rb.icmp("eq", term.operands[0], ConstantInt(T.I32, 0), name="loop.goes.on")
            rb.condbr(on, latch, leave)
            ended.append((ran, blk))
    ((ran, last),) = ended  # (the step has one `ret`)
    lb = Builder(latch)
    index.add_incoming(ran, latch)  # type: ignore[attr-defined]
    lb.condbr(lb.icmp("slt", ran, count, name="more"), head, leave)
    xb = Builder(leave)
    steps = xb.phi(T.I64, [(ran, last), (ran, latch)], name="steps")
    ended = xb.phi(T.I1, [(ConstantInt(T.I1, 1), last), (ConstantInt(T.I1, 0), latch)],
                   name="loop.ended")
    steps = xb.select(ended, xb.sub(zero, steps, name="steps.ended"), steps, name="steps.out")
    xb.br(done)
    db = Builder(done)
    db.ret(db.phi(T.I64, [(zero, entry), (steps, leave)], name="steps.done"))
    return fn
