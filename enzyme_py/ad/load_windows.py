"""Adjoint windows: the reverse of a stencil's neighbouring loads without a scatter.

A loop that reads `x[i - 1]`, `x[i]` and `x[i + 1]` each trip has, reversed naively, three
read-modify-writes of the shadow per trip (`dx[i - 1] += a; dx[i] += b; dx[i + 1] += c`),
and each trip adds into elements the next one adds into again: a dependence through memory
that keeps the loop from vectorizing. Here the contributions wait in registers instead: the
reverse of trip k adds into memory only the element no later reversed trip touches (the
window's *lead*, the load that runs furthest ahead), together with what the other loads
contributed to that same element in earlier reversed trips; each other load's contribution
waits in a delay line (stack slots, registers after SROA) as many trips as it lags behind
the lead. When the reversed loop ends, what still waits is added where it belongs.

A *window* is a set of at least two active float loads of one single-block loop (its header
is its only latch and it has one exit) from one loop-invariant base at addresses
`base + u * k + o_m * u` (k the trip number, u = the element size, in either direction,
o_m a constant per load: its *offset* in trips). Nothing in the loop may write memory the
base may reach, and the loop calls nothing that writes memory, so the base's shadow is only
ever added into while the loop is reversed (all such adds commute, as every adjoint sum does:
they carry `reassoc`). Host code only (plain adds).

Invariants: every contribution reaches the element its load read, exactly once; an element
is written while the reversed loop runs only by the lead, in the trip that completes it;
what is added when the loop ends lies between two elements the forward loop read (in bounds
of the same block: a load lagging j trips behind the lead, at the last reversed trip, adds
into offset j + o_m < o_lead, which lies in [o_min, o_lead] + [0, trips)); the delay lines
are zero whenever the reversed loop is entered.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzyme_py.ad.adjoint_values import add_values
from enzyme_py.analysis.loops import InductionVariable, Loop, induction_variables
from enzyme_py.analysis.memory import may_alias, underlying
from enzyme_py.analysis.memory_effects import MemoryEffects, writes_no_memory
from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.layout import alloc_size, store_size
from enzyme_py.ir.module import Block
from enzyme_py.ir.values import Argument, ConstantInt, GlobalValue, Value

# a window is not worth its registers past this many trips of lag (and a stencil is short)
MAX_LAG = 8


@dataclass(eq=False)
class Member:
    """One load of a window: `lag` trips behind the lead (0 for the lead itself)."""

    load: I.Load
    lag: int
    current: I.Instruction | None = None  # this trip's contribution (slot)
    shadow: I.Instruction | None = None  # this trip's shadow address (slot)
    line: list[I.Instruction] = field(default_factory=list)  # line[j]: from j trips ago


@dataclass(eq=False)
class Window:
    loop: Loop
    step_bytes: int  # how far the addresses move per forward trip (signed)
    lead: Member
    members: list[Member]  # the lead first


@dataclass(frozen=True)
class AffineAddress:
    """A pointer as `base + sum(term * bytes) + per_iv * IV + offset` (bytes), `base` and the
    terms loop-invariant (`affine_address`)."""

    base: Value
    terms: tuple[tuple[int, int], ...]  # (id of a loop-invariant integer, bytes per unit)
    per_iv: int  # bytes per unit of the IV
    offset: int  # constant bytes


class LoadWindows:
    """The windows of one reverse-mode derivation, and the code that reverses them."""

    def __init__(self, windows: list[Window]) -> None:
        self.windows = windows
        self._member: dict[I.Load, tuple[Window, Member]] = {
            m.load: (w, m) for w in windows for m in w.members}
        self._by_loop: dict[Loop, list[Window]] = {}
        for w in windows:
            self._by_loop.setdefault(w.loop, []).append(w)

    def takes(self, load: I.Load) -> bool:
        return load in self._member

    def has(self, lp: Loop | None) -> bool:
        return lp is not None and lp in self._by_loop

    # --- emission (the reverse sweep calls these) -------------------------------------------

    def reverse_load(self, st, load: I.Load) -> None:
        """Keep this trip's contribution and shadow address of a member (no memory access)."""
        w, m = self._member[load]
        self._slots(st, w)
        d = st.take_adjoint(load)
        sp = st.reverse_shadow(load.pointer)
        assert m.current is not None and m.shadow is not None
        st.b.store(d, m.current)
        st.b.store(sp, m.shadow)

    def end_trip(self, st, lp: Loop) -> None:
        """After a reversed trip's instructions: the lead's element gets what was added to it
        this trip and in the trips before, and every delay line moves on by one."""
        b = st.b
        for w in self._by_loop[lp]:
            self._slots(st, w)
            lead = w.lead
            assert lead.current is not None and lead.shadow is not None
            total = b.load(lead.load.type, lead.current)
            for m in w.members[1:]:
                assert m.current is not None
                if m.lag == 0:  # the same element as the lead
                    total = add_values(b, total, b.load(m.load.type, m.current))
                else:
                    total = add_values(b, total, b.load(m.load.type, m.line[-1]))
            shadow = b.load(T.PTR, lead.shadow)
            st.accumulation.add(b, lead.load.pointer, shadow, total, lead.load.align)
            for m in w.members[1:]:
                for j in range(len(m.line) - 1, 0, -1):
                    b.store(b.load(m.load.type, m.line[j - 1]), m.line[j])
                if m.line:
                    assert m.current is not None
                    b.store(b.load(m.load.type, m.current), m.line[0])

    def enter(self, st, lp: Loop) -> None:
        """On an edge entering the reversed loop: the delay lines start empty."""
        for w in self._by_loop.get(lp, []):
            self._slots(st, w)
            for m in w.members[1:]:
                for slot in m.line:
                    st.b.store(_zero(m.load.type), slot)

    def flush(self, st, lp: Loop, after: Block) -> Block:
        """A block adding what still waits when the reversed loop ends, then going to
        `after`: line[j] of a load was read by the last reversed trip's load j elements on."""
        b = Builder()
        blk = leaving_block(st, f"rev.{lp.header.name}.window.flush", b, after)
        for w in self._by_loop[lp]:
            self._slots(st, w)
            for m in w.members[1:]:
                if not m.line:
                    continue
                assert m.shadow is not None
                base = b.load(T.PTR, m.shadow)
                for j, slot in enumerate(m.line):
                    at = base if j == 0 else b.getelementptr(T.I8, base, [ConstantInt(
                        T.I64, j * w.step_bytes)])
                    st.accumulation.add(b, m.load.pointer, at, b.load(m.load.type, slot),
                                        m.load.align)
        return blk

    def _slots(self, st, w: Window) -> None:
        for m in w.members:
            if m.current is not None:
                continue
            ty = m.load.type
            m.current = st.ctx.entry_alloca(ty, "window.d", _zero(ty))
            m.shadow = st.ctx.entry_alloca(T.PTR, "window.at")
            m.line = [st.ctx.entry_alloca(ty, f"window.lag{j + 1}", _zero(ty))
                      for j in range(m.lag)]


