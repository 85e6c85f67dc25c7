"""Natural loops, their basic induction variables, and trip counts computable at loop entry.

Invariants: `LoopInfo.loops` lists every natural loop outermost first (parents before
children); a loop's `blocks` include its subloops' blocks; `loop_of[b]` is the innermost loop
holding `b`. A function with a retreating edge that is not a back edge (irreducible control
flow) raises `AnalysisError` naming the blocks. `TripCount` describes, from an exit test that runs
on every iteration, the number of header executions (exact when that is the only exit, an upper
bound otherwise) as an expression of values available at the end of the preheader.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzyme_py.analysis.errors import AnalysisError
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.dominance import Dominators, dominators, predecessors
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.printer import Slots
from enzyme_py.ir.values import ConstantInt, Value


@dataclass(eq=False)
class Loop:
    header: Block
    blocks: set[Block]
    latches: list[Block]
    parent: Loop | None = None
    children: list[Loop] = field(default_factory=list)
    preheader: Block | None = None
    exits: list[Block] = field(default_factory=list)  # blocks outside, entered from inside
    exiting: list[Block] = field(default_factory=list)  # blocks inside with an exit edge

    @property
    def depth(self) -> int:
        d, p = 1, self.parent
        while p is not None:
            d, p = d + 1, p.parent
        return d

    @property
    def latch(self) -> Block | None:
        return self.latches[0] if len(self.latches) == 1 else None

    @property
    def is_simplified(self) -> bool:
        """LLVM's loop-simplify form: preheader, one latch, exits entered only from inside."""
        return self.preheader is not None and self.latch is not None

    def contains(self, block: Block) -> bool:
        return block in self.blocks

    def nest(self) -> list[Loop]:
        """This loop and its ancestors, outermost first."""
        out: list[Loop] = []
        lp: Loop | None = self
        while lp is not None:
            out.append(lp)
            lp = lp.parent
        return out[::-1]


@dataclass(frozen=True)
class InductionVariable:
    """`phi = [start, preheader], [phi + step, latch]` with a constant integer step."""

    phi: I.Phi
    start: Value
    step: int
    next: I.Instruction


@dataclass(frozen=True)
class TripCount:
    """Header executions = 1 + number of leading true tests of `value_k <pred> bound`, where
    `value_k = first + k * step` is the tested IV (or IV+step) at its k-th test."""

    iv: InductionVariable
    tested_next: bool  # the test reads `iv.next` rather than `iv`
    predicate: str  # normalized to continue-while-true: slt sle ult ule sgt sge ugt uge ne
    bound: Value
    # the block holding the test: leaving the loop there (the test failed) means the header
    # ran exactly `emit_trip_count` times
    exiting: Block | None = None
    # (`ne` only) the test reads `iv + offset` (the unroller's `iv - 3 != 0`): the IV itself
    # is compared with `bound - offset`
    offset: int = 0


@dataclass(frozen=True)
class LoopInfo:
    function: Function
    loops: tuple[Loop, ...]
    loop_of: dict[Block, Loop]

    def __str__(self) -> str:
        slots = Slots(self.function)
        lines = [f"loops of @{self.function.name}:"]
        for lp in self.loops:
            names = sorted(slots.local(b) for b in lp.blocks)
            pre = slots.local(lp.preheader) if lp.preheader else "none"
            lines.append(f"{'  ' * lp.depth}loop at {slots.local(lp.header)} depth {lp.depth}: "
                         f"blocks {', '.join(names)}; preheader {pre}; "
                         f"exits {', '.join(slots.local(b) for b in lp.exits) or 'none'}")
        return "\n".join(lines)


