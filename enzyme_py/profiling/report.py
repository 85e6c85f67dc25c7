"""The report `enzyme_py.profile` returns: where a gradient's compile time, run time and memory
go, as readable tables (`str(report)`), with the numbers as fields for programs.

Invariants: times are medians of repeated calls in this process (seconds); heap figures are
bytes asked of malloc/calloc/realloc by one call (per call site, see `allocations.py`); opcode
counts are static counts of the optimized code each call runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from enzyme_py.analysis.opcode_counts import OpcodeCounts
from enzyme_py.profiling.allocations import SiteCount
from enzyme_py.stage_times import StageTime


@dataclass(frozen=True)
class Profile:
    function: str
    primal_seconds: float  # median time of one `jit(f)` call
    gradient_seconds: float  # median time of one `grad(f)` call
    primal_stages: tuple[StageTime, ...]  # the first call of jit(f): its compile stages
    gradient_stages: tuple[StageTime, ...]  # the first call of grad(f)
    primal_ops: OpcodeCounts
    gradient_ops: OpcodeCounts
    primal_heap: tuple[SiteCount, ...]
    gradient_heap: tuple[SiteCount, ...]

    @property
    def ratio(self) -> float:
        """Gradient time over primal time."""
        return self.gradient_seconds / self.primal_seconds if self.primal_seconds else 0.0

    @property
    def compile_seconds(self) -> float:
        """The gradient's compile time: its outermost stages summed."""
        return sum(s.seconds for s in self.gradient_stages if s.depth == 0)

    def heap_bytes(self, gradient: bool = True, prefix: str = "") -> int:
        """Bytes one call asks for, at the sites whose name starts with `prefix` (`"tape"`:
        the gradient's tape)."""
        sites = self.gradient_heap if gradient else self.primal_heap
        return sum(s.bytes for s in sites if s.site.name.startswith(prefix))

    def __str__(self) -> str:
        out = [f"profile of {self.function}()",
               f"  run: primal {_ms(self.primal_seconds)}, gradient "
               f"{_ms(self.gradient_seconds)} (gradient/primal {self.ratio:.2f})", ""]
        out += stage_table("compile stages of the gradient (first call)", self.gradient_stages)
        out += stage_table("compile stages of the primal (first call)", self.primal_stages)
        out += _heap("heap asked for by one gradient call", self.gradient_heap)
        out += _heap("heap asked for by one primal call", self.primal_heap)
        out += opcode_table(self.primal_ops, self.gradient_ops)
        return "\n".join(out).rstrip() + "\n"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4g} ms"


def stage_table(title: str, stages: tuple[StageTime, ...]) -> list[str]:
    if not stages:
        return []
    lines = [title + ":"]
    for s in _in_order(stages):
        lines.append(f"  {'  ' * s.depth}{s.name:<{44 - 2 * s.depth}} {_ms(s.seconds):>12}")
    return lines + [""]


def _in_order(stages: tuple[StageTime, ...]) -> list[StageTime]:
    """Each stage before its parts (they were recorded when they ended: parts first)."""
    done: list[tuple[int, list[StageTime]]] = []  # (depth, the stage and its parts)
    for s in stages:
        parts: list[StageTime] = []
        while done and done[-1][0] > s.depth:
            parts = done.pop()[1] + parts
        done.append((s.depth, [s, *parts]))
    return [s for _, tree in done for s in tree]


def _group(name: str) -> str:
    """Sites of one value copied by inlining or unrolling share a name: `%tape.3` is `%tape`,
    `%buf.i150.shadow` (inlined) `%buf.shadow`, `%new.i527` (the tape stream's growth) `%new`."""
    name = re.sub(r"\.i\d*(?=\.|$)", "", name)
    return re.sub(r"(\.\d+)+$", "", name) or "(unnamed)"


def _heap(title: str, sites: tuple[SiteCount, ...]) -> list[str]:
    groups: dict[str, list[int]] = {}
    for s in sites:
        if s.calls:
            g = groups.setdefault(_group(s.site.name), [0, 0])
            g[0] += s.calls
            g[1] += s.bytes
    if not groups:
        return [f"{title}: none", ""]
    total = sum(b for _, b in groups.values())
    lines = [f"{title}: {_bytes(total)}",
             f"  {'site':<28} {'calls':>8} {'bytes':>12}"]
    for name, (calls, nbytes) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        lines.append(f"  {'%' + name:<28} {calls:>8} {_bytes(nbytes):>12}")
    return lines + [""]


def _bytes(n: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def opcode_table(primal: OpcodeCounts, gradient: OpcodeCounts, limit: int = 24,
                 title: str = "instructions of the optimized code") -> list[str]:
    names = sorted({k for k, _ in primal.counts} | {k for k, _ in gradient.counts},
                   key=lambda k: (-gradient.get(k), -primal.get(k), k))
    lines = [f"{title}: primal {primal.total}, gradient {gradient.total}",
             f"  {'opcode':<28} {'primal':>8} {'gradient':>9}"]
    for k in names[:limit]:
        lines.append(f"  {k:<28} {primal.get(k):>8} {gradient.get(k):>9}")
    if len(names) > limit:
        lines.append(f"  ({len(names) - limit} more)")
    return lines
