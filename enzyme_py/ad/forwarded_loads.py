"""Loads of a scratch array that an earlier sibling loop filled: the tape recomputes the stored
value instead of caching the load.

Loop code reuses small scratch arrays on every iteration of an outer loop. GMM's loop form:

    for i in range(d): xcentered[i] = x[ix, i] - means[ik, i]     # loop A fills it
    for i in range(d): qxcentered[i] = qdiags[ik, i] * xcentered[i]   # loop B reads it

The next (ix, ik) overwrites `xcentered`, so the reverse sweep cannot read it again, and the
tape kept one copy of it per loop that reads it (2 * d doubles per (ix, ik)). But the element
B reads in its iteration k is the one A stored in its iteration k, and that value is
`x[ix, k] - means[ik, k]`: memory nobody writes, which the reverse sweep can read again.

`ForwardedLoads.find(load)` finds, for a load L of `base[j]` in loop B, the store S of `base[i]`
in loop A whose value L reads, when (checked on the forward code before the sweeps change it):

- A and B are different loops with the same parent loop P (or none), neither inside the
  other, and every path from P's header (the function's entry) to B's header passes A's
  header: in each iteration of P that runs B, A ran before it;
- i is the induction variable A's exit test reads, j the one B's reads, and the two tests are
  the same (start, step, predicate and bound, the same IR values): A and B run the same
  number of iterations N, with i and j taking the same values in the same order;
- A leaves only by that test, and S's block dominates that exit: S runs in all N iterations of
  A, so every element B can read was written in this iteration of P;
- `base` is defined outside A and B, S and L access one element of one type through a
  one-index `getelementptr` of it, neither volatile nor atomic;
- no instruction in P (the function, where there is no P) but S, and no callee, may write
  memory `base` points into (`TapeFacts.writes_to`).

The tape (`tape.py`) then rebuilds S's stored value in the reverse sweep with A's induction
variables taken at B's iteration number, where that value is recomputable there (arithmetic,
and loads of memory that does not change after them); else it caches L as before.

Invariant: a forwarding is found only where L's value is S's value in A's iteration of the
same number, in the same iteration of P; the analysis changes nothing in the IR.
"""

from __future__ import annotations

from dataclasses import dataclass

from enzyme_py.ad.reverse_cfg import ControlFlow, LoopState
from enzyme_py.ad.tape_facts import TapeFacts
from enzyme_py.analysis.loops import Loop, TripCount
from enzyme_py.analysis.memory import underlying
from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Block
from enzyme_py.ir.values import ConstantInt, Value


@dataclass(frozen=True)
class Forwarding:
    """Load `load` in loop `reader` reads what `store` wrote in loop `filler`'s iteration of
    the same number."""

    load: I.Load
    store: I.Store
    filler: LoopState
    reader: LoopState


class ForwardedLoads:
    """The forwardings of one gradient's forward code (`cf`, its tape's `facts`)."""

    def __init__(self, cf: ControlFlow, facts: TapeFacts) -> None:
        self.cf = cf
        self.facts = facts
        self._stores: dict[int, list[I.Store]] | None = None  # by id of the base
        self._found: dict[I.Load, Forwarding | None] = {}  # (the tape asks once per block)

    def find(self, load: I.Load) -> Forwarding | None:
        """The store whose value `load` reads (see the module docstring), or None."""
        if load not in self._found:
            self._found[load] = self._search(load)
        return self._found[load]

    def _search(self, load: I.Load) -> Forwarding | None:
        cf = self.cf
        if load.flags or load.ordering or load not in cf.original or load.parent is None:
            return None
        reader_loop = cf.loops.loop_of.get(load.parent)
        at = _one_index(load.pointer)
        if reader_loop is None or at is None:
            return None
        base, index, elem = at
        reader = cf.loop_states.get(reader_loop)
        if reader is None or reader.trip is None or index is not reader.trip.iv.phi or \
                elem != load.type or _inside(base, reader_loop):
            return None
        for store in self._stores_through(base):
            found = _filled_by(store, load, reader, cf, self.facts)
            if found is not None:
                return found
        return None

    def _stores_through(self, base: Value) -> list[I.Store]:
        """The original stores to one element of `base` (a one-index getelementptr of it)."""
        if self._stores is None:
            self._stores = {}
            for inst in self.cf.original:
                at = _one_index(inst.pointer) if isinstance(inst, I.Store) else None
                if at is not None:
                    self._stores.setdefault(id(at[0]), []).append(inst)  # type: ignore[arg-type]
        return self._stores.get(id(base), [])


def _filled_by(store: I.Store, load: I.Load, reader: LoopState, cf: ControlFlow,
               facts: TapeFacts) -> Forwarding | None:
    at = _one_index(store.pointer)
    assert at is not None and store.parent is not None
    base, index, elem = at
    filler_loop = cf.loops.loop_of.get(store.parent)
    filler = cf.loop_states.get(filler_loop) if filler_loop is not None else None
    reader_loop = reader.loop
    if filler is None or filler.trip is None or filler_loop is reader_loop or \
            store.flags or store.ordering or elem != load.type or \
            store.value.type != load.type or index is not filler.trip.iv.phi or \
            _inside(base, filler_loop) or filler_loop.parent is not reader_loop.parent:
        return None  # (two different loops with one parent: neither is inside the other)
    trip = filler.trip
    if not _same_count(trip, reader.trip) or filler_loop.exiting != [trip.exiting] or \
            not cf.dom.dominates(store.parent, trip.exiting):
        return None
    if not _always_before(filler_loop, reader_loop, cf):
        return None
    region = filler_loop.parent.blocks if filler_loop.parent is not None else None
    objs = underlying(base)
    for w, _ in facts.writes_to(objs):
        if w is store:
            continue
        if w.parent is None or w.function is not cf.entry.parent or \
                region is None or w.parent in region:
            return None
    return Forwarding(load, store, filler, reader)


def _one_index(p: Value) -> tuple[Value, Value, object] | None:
    """(base, index, element type) of `getelementptr T, base, index`, else None."""
    if isinstance(p, I.GetElementPtr) and len(p.indices) == 1:
        return p.pointer, p.indices[0], p.source_type
    return None


def _inside(v: Value, lp: Loop) -> bool:
    return isinstance(v, I.Instruction) and v.parent in lp.blocks


def _same_value(a: Value, b: Value) -> bool:
    if a is b:
        return True
    return isinstance(a, ConstantInt) and isinstance(b, ConstantInt) and \
        a.type == b.type and a.value == b.value


def _same_count(a: TripCount, b: TripCount) -> bool:
    """The two exit tests let their loops run the same iterations, with the same IV values."""
    return a.predicate == b.predicate and a.tested_next == b.tested_next and \
        a.offset == b.offset and a.iv.step == b.iv.step and \
        a.iv.phi.type == b.iv.phi.type and _same_value(a.bound, b.bound) and \
        _same_value(a.iv.start, b.iv.start)


def _always_before(first: Loop, then: Loop, cf: ControlFlow) -> bool:
    """Every path from the header of the loop around both (the function's entry) to `then`'s
    header passes `first`'s header, without going round that loop again."""
    parent = first.parent
    start: Block = parent.header if parent is not None else cf.entry
    seen: set[Block] = {first.header}
    work = [start]
    while work:
        b = work.pop()
        if b is then.header:
            return False
        if b in seen:
            continue
        seen.add(b)
        for s in b.successors():
            if parent is not None and (s is parent.header or s not in parent.blocks):
                continue
            work.append(s)
    return True