def find_loops(fn: Function, dom: Dominators | None = None) -> LoopInfo:
    """All natural loops of `fn` (raises `AnalysisError` on irreducible control flow)."""
    dom = dom or dominators(fn)
    preds = predecessors(fn)
    by_header: dict[Block, Loop] = {}
    for b in dom.rpo:
        for s in b.successors():
            if dom.dominates(s, b):  # back edge b -> s
                lp = by_header.get(s)
                if lp is None:
                    lp = by_header[s] = Loop(s, {s}, [])
                lp.latches.append(b)
                _grow(lp, b, preds)
    _check_reducible(fn, dom, by_header)
    loops = sorted(by_header.values(), key=lambda lp: -len(lp.blocks))
    loop_of: dict[Block, Loop] = {}
    for lp in loops:  # larger (outer) loops first, so inner ones overwrite
        for b in lp.blocks:
            loop_of[b] = lp
    for lp in loops:
        parent = None
        for cand in loops:
            if cand is not lp and lp.header in cand.blocks and lp.blocks <= cand.blocks:
                if parent is None or len(cand.blocks) < len(parent.blocks):
                    parent = cand
        lp.parent = parent
        if parent is not None:
            parent.children.append(lp)
    for lp in loops:
        outside = [p for p in preds[lp.header] if p not in lp.blocks]
        if len(outside) == 1 and outside[0].successors() == [lp.header]:
            lp.preheader = outside[0]
        seen: dict[Block, None] = {}
        for b in sorted(lp.blocks, key=lambda x: dom.order.get(x, 0)):
            for s in b.successors():
                if s not in lp.blocks:
                    seen.setdefault(s)
                    if b not in lp.exiting:
                        lp.exiting.append(b)
        lp.exits = list(seen)
    ordered = sorted(loops, key=lambda lp: (lp.depth, dom.order.get(lp.header, 0)))
    return LoopInfo(fn, tuple(ordered), loop_of)


def _grow(lp: Loop, latch: Block, preds: dict[Block, list[Block]]) -> None:
    stack = [latch]
    while stack:
        b = stack.pop()
        if b in lp.blocks:
            continue
        lp.blocks.add(b)
        stack.extend(preds[b])


def _check_reducible(fn: Function, dom: Dominators, loops: dict[Block, Loop]) -> None:
    """Every edge to an earlier block in DFS order must be a back edge to a loop header."""
    on_stack: set[Block] = set()
    done: set[Block] = set()
    stack = [(fn.entry, iter(fn.entry.successors()))]
    on_stack.add(fn.entry)
    while stack:
        b, it = stack[-1]
        for s in it:
            if s in on_stack:
                if not dom.dominates(s, b):
                    slots = Slots(fn)
                    raise AnalysisError(
                        f"irreducible control flow in @{fn.name}: the cycle through "
                        f"{slots.local(s)} is entered at more than one block (from "
                        f"{slots.local(b)}); it is not supported")
            elif s not in done:
                on_stack.add(s)
                stack.append((s, iter(s.successors())))
                break
        else:
            stack.pop()
            on_stack.discard(b)
            done.add(b)


def induction_variables(lp: Loop) -> list[InductionVariable]:
    """Basic integer IVs of a simplified loop: header phis stepped by a constant each trip."""
    if not lp.is_simplified:
        return []
    out = []
    for phi in lp.header.phis():
        if not phi.type.is_int or len(phi.operands) != 2:
            continue
        start = phi.value_for(lp.preheader)  # type: ignore[arg-type]
        nxt = phi.value_for(lp.latch)  # type: ignore[arg-type]
        if not (isinstance(nxt, I.BinaryOp) and nxt.opcode in ("add", "sub")):
            continue
        a, b = nxt.operands
        if a is phi and isinstance(b, ConstantInt):
            step = b.value if nxt.opcode == "add" else -b.value
        elif b is phi and isinstance(a, ConstantInt) and nxt.opcode == "add":
            step = a.value
        else:
            continue
        if step != 0:
            out.append(InductionVariable(phi, start, step, nxt))
    return out


_SWAP = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle", "ult": "ugt", "ule": "uge",
         "ugt": "ult", "uge": "ule", "eq": "eq", "ne": "ne"}
_NEGATE = {"slt": "sge", "sle": "sgt", "sgt": "sle", "sge": "slt", "ult": "uge", "ule": "ugt",
           "ugt": "ule", "uge": "ult", "eq": "ne", "ne": "eq"}


