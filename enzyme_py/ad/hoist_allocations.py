"""Heap blocks made and freed on every iteration of a loop nest, made once before it.

    loop:                                   pre:  %n.fr = freeze i64 %n
      %p = call ptr @malloc(i64 %n)               %p = call ptr @malloc(i64 %n.fr)
      ... uses of %p ...              =>    loop: ... uses of %p ...
      call void @free(ptr %p)               exit: call void @free(ptr %p)

Array code allocates a temporary per statement, and a function returning an array allocates
its result; inside a time loop that is a `malloc` and a `free` per iteration, and in a
gradient a shadow allocation and a deferred free per iteration as well. Made once, the block
is one allocation in the primal and one shadow in the derivative (whose tape then keeps the
values the reverse sweep reads, as for a buffer the program itself reuses).

A block is moved out of the outermost loop of its nest (the one not inside another loop),
only when its lifetime provably ends within the iteration that made it:

- the size is defined outside that loop, or computed in it only by integer arithmetic,
  comparisons, selects and casts of values defined outside (a broadcast's extent): that
  computation is copied before the loop; the size is frozen there (the original may have
  tested it before allocating);
- every pointer derived from the block (`getelementptr`; a `phi` or `select` of such pointers
  and `null`, outside loop headers, so none is carried to the next iteration) is only loaded
  from, stored to, compared, passed to `free` or to `llvm.memset/memcpy/memmove`, and used
  inside the loop (after it, only merged by phis on the way to a `free`): it is never stored
  as a value, returned, cast to an integer or passed to another call, so nothing else can
  reach the block once its iteration ends;
- at least one `free` of it is in the loop.

Every `free` of the block is then removed and one is added at each exit of the loop (exits
are dedicated after loop-simplify, so the preheader dominates them; nothing is inside a loop
there, so LCSSA holds). A block that a loop variable carries to the next iteration (`x = f(x)`),
or that is used after the loop, is the second strategy: `carried_allocations`. An iteration
sees the previous iteration's dead contents where it saw fresh uninitialized memory before,
which is one of the contents `malloc` may return.

Afterwards a `free` that can only be given null (the frees the second strategy rewrote, when
every block they could free was moved out: `null_frees`) is removed.

Invariants: the control flow is unchanged; only calls to `malloc` are moved (not `calloc`,
whose zeroing is per allocation); a loop without a preheader is left alone.
"""

from __future__ import annotations

from enzyme_py.ad import carried_allocations
from enzyme_py.ad.block_uses import ACCESS, walk
from enzyme_py.ad.null_frees import drop_null_frees
from enzyme_py.analysis.loops import Loop, find_loops
from enzyme_py.analysis.memory import underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.clone import clone_instruction
from enzyme_py.ir.dominance import dominators
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import Argument, Constant, Value


def hoist_allocations(fn: Function) -> int:
    """Move every eligible `malloc` of `fn` out of its loop nest; returns how many moved."""
    if fn.is_declaration:
        return 0
    mallocs = [i for i in fn.instructions() if isinstance(i, I.Call) and
               not isinstance(i, I.Invoke) and i.callee_name == "malloc" and len(i.args) == 1]
    if not mallocs:
        return 0
    dom = dominators(fn)
    info = find_loops(fn, dom)
    users = _users(fn)
    headers = {lp.header for lp in info.loops}
    moved = 0
    for call in mallocs:
        block = call.parent
        assert block is not None
        inner = lp = info.loop_of.get(block)
        if lp is None:
            continue
        while lp.parent is not None:
            lp = lp.parent
        if lp.preheader is None or not _invariant(call.args[0], lp, 0):
            continue
        frees = _frees_if_private(call, lp, users, headers)
        if frees is not None:
            _move(call, lp, frees)
            moved += 1
            continue
        found = carried_allocations.plan(call, inner, users, headers)
        if found is not None:
            carried_allocations.rewrite(call, lp, _frozen_size(call, lp), found, dom)
            moved += 1
    if moved:
        drop_null_frees(fn)  # (a free left only for blocks now made before the loops)
    return moved


def _users(fn: Function) -> dict[int, list[I.Instruction]]:
    out: dict[int, list[I.Instruction]] = {}
    for inst in fn.instructions():
        for op in inst.operands:
            out.setdefault(id(op), []).append(inst)
    return out


