"""Properties of a loop kept in its loop metadata: `br ..., !llvm.loop !N` on the latch, with
`!N = distinct !{!N, !M}` and `!M = !{!"name", i64 value}` (as `llvm.loop.unroll.count` is).

LLVM keeps a loop's `!llvm.loop` node through its optimizations (rotation moves it to the new
latch) and passes unknown properties along, so a front end can mark a loop for a later pass.

Invariants: marking adds metadata nodes with fresh numbers and never renumbers others; reading
accepts the node as LLVM prints it back (other properties beside ours, any numbering).
"""

from __future__ import annotations

import re

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Module

_NODE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?!\{(.*)\}\s*$")


def _nodes(module: Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in module.metadata:
        m = _NODE.match(line.strip())
        if m:
            out[f"!{m.group(1)}"] = m.group(2)
    return out


def mark_loop(module: Module, latch_branch: I.Instruction, name: str, value: int) -> None:
    """Give the loop whose back edge is `latch_branch` the property `name` = `value`."""
    k = module.fresh_metadata_number()
    module.metadata.append(f'!{k + 1} = !{{!"{name}", i64 {value}}}')
    module.metadata.append(f"!{k} = distinct !{{!{k}, !{k + 1}}}")
    latch_branch.metadata = [(kind, ref) for kind, ref in latch_branch.metadata
                             if kind != "llvm.loop"] + [("llvm.loop", f"!{k}")]


def loop_property(module: Module, latch_branch: I.Instruction, name: str) -> int | None:
    """The value of property `name` of the loop whose back edge is `latch_branch`."""
    ref = latch_branch.get_metadata("llvm.loop")
    if ref is None:
        return None
    nodes = _nodes(module)
    body = nodes.get(ref.strip())
    if body is None:
        return None
    for item in re.findall(r"!\d+", body):
        prop = nodes.get(item)
        if prop is None:
            continue
        m = re.match(rf'^\s*!"{re.escape(name)}"\s*,\s*i\d+\s+(-?\d+)\s*$', prop)
        if m:
            return int(m.group(1))
    return None


def has_property(module: Module, name: str) -> bool:
    """Some loop of `module` may carry property `name` (a cheap test of the text)."""
    return any(f'!"{name}"' in line for line in module.metadata)