def trip_count(lp: Loop, dom: Dominators) -> TripCount | None:
    """A bound on the header executions of `lp`, computable at loop entry.

    It comes from an exit test on an induction variable in a block that runs on every
    iteration (it dominates the latch). Other exits (`break`, error paths) can only end the loop
    earlier, so the count is exact when that test is the only exit and an upper bound otherwise
    (enough to size the tape; the reverse sweep uses the real count).
    """
    if not lp.is_simplified:
        return None
    found = [tc for x in lp.exiting if dom.dominates(x, lp.latch)  # type: ignore[arg-type]
             for tc in [_exit_test(lp, x)] if tc is not None]
    # An `iv != bound` test bounds the count only where the IV reaches `bound`: one that
    # another exit ends first (`for i in range(k, n): ... if i == 2: return`, k > 2) would
    # count up to the IV's wrap (a tape size that overflows). A comparison (`i < n`) bounds
    # the count whatever the IV's start, so it is taken where a loop has one.
    ordered = [tc for tc in found if tc.predicate != "ne"] + \
        [tc for tc in found if tc.predicate == "ne"]
    return ordered[0] if ordered else None


def _exit_test(lp: Loop, x: Block) -> TripCount | None:
    br = x.terminator
    if not isinstance(br, I.Br) or not br.is_conditional:
        return None
    cond = br.condition
    if not isinstance(cond, I.Compare) or cond.opcode != "icmp":
        return None
    stays_if_true = br.targets[0] in lp.blocks
    for iv in induction_variables(lp):
        a, b = cond.operands
        pred = cond.predicate
        offset = 0
        if a is iv.phi or a is iv.next:
            tested, bound = a, b
        elif b is iv.phi or b is iv.next:
            tested, bound, pred = b, a, _SWAP[pred]
        elif _offset_from(a, iv) is not None and pred in ("eq", "ne"):
            tested, bound, offset = iv.phi, b, _offset_from(a, iv) or 0
        elif _offset_from(b, iv) is not None and pred in ("eq", "ne"):
            tested, bound, offset = iv.phi, a, _offset_from(b, iv) or 0
        else:
            continue
        if not _invariant(bound, lp):
            continue
        if not stays_if_true:
            pred = _NEGATE[pred]
        if pred == "eq":
            continue
        if pred == "ne" and abs(iv.step) != 1 and not _is_exact_ne(iv, bound, tested is iv.next):
            continue
        if offset and pred != "ne":
            continue
        increasing = iv.step > 0
        if pred in ("slt", "sle", "ult", "ule") and not increasing:
            continue
        if pred in ("sgt", "sge", "ugt", "uge") and increasing:
            continue
        return TripCount(iv, tested is iv.next, pred, bound, x, offset)
    return None


def _offset_from(v: Value, iv: InductionVariable) -> int | None:
    """`c` when `v` is `iv + c` computed without wrapping (`nsw`/`nuw`), a constant `c`."""
    if isinstance(v, I.BinaryOp) and v.opcode == "add" and v.operands[0] is iv.phi and \
            isinstance(v.operands[1], ConstantInt) and ("nsw" in v.flags or "nuw" in v.flags):
        return v.operands[1].value
    return None


def trip_count_invariant_in(tc: TripCount, lp: Loop) -> bool:
    """`emit_trip_count(tc)` can be built at the end of `lp`'s preheader: every value it reads
    is a constant, an argument, or an instruction outside `lp` (which then dominates that
    preheader, since the counted loop, inside `lp`, uses it)."""
    return _invariant(tc.iv.start, lp) and _invariant(tc.bound, lp)


def _is_exact_ne(iv: InductionVariable, bound: Value, tested_next: bool) -> bool:
    """An `iv != bound` exit with |step| > 1 is exact only if the IV hits `bound`: when the
    increment cannot wrap (`nuw`/`nsw`, as the vectorizer emits), or when the loop starts at a
    multiple of a power-of-two step and the bound is rounded down to one (`and n, -step`, as
    the unroller emits)."""
    if "nuw" in iv.next.flags or "nsw" in iv.next.flags:
        return True
    step = abs(iv.step)
    if step & (step - 1) or not isinstance(iv.start, ConstantInt) or iv.start.value % step:
        return False
    if not (isinstance(bound, I.BinaryOp) and bound.opcode == "and"):
        return False
    mask = bound.operands[1]
    return isinstance(mask, ConstantInt) and (mask.value & (step - 1)) == 0


def _invariant(v: Value, lp: Loop) -> bool:
    if isinstance(v, I.Instruction):
        return v.parent is not None and v.parent not in lp.blocks
    return True


