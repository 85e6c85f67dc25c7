"""Split a finished gradient into an augmented forward function and a reverse function.

A callee that is called rather than inlined (recursion, mostly) is differentiated like any
function, into one gradient whose forward sweep runs first and whose reverse sweep follows
(`rev.*` blocks). Here that gradient is cut where the forward sweep ends:

- `@augmented_g(args and shadows..., ptr %frees, ptr %tape.out[, ptr %shadow.out])` is the
  forward sweep. It returns `g`'s result, writes its tape to `*%tape.out` (and, when `g`
  returns a pointer whose memory the caller differentiates through, that memory's shadow to
  `*%shadow.out`). Frees it cannot do yet go on the caller's list `%frees`.
- `@diffe_g(args and shadows..., [seed,] ptr %tape)` is the reverse sweep; it returns the
  adjoints of the `out` arguments, as a gradient does, and frees the tape.

The tape is one `malloc` per call. It holds every forward value the reverse sweep uses, and
the stack slots the reverse sweep still reads or writes (those become heap memory inside
the tape, so pointers to them stay valid after `@augmented_g` returns). Slots only the
reverse sweep touches (adjoints, counters) move to `@diffe_g`'s own frame.

Invariants: both functions verify; no value of one function is used by the other; the tape
is freed exactly once, by the reverse function.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.ad.derived import SplitPair
from enzyme_py.ad.reverse_state import ReverseState
from enzyme_py.ad.shadow import alloca_bytes
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.memory import underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import abi_align, alloc_size
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import Argument, Constant, ConstantInt, Value, zero
from enzyme_py.ir.verifier import verify_function

TAPE_ALIGN = 16  # what malloc guarantees; every tape field is placed at most this aligned


@dataclass
class _Layout:
    size: int = 0

    def field(self, t: T.Type) -> int:
        align = min(max(abi_align(t), 1), TAPE_ALIGN)
        off = (self.size + align - 1) // align * align
        self.size = off + max(alloc_size(t), 1)
        return off


def split_gradient(st: ReverseState, pair: SplitPair) -> None:
    """Move the blocks of `st.ctx.work` (a finished gradient in split mode) into `pair`."""
    work = st.ctx.work
    sweep, args, libc = st.sweep, st.args, st.ctx.libc
    assert sweep is not None
    rev_start = sweep.rev[st.cf.exit_block]
    reverse_blocks = set(work.blocks[sweep.forward_block_count:])  # made by the reverse sweep
    forward_blocks = work.blocks[:sweep.forward_block_count]
    fwd = set(forward_blocks)

    def in_forward(v: Value) -> bool:
        return isinstance(v, I.Instruction) and v.parent in fwd

    rev_insts = [i for b in work.blocks if b in reverse_blocks for i in b.instructions]
    crossing: list[I.Instruction] = []
    seen: set[Value] = set()
    for inst in rev_insts:
        for op in inst.operands:
            if in_forward(op) and op not in seen:
                seen.add(op)
                crossing.append(op)  # type: ignore[arg-type]

    forward_users = _users([i for b in forward_blocks for i in b.instructions])
    moved = [a for a in crossing if isinstance(a, I.Alloca) and
             _reverse_only(a, forward_users.get(a, []), st.ctx.alloca_block)]
    heap = _heap_slots(st, crossing, moved, forward_blocks, fwd)
    dynamic = _heap_dynamic_slots(st, work, crossing, heap)
    seen.update(dynamic)

    layout = _Layout()
    heap_offsets = {a: layout.field(a.allocated_type) for a in heap}
    stored = [v for v in crossing if v not in heap_offsets and v not in moved]
    stored_offsets = {v: layout.field(v.type) for v in stored}

    # --- the augmented function: allocate the tape, keep values on it, return -------------
    for a in heap_offsets:
        assert a.parent is not None
        a.parent.remove(a)
    _drop_lifetime_markers(work, set(map(id, heap_offsets)))
    at = Builder(st.ctx.alloca_block)
    at.index = 0
    tape: Value | None = None
    slot_of: dict[int, Value] = {}
    if layout.size:
        tape = libc.call_malloc(at, ConstantInt(T.I64, layout.size), name="tape")
    for a, off in heap_offsets.items():
        assert tape is not None
        gep = at.getelementptr(T.I8, tape, [ConstantInt(T.I64, off)], name=a.name)
        slot_of[id(a)] = gep
    if slot_of:
        for blk in forward_blocks:
            for inst in blk.instructions:
                inst.operands = [slot_of.get(id(o), o) for o in inst.operands]
    end = st.cf.exit_block.terminator
    assert end is not None
    st.cf.exit_block.remove(end)
    b = Builder().position_at_end(st.cf.exit_block)
    for v, off in stored_offsets.items():
        assert tape is not None
        b.store(v, _at(b, tape, off), min(abi_align(v.type), TAPE_ALIGN))
    assert args.tape_out is not None
    b.store(tape if tape is not None else zero(T.PTR), args.tape_out, 8)
    if pair.shadow_return:
        assert st.ret_shadow is not None and args.shadow_out is not None
        b.store(st.ret_shadow, args.shadow_out, 8)
    if sweep.ret_value is not None:
        b.ret(sweep.ret_value)
    else:
        b.ret()

    # --- the reverse function: read the tape back, run the reverse sweep, free it ---------
    rev_fn = pair.reverse
    rev_args = [Argument(a.type, a.name) for a in args.aug_params()]
    arg_map: dict[Value, Value] = dict(zip(args.aug_params(), rev_args, strict=True))
    tape_arg = Argument(T.PTR, "tape")
    entry = Block("entry", rev_fn)
    eb = Builder().position_at_end(entry)
    value_map: dict[Value, Value] = dict(arg_map)
    for a in moved:
        assert a.parent is not None
        inits = [u for u in forward_users.get(a, []) if isinstance(u, I.Store)]
        a.parent.remove(a)
        eb.insert(a)
        for s in inits:
            assert s.parent is not None
            s.parent.remove(s)
            eb.insert(s)
    for a, off in heap_offsets.items():
        if a in seen:
            value_map[a] = _at(eb, tape_arg, off, a.name)
    for v, off in stored_offsets.items():
        value_map[v] = eb.load(v.type, _at(eb, tape_arg, off), min(abi_align(v.type),
                                                                    TAPE_ALIGN), name=v.name)
    eb.br(rev_start)
    if dynamic:  # the slots of variable size, last
        ret = sweep.rev_return.terminator
        assert ret is not None
        for m in dynamic:
            libc.call_free(Builder().position_before(ret), value_map[m])
    by_id = {id(k): v for k, v in value_map.items()}
    for inst in rev_insts:
        inst.operands = [by_id.get(id(o), o) for o in inst.operands]
        if isinstance(inst, I.Phi):
            inst.incoming_blocks = [entry if blk in fwd else blk
                                    for blk in inst.incoming_blocks]
    if tape is not None:
        ret = sweep.rev_return.terminator
        assert ret is not None
        libc.call_free(Builder().position_before(ret), tape_arg)

    params = [*rev_args]
    if args.seed is not None:
        params.append(args.seed)
    params.append(tape_arg)
    _install(pair.augmented, forward_blocks, args.aug_params() + _augmented_extra(st, pair),
             work)
    _install(rev_fn, [entry] + [b for b in work.blocks if b in reverse_blocks], params, work)
    for fn in (pair.augmented, rev_fn):
        problems = verify_function(fn, raise_error=False)
        if problems:
            raise DifferentiationError(
                f"internal error: @{fn.name}, split from the gradient of "
                f"@{st.ctx.primal.name}, is malformed (a bug in enzyme_py):\n"
                + "\n".join(problems[:5]))


def _augmented_extra(st: ReverseState, pair: SplitPair) -> list[Argument]:
    """The augmented function's own parameters, after the arguments and their shadows."""
    args = st.args
    extra = [args.frees, args.tape_out] + ([args.shadow_out] if pair.shadow_return else [])
    assert all(a is not None for a in extra)
    return extra  # type: ignore[return-value]


