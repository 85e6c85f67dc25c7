"""`tape-checks`: a gradient leaves where its tape cannot be allocated, never writing past it.

The tape (`tape.py`) gets its memory from three runtime helpers (`runtime.py`), each of
which says whether it got it: `enzyme_py.tape_alloc` (a frame: malloc, null on failure),
`enzyme_py.reserve` (a segment of the tape stream: -1 on failure, the bytes needed then in
its `used` slot) and `enzyme_py.tape_grow` (an array growing with a loop of unknown trip
count: 0, or the bytes it could not get). Their byte counts are computed saturated (at
2^48 bytes per array, `runtime.BYTES_CAP`, more than a process can allocate), so a trip count
whose tape would not fit in 64 bits fails like an allocation that is too large, instead of
wrapping to a small size that the forward sweep writes past.

This pass splits the block after each such call (a checked `tape_alloc` becomes the `malloc`
it stands for): where the allocation failed, the function calls
`@enzyme_py.tape_failed(bytes)`, which by default writes a message on stderr and calls abort(),
as C code does when memory runs out. `report_to_record` turns those exits of one function (the
gradient that Python calls) and of the functions it calls into a store of `[site, bytes, 0]`
to the caller's error record and a return of zeros (each caller of a function that may fail
returns after it when the record is set), so the caller raises `MemoryError` instead.

With `hugepages` (as `enzyme-py transform` asks), a checked frame of a Linux host is followed
by `enzyme_py.huge_pages`: a C program's glibc maps a large tape afresh on every call and
faults it in 4 KiB at a time. Python's gradients keep their tapes' pages
(`ENZYME_PY_KEEP_HEAP`), where huge pages only made the first call slower.

Invariants: every call of the three helpers outside the helpers themselves is followed by
its check (consecutive growths by one check of them all); the checks change no path on which
the allocations succeed; the memory the gradient allocated before a failure is not freed (the
process goes on, one leak per failure).
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.ad.runtime import huge_pages_function, tape_failed_function
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Block, Function, GlobalVariable, Module
from enzyme_py.ir.values import ConstantInt, Value, zero
from enzyme_py.passes import Param, register_pass

ALLOC, RESERVE, GROW = "enzyme_py.tape_alloc", "enzyme_py.reserve", "enzyme_py.tape_grow"
FAILED = "enzyme_py.tape_failed"


def add_tape_checks(module: Module, huge_pages: bool = False) -> Module:
    """Check every tape allocation of `module`'s functions (see the module docstring); with
    `huge_pages`, a checked frame of a Linux host asks for huge pages."""
    for fn in list(module.functions):
        if fn.is_declaration or (fn.name or "").startswith("enzyme_py."):
            continue
        runs = [run for b in fn.blocks for run in _runs(b)]
        if not runs:
            continue
        fail = Block("tape.failed", fn)  # (one exit per function: the bytes come in a phi)
        needed = I.Phi(T.I64, "tape.needed")
        fail.append(needed)
        for run in runs:
            _check(module, run, fail, needed, huge_pages)
        fn.blocks.append(fail)
        fb = Builder(fail)
        fb.call(tape_failed_function(module), [needed])
        fb.unreachable()
    return module


def _runs(block: Block) -> list[list[I.Call]]:
    """The checked calls of `block`, one list each, except that consecutive growths (every
    grown array of a loop grows at the top of its header) share one check."""
    out: list[list[I.Call]] = []
    previous: I.Instruction | None = None
    for inst in block.instructions:
        if isinstance(inst, I.Call) and inst.callee_name in (ALLOC, RESERVE, GROW):
            if inst.callee_name == GROW and out and out[-1][-1] is previous and \
                    out[-1][-1].callee_name == GROW:
                out[-1].append(inst)
            else:
                out.append([inst])
        previous = inst
    return out


def _check(module: Module, run: list[I.Call], fail: Block, needed: I.Phi,
           huge_pages: bool) -> None:
    """Branch to `fail` right after the calls `run` where one got no memory, `needed` bytes."""
    call = run[-1]
    b = Builder().position_after_def(call)
    after, _ = b.split_block(f"{call.parent.name}.tape.ok" if call.parent else "tape.ok")
    args = list(call.args)
    if call.callee_name == ALLOC:
        got_none = b.icmp("eq", call, zero(T.PTR))
        failed = b.binop("and", got_none, b.icmp("ne", args[0], ConstantInt(T.I64, 0)))
        bytes_: Value = args[0]
        # checked now: a plain malloc again (the allocation keeps its name, `%tape`, for
        # `profile`'s heap report), a large one in huge pages where the host has them
        call.operands[-1] = module.declare_function("malloc", T.FunctionType(T.PTR, (T.I64,)))
        huge = huge_pages_function(module) if huge_pages else None
        if huge is not None:
            Builder().position_before(after.instructions[after.first_insertion_index()]).call(
                huge, [call, bytes_])
    elif call.callee_name == RESERVE:
        failed = b.icmp("eq", call, ConstantInt(T.I64, -1))
        bytes_ = b.load(T.I64, args[2], 8)  # (the stream's `used`: what it needed)
    else:  # growths: 0, or the bytes one could not get (the largest is reported)
        any_: Value = run[0]
        for other in run[1:]:
            any_ = b.binop("or", any_, other)
        failed = b.icmp("ne", any_, ConstantInt(T.I64, 0))
        if len(run) > 1:  # (the largest is picked off the hot path)
            which = Block("tape.grow.failed", after.parent)
            after.parent.blocks.insert(after.parent.blocks.index(after), which)
            wb = Builder(which)
            bytes_ = run[0]
            for other in run[1:]:
                bytes_ = wb.select(wb.icmp("ugt", other, bytes_), other, bytes_)
            wb.br(fail)
            needed.add_incoming(bytes_, which)
            b.condbr(failed, which, after).metadata.append(("prof", _unlikely(module)))
            return
        bytes_ = run[0]
    branch = b.condbr(failed, fail, after)
    branch.metadata.append(("prof", _unlikely(module)))
    assert b.block is not None
    needed.add_incoming(bytes_, b.block)


def _unlikely(module: Module) -> str:
    """The `!N` of branch weights that make a branch's first way rare."""
    line = '!{!"branch_weights", i32 1, i32 1048575}'
    for text in module.metadata:
        name, _, body = text.partition("=")
        if body.strip() == line:
            return name.strip()
    k = module.fresh_metadata_number()
    module.metadata.append(f"!{k} = {line}")
    return f"!{k}"


