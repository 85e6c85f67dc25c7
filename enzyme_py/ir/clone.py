"""Copying instructions, function bodies, and declarations between modules.

Invariants: a clone shares no mutable list with its original; operands are mapped through
`vmap` (values not in it are kept, after `global_map` for global symbols), blocks through
`bmap`; the original is never changed. Debug records are dropped from clones (they refer to
the original's metadata and locals).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Block, Function, GlobalVariable, Module
from enzyme_py.ir.values import (
    BlockAddress,
    Constant,
    ConstantAggregate,
    ConstantExpr,
    ConstantSplat,
    GlobalValue,
    Value,
)

GlobalMap = Callable[[GlobalValue], GlobalValue]


def _map_constant(c: Constant, global_map: GlobalMap) -> Constant:
    if isinstance(c, GlobalValue):
        return global_map(c)
    if isinstance(c, ConstantAggregate):
        return ConstantAggregate(c.type, tuple(_map_value(e, {}, global_map)
                                               for e in c.elements))
    if isinstance(c, ConstantSplat):
        return ConstantSplat(c.type, _map_value(c.element, {}, global_map))
    if isinstance(c, ConstantExpr):
        return ConstantExpr(c.type, c.opcode, tuple(_map_value(o, {}, global_map) for o in c.ops),
                            c.flags, c.source_type, c.extra)
    if isinstance(c, BlockAddress):
        return BlockAddress(c.type, global_map(c.function), c.block)  # type: ignore[arg-type]
    return c


def _map_value(v: Value, vmap: dict[Value, Value], global_map: GlobalMap | None) -> Value:
    got = vmap.get(v)
    if got is not None:
        return got
    if global_map is not None and isinstance(v, Constant):
        return _map_constant(v, global_map)
    return v


def clone_instruction(inst: I.Instruction, vmap: dict[Value, Value],
                      bmap: dict[Block, Block],
                      global_map: GlobalMap | None = None) -> I.Instruction:
    """A detached copy of `inst` with operands and blocks mapped."""
    new = copy.copy(inst)
    new.operands = [_map_value(o, vmap, global_map) for o in inst.operands]
    new.metadata = list(inst.metadata)
    new.dbg_records = []
    new.parent = None
    if isinstance(inst, I.Phi):
        new.incoming_blocks = [bmap.get(b, b) for b in inst.incoming_blocks]
    if isinstance(inst, (I.Br, I.IndirectBr)):
        new.targets = [bmap.get(b, b) for b in inst.targets]
    if isinstance(inst, I.Switch):
        new.default = bmap.get(inst.default, inst.default)
        new.cases = [(v, bmap.get(b, b)) for v, b in inst.cases]
    if isinstance(inst, I.Invoke):
        new.normal = bmap.get(inst.normal, inst.normal)
        new.unwind = bmap.get(inst.unwind, inst.unwind)
    if isinstance(inst, I.Call):
        new.arg_attrs = [list(a) for a in inst.arg_attrs]
        new.ret_attrs = list(inst.ret_attrs)
        new.fn_attrs = list(inst.fn_attrs)
    if isinstance(inst, I.LandingPad):
        new.clauses = list(inst.clauses)
    return new


def clone_body(src: Function, dst: Function, vmap: dict[Value, Value],
               global_map: GlobalMap | None = None,
               block_prefix: str = "") -> dict[Block, Block]:
    """Append copies of `src`'s blocks to `dst`; `vmap` must map `src`'s arguments.

    Returns the block map; `vmap` is extended with every cloned instruction.
    """
    bmap: dict[Block, Block] = {}
    for b in src.blocks:
        nb = dst.append_block(f"{block_prefix}{b.name}" if b.name else None)
        bmap[b] = nb
    for b in src.blocks:
        for inst in b.instructions:
            vmap[inst] = bmap[b].append(clone_instruction(inst, vmap, bmap, global_map))
    # Forward references (phis, uses in non-dominating order) are fixed in a second pass.
    originals = set(vmap)
    for b in src.blocks:
        for inst in bmap[b].instructions:
            inst.operands = [vmap[o] if o in originals and not isinstance(o, Constant) else o
                             for o in inst.operands]
    return bmap


def symbol_importer(target: Module) -> GlobalMap:
    """Maps a global of another module to the same-named one of `target`, declaring it there
    (functions as declarations, variables as external globals) when missing."""

    def get(g: GlobalValue) -> GlobalValue:
        assert g.name is not None
        mine = target.symbols.get(g.name)
        if mine is not None:
            return mine
        if isinstance(g, Function):
            fn = Function(g.name, g.function_type)
            fn.prefix = [w for w in g.prefix if w not in ("internal", "private", "dso_local")]
            fn.suffix = [w for w in g.suffix if w.startswith("#") is False
                         and not w.startswith("!")]
            return target.add_function(fn)
        if isinstance(g, GlobalVariable):
            gv = GlobalVariable(g.name, g.value_type, None, g.is_constant)
            gv.prefix = ["external", *(w for w in g.prefix if w.startswith("addrspace("))]
            gv.type = g.type
            return target.add_global(gv)
        raise ValueError(f"cannot import symbol @{g.name} of kind {type(g).__name__}")

    return get