def _install(fn: Function, blocks: list[Block], params: list[Argument], work: Function) -> None:
    for a in params:
        a.attrs = []
    fn.set_type(fn.function_type, params)
    fn.blocks = blocks
    for blk in blocks:
        blk.parent = fn
    fn.personality = work.personality
    fn.prefix = ["internal"]
    fn.suffix = []


def _users(insts: list[I.Instruction]) -> dict[Value, list[I.Instruction]]:
    users: dict[Value, list[I.Instruction]] = {}
    for inst in insts:
        for op in inst.operands:
            if isinstance(op, I.Instruction):
                users.setdefault(op, []).append(inst)
    return users


def _reverse_only(a: I.Alloca, forward_uses: list[I.Instruction], alloca_block: Block) -> bool:
    """A slot the forward sweep only initializes with a constant (adjoints, counters)."""
    return a.parent is alloca_block and not a.operands and all(
        isinstance(u, I.Store) and u.parent is alloca_block and u.pointer is a and
        isinstance(u.value, Constant) for u in forward_uses)


def _heap_slots(st: ReverseState, crossing: list[I.Instruction], moved: list[I.Alloca],
                forward_blocks: list[Block], fwd: set[Block]) -> list[I.Alloca]:
    """Stack slots of the forward sweep that must outlive it: those the reverse sweep uses,
    those behind pointers it uses, and those whose address is stored in memory."""
    out: dict[I.Alloca, None] = {}

    def add(o: object) -> None:
        if isinstance(o, I.Alloca) and o.parent in fwd and o not in moved:
            out[o] = None

    for v in crossing:
        add(v)
        if v.type.is_pointer:
            for o in underlying(v):
                add(o)
    for blk in forward_blocks:
        for inst in blk.instructions:
            if isinstance(inst, I.Store) and inst.value.type.is_pointer:
                for o in underlying(inst.value):
                    add(o)
    return list(out)


