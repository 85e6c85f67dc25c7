"""Control-flow graph order and dominator trees (used by the verifier and the analyses).

Invariants: only blocks reachable from the entry appear in `rpo` and in `idom`; an entry's
`idom` is None. `Dominators.dominates(a, b)` is reflexive.
Post-dominators use a virtual exit joining every block without successors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from enzyme_py.ir.module import Block, Function


def predecessors(fn: Function) -> dict[Block, list[Block]]:
    """Predecessors of every block, each listed once, in block order."""
    preds: dict[Block, list[Block]] = {b: [] for b in fn.blocks}
    for b in fn.blocks:
        for s in dict.fromkeys(b.successors()):
            if s in preds:
                preds[s].append(b)
    return preds


def reverse_post_order(entries: Sequence[Block],
                       successors: Callable[[Block], Sequence[Block]]) -> list[Block]:
    """Blocks reachable from `entries` in reverse post-order (iterative DFS)."""
    seen: set[Block] = set()
    post: list[Block] = []
    for entry in entries:
        if entry in seen:
            continue
        seen.add(entry)
        stack = [(entry, iter(successors(entry)))]
        while stack:
            block, it = stack[-1]
            for s in it:
                if s not in seen:
                    seen.add(s)
                    stack.append((s, iter(successors(s))))
                    break
            else:
                stack.pop()
                post.append(block)
    post.reverse()
    return post


class _Root:
    """The virtual root above every entry (so several exits work for post-dominators)."""


class Dominators:
    """Immediate dominators by the Cooper–Harvey–Kennedy iteration.

    `idom[b]` is the immediate dominator of `b`, or None for an entry (a root).
    """

    def __init__(self, entries: Sequence[Block],
                 successors: Callable[[Block], Sequence[Block]],
                 predecessors: Callable[[Block], Sequence[Block]]) -> None:
        self.rpo = reverse_post_order(entries, successors)
        root = _Root()
        order: dict[object, int] = {root: 0}
        for i, b in enumerate(self.rpo):
            order[b] = i + 1
        self.order = order
        idom: dict[object, object] = {root: root}
        entry_set = set(entries)
        for e in entries:
            idom[e] = root
        changed = True
        while changed:
            changed = False
            for b in self.rpo:
                if b in entry_set:
                    continue
                new: object | None = None
                for p in predecessors(b):
                    if p not in idom or p not in order:
                        continue
                    new = p if new is None else self._intersect(p, new, idom, order)
                if new is not None and idom.get(b) is not new:
                    idom[b] = new
                    changed = True
        self.idom: dict[Block, Block | None] = {
            b: (None if idom[b] is root else idom[b])  # type: ignore[misc]
            for b in self.rpo if b in idom
        }

    @staticmethod
    def _intersect(a: object, b: object, idom: dict[object, object],
                   order: dict[object, int]) -> object:
        while a is not b:
            while order[a] > order[b]:
                a = idom[a]
            while order[b] > order[a]:
                b = idom[b]
        return a

    def is_reachable(self, b: Block) -> bool:
        return b in self.idom

    def dominates(self, a: Block, b: Block) -> bool:
        """Every path from an entry to `b` passes through `a` (unreachable `b`: True)."""
        if b not in self.idom:
            return True
        if a not in self.idom:
            return False
        node: Block | None = b
        while node is not None:
            if node is a:
                return True
            node = self.idom[node]
        return False

    def children(self) -> dict[Block, list[Block]]:
        """The dominator tree as child lists (in reverse post-order)."""
        out: dict[Block, list[Block]] = {b: [] for b in self.idom}
        for b, p in self.idom.items():
            if p is not None:
                out[p].append(b)
        return out


def dominators(fn: Function) -> Dominators:
    preds = predecessors(fn)
    return Dominators([fn.entry], lambda b: b.successors(), lambda b: preds[b])


def post_dominators(fn: Function) -> Dominators:
    """Post-dominators; exits (blocks with no successors) are the roots."""
    preds = predecessors(fn)
    exits = [b for b in fn.blocks if not b.successors()]
    return Dominators(exits, lambda b: preds[b], lambda b: b.successors())