def leaving_block(st, name: str, b: Builder, after: Block) -> Block:
    """A new block of the reverse sweep named `name` that goes to `after` (the edge leaving a
    reversed loop), `b` positioned before its branch; it counts as the reverse of the block
    `after` reverses."""
    blk = st.ctx.work.append_block(name)
    b.position_at_end(blk)
    b.position_before(b.br(after))
    reverse_of = st.tape.reverse_of
    if after in reverse_of:
        reverse_of[blk] = reverse_of[after]
    return blk


def _zero(t: T.Type) -> Value:
    from enzyme_py.ir.values import zero

    return zero(t)


# --- planning (pure: reads the function, changes nothing) -----------------------------------


def plan_windows(loops: list[Loop], effects: MemoryEffects, is_active, atomics: bool
                 ) -> LoadWindows:
    """The windows of the innermost single-block loops (`is_active` tells active values;
    `atomics`: shadow adds may need atomics, then there are none)."""
    return LoadWindows([w for lp in single_block_loops(loops, effects, atomics)
                        for w in _loop_windows(lp, effects, is_active)])


def single_block_loops(loops: list[Loop], effects: MemoryEffects, atomics: bool
                       ) -> list[Loop]:
    """The innermost loops whose header is their only block and latch, with a preheader and
    one exit: the loops whose reversed trips these plans rearrange. None where shadow adds
    may need atomics, or a call may write memory we cannot name."""
    if atomics or effects.writes_unknown_call:
        return []
    return [lp for lp in loops if not lp.children and lp.blocks == {lp.header} and
            lp.latch is lp.header and lp.preheader is not None and len(lp.exits) == 1]