def _heap_dynamic_slots(st: ReverseState, work: Function, crossing: list[I.Instruction],
                        heap: list[I.Alloca]) -> list[I.Instruction]:
    """Stack slots of variable size (C's VLAs), or aligned beyond what the tape promises,
    that must outlive the forward sweep become blocks of their own (`malloc`, or
    `aligned_alloc`), kept on the tape and freed by the reverse function. Returns them."""
    mallocs: list[I.Instruction] = []
    for a in [a for a in heap if a.operands or (a.align or 0) > TAPE_ALIGN]:
        if st.cf.loops.loop_of.get(a.parent) is not None:  # type: ignore[arg-type]
            raise st.ctx.error(a, "the reverse sweep of this function, called rather than "
                                  "inlined, needs a stack allocation of variable size made in "
                                  "a loop; that is not supported yet")
        b = Builder().position_before(a)
        nbytes = alloca_bytes(b, a)
        if (a.align or 0) > TAPE_ALIGN:
            align = ConstantInt(T.I64, a.align or 0)
            rounded = b.binop("and", b.add(nbytes, ConstantInt(T.I64, align.value - 1)),
                              ConstantInt(T.I64, -align.value))
            m = st.ctx.libc.call_aligned_alloc(b, align, rounded, name=a.name)
        else:
            m = st.ctx.libc.call_malloc(b, nbytes, name=a.name)
        work.replace_all_uses(a, m)
        assert a.parent is not None
        a.parent.remove(a)
        heap.remove(a)
        if a in crossing:
            crossing[crossing.index(a)] = m
        else:
            crossing.append(m)  # (only pointers derived from it cross): free it in reverse
        mallocs.append(m)
    return mallocs


def _at(b: Builder, base: Value, off: int, name: str | None = None) -> Value:
    if off == 0:
        return base
    return b.getelementptr(T.I8, base, [ConstantInt(T.I64, off)], name=name)


def _drop_lifetime_markers(fn: Function, moved: set[int]) -> None:
    """Remove `llvm.lifetime.start/end` of the allocas (by id) that became tape fields: the
    markers apply to allocas only, and the tape lives until the reverse function frees it."""
    for blk in fn.blocks:
        for inst in list(blk.instructions):
            if isinstance(inst, I.Call) and (inst.callee_name or "").startswith(
                    "llvm.lifetime.") and any(id(a) in moved for a in inst.args):
                blk.remove(inst)
