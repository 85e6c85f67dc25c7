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
from enzyme_py.ir.module import Function, Module
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
    first = bmap[step.entry]
    for inst in [i for i in first.instructions if isinstance(i, I.Alloca)]:
        first.remove(inst)  # (made once: the step's own allocas are static)
        entry.insert(0, inst)
    (last,) = [blk for blk in bmap.values() if isinstance(blk.terminator, I.Ret)]
    ret = last.terminator
    assert ret is not None
    last.remove(ret)
    rb = Builder(last)
    ran = rb.add(index, ConstantInt(T.I64, 1), name="steps.run")
    ended = rb.sub(zero, ran, name="steps.ended")  # (negated: the loop is over)
    rb.condbr(rb.icmp("eq", ret.operands[0], ConstantInt(T.I32, 0), name="loop.goes.on"),
              latch, leave)
    lb = Builder(latch)
    index.add_incoming(ran, latch)  # type: ignore[attr-defined]
    lb.condbr(lb.icmp("slt", ran, count, name="more"), head, leave)
    xb = Builder(leave)
    steps = xb.phi(T.I64, [(ended, last), (ran, latch)], name="steps")
    xb.br(done)
    db = Builder(done)
    db.ret(db.phi(T.I64, [(zero, entry), (steps, leave)], name="steps.done"))
    return fn