def _outside(v: Value, lp: Loop) -> bool:
    """`v` is defined outside `lp` (a constant, an argument or an instruction elsewhere)."""
    if isinstance(v, Constant | Argument):
        return True
    return isinstance(v, I.Instruction) and v.parent is not None and \
        v.parent not in lp.blocks


_PURE_OPS = frozenset(("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "icmp",
                       "select", "zext", "sext", "trunc", "freeze"))
_DEPTH = 16  # (how deep an invariant size expression is followed)


def _invariant(v: Value, lp: Loop, depth: int) -> bool:
    """`v` is defined outside `lp` or computed inside it from such values by `_PURE_OPS` (no
    division: copying it before the loop may not trap)."""
    if _outside(v, lp):
        return True
    return isinstance(v, I.Instruction) and v.opcode in _PURE_OPS and depth < _DEPTH and \
        all(_invariant(o, lp, depth + 1) for o in v.operands)


def _copy_before(v: Value, lp: Loop, b: Builder, copies: dict[int, Value]) -> Value:
    """`v` (`_invariant` in `lp`) as a value available at `b` (before `lp`'s preheader's
    terminator): itself when it is defined outside, else a copy of its computation."""
    if _outside(v, lp):
        return v
    got = copies.get(id(v))
    if got is None:
        assert isinstance(v, I.Instruction)
        new = clone_instruction(v, {}, {})
        new.operands = [_copy_before(o, lp, b, copies) for o in v.operands]
        new.name = None  # (the original keeps its name)
        got = copies[id(v)] = b.insert(new)
    return got


def _frees_if_private(call: I.Call, lp: Loop, users: dict[int, list[I.Instruction]],
                      headers: set[Block]) -> list[I.Call] | None:
    """The `free` calls of the block `call` makes, if its lifetime ends within an iteration
    of `lp` (see the module docstring); None otherwise."""
    outside: set[int] = set()  # derived merges after the loop (used only by frees, merges)

    def judge(user: I.Instruction, v: Value, use: str, derived: set[int]) -> bool | None:
        if user.parent is None:
            return None
        if user.parent not in lp.blocks:
            # after the loop: only merges (an exit's lcssa phi) on the way to a free
            if not isinstance(user, I.Phi) or not _merges(user, derived, call):
                return None
            outside.add(id(user))
            return True
        if id(v) in outside:
            return None
        if use == ACCESS:
            return False
        if isinstance(user, I.Phi | I.Select) and (
                user.parent in headers or not _merges(user, derived, call)):
            return None  # (a header phi carries it to the next iteration)
        return True

    frees = walk(call, users, judge)
    if frees is None or not any(f.parent is not None and f.parent in lp.blocks for f in frees):
        return None
    return frees


def _merges(user: I.Phi | I.Select, derived: set[int], call: I.Call) -> bool:
    """Every pointer `user` may give points into the block `call` makes, or nowhere (null)."""
    values = user.operands if isinstance(user, I.Phi) else user.operands[1:]
    return all(id(x) in derived or underlying(x) <= {call} for x in values)


def _frozen_size(call: I.Call, lp: Loop) -> Value:
    """The size of `call`'s block computed (and frozen) at the end of `lp`'s preheader."""
    assert lp.preheader is not None and lp.preheader.terminator is not None
    b = Builder().position_before(lp.preheader.terminator)
    return b.freeze(_copy_before(call.args[0], lp, b, {}))


def _move(call: I.Call, lp: Loop, frees: list[I.Call]) -> None:
    """Make the block in `lp`'s preheader and free it at `lp`'s exits instead."""
    assert lp.preheader is not None and call.parent is not None
    size = _frozen_size(call, lp)
    call.parent.remove(call)
    terminator = lp.preheader.terminator
    assert terminator is not None
    call.operands[0] = size
    Builder().position_before(terminator).insert(call)
    free_fn = None
    for f in frees:
        free_fn = f.callee
        assert f.parent is not None
        f.parent.remove(f)
    assert free_fn is not None
    for exit_block in lp.exits:
        Builder().position_after_phis(exit_block).call(free_fn, [call])