def report_to_record(module: Module, function: str, record: str, site: int) -> None:
    """A failed tape allocation in `function`, or in a function it calls (directly or not:
    a checkpointed loop's block derivatives, a callee's split gradient), stores
    `[site, bytes, 0]` to the global error record `record` (made if the module has none) and
    returns zeros, where the exits `add_tape_checks` made call `enzyme_py.tape_failed`
    (abort). After each call of a function that may fail so, its caller tests the record's
    first word and returns zeros too when it is set, up to `function`, whose caller raises
    `MemoryError`: no call after a failure runs on the failed callee's zero results (a null
    tape), and the process is never ended."""
    fn = module.get_function(function)
    words = T.ArrayType(3, T.I64)
    g = module.symbols.get(record)
    reached, calls_to = _reached(fn)
    exits = {f: _fail_exits(f) for f in reached}
    may_fail = {f for f in reached if exits[f]}
    if not may_fail:
        return
    if not isinstance(g, GlobalVariable):
        g = GlobalVariable(record, words, zero(words))  # type: ignore[arg-type]
        g.suffix = ["align 8"]
        module.add_global(g)
    for f in may_fail:
        for call in exits[f]:
            block = call.parent
            assert block is not None and isinstance(block.terminator, I.Unreachable)
            needed = call.args[0]
            block.remove(block.terminator)
            block.remove(call)
            b = Builder(block)
            for k, value in enumerate((ConstantInt(T.I64, site), needed, ConstantInt(T.I64, 0))):
                at = b.getelementptr(words, g, [ConstantInt(T.I64, 0), ConstantInt(T.I64, k)])
                b.store(value, at, 8)
            _return_zeros(b, f)
    leaves: dict[int, Block] = {}  # caller -> its one exit after a callee's failure
    todo = list(may_fail)
    while todo:  # (the callers of a function that may fail may fail: they pass it on)
        for call in calls_to.get(id(todo.pop()), []):
            block = call.parent
            assert block is not None and block.parent is not None
            caller = block.parent
            leave = leaves.get(id(caller))
            if leave is None:
                leave = leaves[id(caller)] = Block("tape.failed.below", caller)
                caller.blocks.append(leave)
                _return_zeros(Builder(leave), caller)
            b = Builder().position_after_def(call)
            after, _ = b.split_block(f"{block.name}.callee.ok")
            first = b.load(T.I64, g, 8)
            b.condbr(b.icmp("ne", first, ConstantInt(T.I64, 0)), leave, after
                     ).metadata.append(("prof", _unlikely(module)))
            if caller not in may_fail:
                may_fail.add(caller)
                todo.append(caller)


def _fail_exits(fn: Function) -> list[I.Call]:
    return [i for b in fn.blocks for i in b.instructions
            if isinstance(i, I.Call) and i.callee_name == FAILED]


def _reached(fn: Function) -> tuple[list[Function], dict[int, list[I.Call]]]:
    """`fn` and the defined functions it calls directly, transitively (not the runtime's);
    and the calls of each of them (by the callee's id) in those functions."""
    seen: dict[int, Function] = {}
    calls_to: dict[int, list[I.Call]] = {}
    todo = [fn]
    while todo:
        f = todo.pop()
        if id(f) in seen:
            continue
        seen[id(f)] = f
        for call in (i for b in f.blocks for i in b.instructions if isinstance(i, I.Call)):
            callee = call.callee
            if isinstance(callee, Function) and not callee.is_declaration and \
                    not (callee.name or "").startswith("enzyme_py."):
                calls_to.setdefault(id(callee), []).append(call)
                todo.append(callee)
    return list(seen.values()), calls_to


def _return_zeros(b: Builder, fn: Function) -> None:
    rt = fn.return_type
    b.ret(None if rt == T.VOID else zero(rt))


@dataclass
class TapeChecks:
    huge_pages: bool = False

    name = "tape-checks"

    def run(self, module: Module) -> Module:
        return add_tape_checks(module, self.huge_pages)


register_pass("tape-checks", "leave a gradient where its tape cannot be allocated (after "
              "reverse or lower-enzyme)",
              [Param("hugepages", "large frames ask Linux for huge pages (for programs "
                                  "whose malloc maps large blocks afresh on every call)",
                     bool, False)])(lambda hugepages=False: TapeChecks(bool(hugepages)))