def emit_trip_count(b: Builder, tc: TripCount) -> Value:
    """Emit i64 IR computing the header-execution count (builder at the preheader's end)."""
    iv = tc.iv
    ty = iv.phi.type
    signed = tc.predicate[0] == "s"
    bits = ty.bits if isinstance(ty, T.IntType) else 64
    zero, one = ConstantInt(T.I64, 0), ConstantInt(T.I64, 1)
    step = iv.step
    pred = tc.predicate
    if pred == "ne":
        # The IV reaches `bound` exactly: the distance is modular in the IV's own width.
        first_n = iv.start
        if tc.tested_next:
            first_n = b.add(first_n, ConstantInt(ty, step), name="tc.first")
        bound_n = tc.bound if not tc.offset else b.sub(tc.bound, ConstantInt(ty, tc.offset))
        dist_n = b.sub(bound_n, first_n) if step > 0 else b.sub(first_n, bound_n)
        dist = dist_n if ty == T.I64 else b.zext(dist_n, T.I64)
        trues = dist if abs(step) == 1 else b.binop("udiv", dist, ConstantInt(T.I64, abs(step)))
        flags = iv.next.flags
        if "nuw" in flags or "nsw" in flags or ty == T.I64:
            # An IV that does not wrap reaches `bound` only from the side it starts on: from
            # the other side the loop does not run, and the modular distance would be no
            # count at all ((0 - 4) / 4 + 1 = 2^62 for a skipped unrolled or vector loop),
            # which tape sizes must not see. `nuw`/`nsw` say the IV cannot wrap; a 64-bit IV
            # that wraps would take 2^64 / step iterations, a loop that never finishes.
            kind = "u" if "nuw" in flags else "s"
            lo_n, hi_n = (first_n, bound_n) if step > 0 else (bound_n, first_n)
            trues = b.select(b.icmp(kind + "ge", hi_n, lo_n), trues, zero)
        return b.add(trues, one, name="tc")

    def wide(v: Value) -> Value:
        if ty == T.I64:
            return v
        if isinstance(v, ConstantInt):  # stored signed; an unsigned test reads it unsigned
            return ConstantInt(T.I64, v.value if signed else v.value & ((1 << bits) - 1))
        return b.sext(v, T.I64) if signed else b.zext(v, T.I64)

    first = wide(iv.start)
    if tc.tested_next:
        first = b.add(first, ConstantInt(T.I64, step), name="tc.first")
    bound = wide(tc.bound)
    if step > 0:
        lo, hi = first, bound
    else:
        lo, hi = bound, first
    mag = abs(step)
    dist = b.sub(hi, lo, name="tc.dist")
    inclusive = pred in ("sle", "ule", "sge", "uge")
    cmp = ("s" if signed else "u") + ("ge" if inclusive else "gt")
    in_range = b.icmp(cmp, hi, lo)
    if inclusive:
        count = b.binop("udiv", dist, ConstantInt(T.I64, mag))
        count = b.add(count, one)
    else:
        count = b.add(dist, ConstantInt(T.I64, mag - 1))
        count = b.binop("udiv", count, ConstantInt(T.I64, mag))
    trues = b.select(in_range, count, zero)
    return b.add(trues, one, name="tc")


def describe_loops(fn: Function) -> str:
    """Loops with their induction variables and trip counts, for `-p print-loops`."""
    dom = dominators(fn)
    info = find_loops(fn, dom)
    slots = Slots(fn)
    head = str(info).split("\n")
    lines = [head[0]]
    for lp, loop_line in zip(info.loops, head[1:], strict=True):
        lines.append(loop_line)
        ind = "  " * lp.depth
        for iv in induction_variables(lp):
            lines.append(f"{ind}  induction variable {slots.local(iv.phi)}: start "
                         f"{_ref(iv.start, slots)}, step {iv.step}")
        tc = trip_count(lp, dom)
        if tc is None:
            lines.append(f"{ind}  trip count: unknown at loop entry (tape grows as it runs)")
        else:
            tested = slots.local(tc.iv.next if tc.tested_next else tc.iv.phi)
            if tc.offset:
                tested = f"({tested} + {tc.offset})"
            lines.append(f"{ind}  trip count: 1 + leading true tests of {tested} "
                         f"{tc.predicate} {_ref(tc.bound, slots)}")
    return "\n".join(lines) + "\n"


def _ref(v: Value, slots: Slots) -> str:
    if isinstance(v, I.Instruction) or v.__class__.__name__ == "Argument":
        return slots.local(v)
    return v.ref()