def _loop_windows(lp: Loop, effects: MemoryEffects, is_active) -> list[Window]:
    block = lp.header
    if any(isinstance(i, I.Call) and not writes_no_memory(i.callee_name or "") or
           isinstance(i, (I.Invoke, I.AtomicRMW, I.CmpXchg)) for i in block.instructions):
        return []
    written = [objs for w, objs in effects.writes if w.parent is block]
    ivs = induction_variables(lp)
    groups: dict[tuple, list[tuple[I.Load, AffineAddress]]] = {}
    for inst in block.instructions:
        if not (isinstance(inst, I.Load) and inst.type.is_float and not inst.flags and
                not getattr(inst, "ordering", None) and is_active(inst)):
            continue
        for iv in ivs:
            addr = affine_address(inst.pointer, iv, lp)
            if addr is None or addr.per_iv == 0:
                continue
            key = (id(addr.base), addr.terms, addr.per_iv * iv.step, id(inst.type), iv.phi)
            groups.setdefault(key, []).append((inst, addr))
            break
    out = []
    for key, loads in groups.items():
        if len(loads) < 2:
            continue
        step_bytes = key[2]
        size = store_size(loads[0][0].type)
        if abs(step_bytes) != size or any(a.offset % step_bytes for _, a in loads):
            continue
        base = loads[0][1].base
        if any(may_alias(underlying(base), objs) for objs in written):
            continue
        trips = [a.offset // step_bytes for _, a in loads]
        ahead = max(trips)
        if ahead - min(trips) > MAX_LAG:
            continue
        members = [Member(ld, ahead - t) for (ld, _), t in zip(loads, trips, strict=True)]
        members.sort(key=lambda m: m.lag)
        out.append(Window(lp, step_bytes, members[0], members))
    return out


def affine_address(p: Value, iv: InductionVariable, lp: Loop) -> AffineAddress | None:
    """`p` as base + terms + per_iv * iv + offset (bytes), base loop-invariant."""
    offset = 0
    per_iv = 0
    terms: dict[int, tuple[Value, int]] = {}
    while isinstance(p, I.GetElementPtr) and p.parent in lp.blocks:
        if len(p.indices) != 1:
            return None
        size = alloc_size(p.source_type)
        got = _linear(p.indices[0], iv, lp)
        if got is None:
            return None
        c, k, ts = got
        offset += c * size
        per_iv += k * size
        for v, mult in ts:
            old = terms.get(id(v), (v, 0))[1]
            terms[id(v)] = (v, old + mult * size)
        p = p.pointer
    if not _invariant(p, lp):
        return None
    # loop-invariant constant steps (`u[:-2]`, `u[2:]` as `u + 0`, `u + 2`) join the offset
    while isinstance(p, I.GetElementPtr) and len(p.indices) == 1 and \
            isinstance(p.indices[0], ConstantInt):
        offset += p.indices[0].value * alloc_size(p.source_type)
        p = p.pointer
    return AffineAddress(p, tuple(sorted((k, m) for k, (_, m) in terms.items() if m)), per_iv,
                    offset)


def _linear(v: Value, iv: InductionVariable, lp: Loop
            ) -> tuple[int, int, list[tuple[Value, int]]] | None:
    """An integer `v` as (constant, multiple of the IV, [(invariant value, multiple)])."""
    if isinstance(v, ConstantInt):
        return v.value, 0, []
    if v is iv.phi:
        return 0, 1, []
    if _lagging(v, iv, lp):  # the IV's value one trip before: iv - step
        return -iv.step, 1, []
    if _invariant(v, lp):
        return 0, 0, [(v, 1)]
    if isinstance(v, I.BinaryOp) and v.opcode in ("add", "sub"):
        a = _linear(v.lhs, iv, lp)
        b = _linear(v.rhs, iv, lp)
        if a is None or b is None:
            return None
        sign = 1 if v.opcode == "add" else -1
        return a[0] + sign * b[0], a[1] + sign * b[1], a[2] + [(t, sign * m) for t, m in b[2]]
    if isinstance(v, I.BinaryOp) and v.opcode in ("mul", "shl") and \
            isinstance(v.rhs, ConstantInt):
        a = _linear(v.lhs, iv, lp)
        if a is None:
            return None
        k = v.rhs.value if v.opcode == "mul" else 1 << v.rhs.value
        return a[0] * k, a[1] * k, [(t, m * k) for t, m in a[2]]
    return None


def _lagging(v: Value, iv: InductionVariable, lp: Loop) -> bool:
    """`v` is a header phi taking `iv` from the latch and `iv.start - iv.step` from the
    preheader (LLVM's second counter of a loop counting down): `iv - step` in every trip."""
    if not (isinstance(v, I.Phi) and v.parent is lp.header and len(v.operands) == 2 and
            lp.latch is not None and lp.preheader is not None and
            v.value_for(lp.latch) is iv.phi):
        return False
    start = _constant_and_terms(v.value_for(lp.preheader))
    first = _constant_and_terms(iv.start)
    return start is not None and first is not None and \
        start == (first[0] - iv.step, first[1])


def _constant_and_terms(v: Value, depth: int = 0
                        ) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """A loop-invariant integer as (constant, sorted (id of a value, multiple)), through
    `add` and `sub` (a few levels): equal results are equal values."""
    if isinstance(v, ConstantInt):
        return v.value, ()
    if depth < 4 and isinstance(v, I.BinaryOp) and v.opcode in ("add", "sub"):
        a, b = _constant_and_terms(v.lhs, depth + 1), _constant_and_terms(v.rhs, depth + 1)
        if a is None or b is None:
            return None
        sign = 1 if v.opcode == "add" else -1
        terms = dict(a[1])
        for k, m in b[1]:
            terms[k] = terms.get(k, 0) + sign * m
        return a[0] + sign * b[0], tuple(sorted((k, m) for k, m in terms.items() if m))
    return 0, ((id(v), 1),)


def _invariant(v: Value, lp: Loop) -> bool:
    if isinstance(v, (Argument, GlobalValue, ConstantInt)):
        return True
    return isinstance(v, I.Instruction) and v.parent is not None and v.parent not in lp.blocks
