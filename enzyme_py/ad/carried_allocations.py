"""A heap block that one loop variable carries to the next iteration: two blocks made before
the loop nest, used in turn (the second strategy of `hoist-allocations`).

    loop:                                        pre:  %a = call ptr @malloc(i64 %n.fr)
      %old = phi ptr [ %x0, %pre ], [ %p, %latch ]     %b = call ptr @malloc(i64 %n.fr)
      %p = call ptr @malloc(i64 %n)        =>    loop: %is.a = icmp eq ptr %old, %a
      ... %p computed, reading %old ...                %p = select i1 %is.a, ptr %b, ptr %a
      call void @free(ptr %old)                        call void @free(ptr <%old unless a or b>)
                                                 ret:  call void @free(ptr %a) ... @free(ptr %b)

`x = f(x)` in a time loop is this: the new array is made before the old one is freed, so two
are alive at once, and only two (each iteration frees the one before). The same code with no
carrying phi (a block used after the loop, so not freed in it) needs one block.

Conditions (besides those of `hoist_allocations`: a size computable before the nest):

- pointers derived from the block (getelementptr, phi, select) are only loaded from, stored
  to, compared, passed to `free` or `llvm.mem*`, anywhere in the function: never stored as a
  value, returned, cast or passed to another call (nothing outside the function sees them);
- at most one loop-header phi takes them: a header phi of the innermost loop around the
  `malloc`, whose value from the latch is derived from the block and not from that phi itself
  (no block lives longer than the next iteration) and whose value from before the loop is not
  derived from the block.

Every `free` of a derived pointer then skips the two blocks; they are freed before the
function returns (a phi brings null there along paths that did not reach the nest).

Invariants: the block an iteration makes differs from the one its carried variable holds
(`select` picks the other), so an iteration never writes the array it reads; the control flow
is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.ad.block_uses import ACCESS, walk
from enzyme_py.analysis.loops import Loop
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.dominance import Dominators, predecessors
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import ConstantKeyword, Value

NULL = ConstantKeyword(T.PTR, "null")


@dataclass
class Carried:
    """What `plan` found: the frees of derived pointers and the carrying phi, if any."""

    frees: list[I.Call]
    carrier: I.Phi | None


def plan(call: I.Call, inner: Loop, users: dict[int, list[I.Instruction]],
         headers: set[Block]) -> Carried | None:
    """The frees and the carrying phi of the block `call` makes in loop `inner` (its
    innermost loop), if the conditions of the module docstring hold; None otherwise."""
    carrier: list[I.Phi] = []

    def judge(user: I.Instruction, v: Value, use: str, derived: set[int]) -> bool | None:
        if use == ACCESS:
            return False
        if isinstance(user, I.Phi) and user.parent in headers:
            if carrier not in ([], [user]) or not _carries(user, v, inner):
                return None
            carrier[:] = [user]
        return True

    frees = walk(call, users, judge)
    if frees is None:
        return None
    if carrier and not _fresh_each_time(carrier[0], inner):
        return None
    return Carried(frees, carrier[0] if carrier else None)


def _carries(phi: I.Phi, v: Value, inner: Loop) -> bool:
    """`phi` is a header phi of `inner` taking `v` only from inside the loop."""
    if phi.parent is not inner.header:
        return False
    return all(block in inner.blocks for value, block in phi.incoming() if value is v)


def _fresh_each_time(phi: I.Phi, inner: Loop) -> bool:
    """From inside the loop `phi` gets pointers not derived from itself; from before the loop
    none derived from the block (see `_reaches`)."""
    for value, block in phi.incoming():
        if block in inner.blocks and _reaches(value, phi):
            return False
    return True


def _reaches(v: Value, target: I.Phi) -> bool:
    """`v` is `target` or computed from it by getelementptr, phi or select."""
    seen: set[int] = set()
    todo = [v]
    while todo:
        x = todo.pop()
        if x is target:
            return True
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, I.GetElementPtr):
            todo.append(x.pointer)
        elif isinstance(x, I.Phi):
            todo.extend(x.operands)
        elif isinstance(x, I.Select):
            todo.extend(x.operands[1:])
    return False


def rewrite(call: I.Call, outer: Loop, size: Value, found: Carried, dom: Dominators) -> None:
    """Make the block(s) before `outer` (at the end of its preheader, `size` available
    there), use them in turn, make the frees skip them, free them before each return."""
    fn = call.function
    assert fn is not None and outer.preheader is not None and call.parent is not None
    terminator = outer.preheader.terminator
    assert terminator is not None
    pre = Builder().position_before(terminator)
    malloc, name = call.callee, call.name or "buf"
    first = pre.call(malloc, [size])
    blocks = [first]
    if found.carrier is not None:
        blocks.append(pre.call(malloc, [size], name=f"{name}.b"))
    b = Builder().position_before(call)
    if found.carrier is not None:  # (frozen: a carried value from before may be undef)
        now = b.select(b.freeze(b.icmp("eq", found.carrier, first)), blocks[1], first)
    else:
        now = first
    fn.replace_all_uses(call, now)
    call.parent.remove(call)
    now.name = name  # (the block in use keeps the name of the allocation it replaces)
    if now is not first:
        first.name = f"{name}.a"
    preds = predecessors(fn)
    memos: list[dict[Block, Value]] = [{} for _ in blocks]

    def at(block: Block, k: int) -> Value:  # block k where `block` is
        return _value_at_end(block, blocks[k], outer.preheader, dom, preds, memos[k])

    for f in found.frees:
        assert f.parent is not None
        here = [at(f.parent, k) for k in range(len(blocks))]  # (phis first: they shift f)
        fb = Builder().position_before(f)
        x = f.args[0]
        mine = fb.icmp("eq", x, here[0])
        for other in here[1:]:
            mine = fb.binop("or", mine, fb.icmp("eq", x, other))
        f.operands[0] = fb.select(mine, NULL, x)
    free = found.frees[0].callee if found.frees else _free(fn)
    for ret_block in [blk for blk in fn.blocks if isinstance(blk.terminator, I.Ret)]:
        here = [at(ret_block, k) for k in range(len(blocks))]
        ret = ret_block.terminator
        assert ret is not None
        for value in here:
            Builder().position_before(ret).call(free, [value])


def _free(fn: Function) -> Value:
    module = fn.parent
    assert module is not None
    return module.declare_function("free", T.FunctionType(T.VOID, (T.PTR,)))


def _value_at_end(block: Block, v: Value, home: Block, dom: Dominators,
                  preds: dict[Block, list[Block]], memo: dict[Block, Value]) -> Value:
    """`v` (defined at the end of `home`) where `block` ends, null along paths that never
    passed `home`: phis at the joins that need them."""
    if dom.dominates(home, block):
        return v
    got = memo.get(block)
    if got is not None:
        return got
    into = preds.get(block, [])
    if not into:
        memo[block] = NULL
        return NULL
    phi = I.Phi(T.PTR)
    block.insert(0, phi)
    memo[block] = phi
    for p in into:
        value = _value_at_end(p, v, home, dom, preds, memo)
        for _ in range(p.successors().count(block)):  # one entry per edge (a switch's cases)
            phi.add_incoming(value, p)
    if all(o is NULL for o in phi.operands):
        block.remove(phi)
        assert block.parent is not None
        block.parent.replace_all_uses(phi, NULL)
        memo[block] = NULL
        return NULL
    return phi
