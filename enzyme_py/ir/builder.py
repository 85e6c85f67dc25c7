"""An instruction builder whose method names are LLVM opcodes.

Invariants: the builder inserts at one position (the end of a block, or before an instruction)
and every method returns the instruction it inserted; it never folds or rewrites (LLVM's
optimizer cleans up afterwards). Names passed in are hints: the printer makes them unique.

Example::

    b = Builder(fn.append_block("entry"))
    y = b.fmul(x, x, name="sq")
    b.ret(y)
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.values import ConstantFloat, ConstantInt, GlobalValue, Value


class Builder:
    def __init__(self, block: Block | None = None) -> None:
        self.block = block
        self.index: int | None = None  # None: append at the end of `block`
        self.fast_math: tuple[str, ...] = ()

    # --- position ---------------------------------------------------------------------------

    def split_block(self, name: str, *between: str) -> tuple[Block, list[Block]]:
        """Move what follows the insertion point into a new block `name` right after the
        current one (its successors' phis now name it), with empty blocks `between` placed
        before it; the builder stays at the end of the current block, which has no
        terminator then. Returns (the new block, the blocks between)."""
        here = self.block
        assert here is not None and here.parent is not None
        fn = here.parent
        rest = here.instructions[self.index:] if self.index is not None else []
        middle = [Block(n, fn) for n in between]
        after = Block(name, fn)
        k = fn.blocks.index(here) + 1
        fn.blocks[k:k] = [*middle, after]
        for inst in rest:
            here.remove(inst)
            after.append(inst)
            if inst.is_terminator:
                for succ in inst.successors():
                    for phi in succ.phis():
                        phi.replace_block(here, after)
        self.position_at_end(here)
        return after, middle

    def position_at_end(self, block: Block) -> Builder:
        self.block, self.index = block, None
        return self

    def position_before(self, inst: I.Instruction) -> Builder:
        assert inst.parent is not None, "instruction is not in a block"
        self.block = inst.parent
        self.index = inst.parent.instructions.index(inst)
        return self

    def position_after_def(self, inst: I.Instruction) -> Builder:
        """Right after `inst` (after the last phi when `inst` is a phi; for an invoke, at the
        start of its normal destination, which must have no other predecessor)."""
        assert inst.parent is not None, "instruction is not in a block"
        block = inst.parent
        if isinstance(inst, I.Phi):
            return self.position_after_phis(block)
        if isinstance(inst, I.Invoke):
            return self.position_after_phis(inst.normal)
        self.block = block
        self.index = block.instructions.index(inst) + 1
        return self

    def position_after_phis(self, block: Block) -> Builder:
        """At the first place code may go: after the phis (and a landing pad)."""
        self.block, self.index = block, block.first_insertion_index()
        return self

    def insert(self, inst: I.Instruction, name: str | None = None) -> I.Instruction:
        if self.block is None:
            raise ValueError("builder has no insertion point")
        if name is not None:
            inst.name = name
        if self.index is None:
            self.block.append(inst)
        else:
            self.block.insert(self.index, inst)
            self.index += 1
        return inst

    # --- arithmetic -------------------------------------------------------------------------

    def _binary(self, op: str, a: Value, b: Value, name: str | None,
                flags: tuple[str, ...] | None) -> I.Instruction:
        if flags is None:
            flags = self.fast_math if op in I.FLOAT_BINARY_OPS else ()
        return self.insert(I.BinaryOp(op, a.type, [a, b], flags=flags), name)

    def fadd(self, a: Value, b: Value, name: str | None = None,
             flags: tuple[str, ...] | None = None) -> I.Instruction:
        return self._binary("fadd", a, b, name, flags)

    def fsub(self, a: Value, b: Value, name: str | None = None,
             flags: tuple[str, ...] | None = None) -> I.Instruction:
        return self._binary("fsub", a, b, name, flags)

    def fmul(self, a: Value, b: Value, name: str | None = None,
             flags: tuple[str, ...] | None = None) -> I.Instruction:
        return self._binary("fmul", a, b, name, flags)

    def fdiv(self, a: Value, b: Value, name: str | None = None,
             flags: tuple[str, ...] | None = None) -> I.Instruction:
        return self._binary("fdiv", a, b, name, flags)

    def frem(self, a: Value, b: Value, name: str | None = None,
             flags: tuple[str, ...] | None = None) -> I.Instruction:
        return self._binary("frem", a, b, name, flags)

    def add(self, a: Value, b: Value, name: str | None = None,
            flags: tuple[str, ...] = ()) -> I.Instruction:
        return self._binary("add", a, b, name, flags)

    def sub(self, a: Value, b: Value, name: str | None = None,
            flags: tuple[str, ...] = ()) -> I.Instruction:
        return self._binary("sub", a, b, name, flags)

    def mul(self, a: Value, b: Value, name: str | None = None,
            flags: tuple[str, ...] = ()) -> I.Instruction:
        return self._binary("mul", a, b, name, flags)

    def binop(self, op: str, a: Value, b: Value, name: str | None = None,
              flags: tuple[str, ...] | None = None) -> I.Instruction:
        """Any binary opcode by name (`and`, `or`, `xor`, `shl`, `udiv` ...)."""
        if op not in I.BINARY_OPS:
            raise ValueError(f"{op} is not a binary opcode")
        return self._binary(op, a, b, name, flags)

    def fneg(self, a: Value, name: str | None = None,
             flags: tuple[str, ...] | None = None) -> I.Instruction:
        fl = self.fast_math if flags is None else flags
        return self.insert(I.UnaryOp("fneg", a.type, [a], flags=fl), name)

    def icmp(self, predicate: str, a: Value, b: Value, name: str | None = None) -> I.Instruction:
        return self.insert(I.Compare("icmp", _bool_like(a.type), predicate, a, b), name)

    def fcmp(self, predicate: str, a: Value, b: Value, name: str | None = None) -> I.Instruction:
        return self.insert(I.Compare("fcmp", _bool_like(a.type), predicate, a, b), name)

    def select(self, cond: Value, a: Value, b: Value, name: str | None = None) -> I.Instruction:
        return self.insert(I.Select("select", a.type, [cond, a, b]), name)

    def cast(self, op: str, v: Value, to: T.Type, name: str | None = None,
             flags: tuple[str, ...] = ()) -> I.Instruction:
        if op not in I.CAST_OPS:
            raise ValueError(f"{op} is not a cast opcode")
        return self.insert(I.Cast(op, to, [v], flags=flags), name)

    def sitofp(self, v: Value, to: T.Type, name: str | None = None) -> I.Instruction:
        return self.cast("sitofp", v, to, name)

    def fptrunc(self, v: Value, to: T.Type, name: str | None = None) -> I.Instruction:
        return self.cast("fptrunc", v, to, name)

    def fpext(self, v: Value, to: T.Type, name: str | None = None) -> I.Instruction:
        return self.cast("fpext", v, to, name)

    def zext(self, v: Value, to: T.Type, name: str | None = None) -> I.Instruction:
        return self.cast("zext", v, to, name)

    def sext(self, v: Value, to: T.Type, name: str | None = None) -> I.Instruction:
        return self.cast("sext", v, to, name)

    def trunc(self, v: Value, to: T.Type, name: str | None = None) -> I.Instruction:
        return self.cast("trunc", v, to, name)

    def bitcast(self, v: Value, to: T.Type, name: str | None = None) -> I.Instruction:
        return self.cast("bitcast", v, to, name)

    def freeze(self, v: Value, name: str | None = None) -> I.Instruction:
        return self.insert(I.Freeze("freeze", v.type, [v]), name)

    # --- memory -----------------------------------------------------------------------------

    def alloca(self, ty: T.Type, count: Value | None = None, align: int | None = None,
               name: str | None = None) -> I.Instruction:
        return self.insert(I.Alloca(ty, count, align), name)

    def load(self, ty: T.Type, ptr: Value, align: int | None = None,
             name: str | None = None) -> I.Instruction:
        return self.insert(I.Load("load", ty, [ptr], align), name)

    def store(self, value: Value, ptr: Value, align: int | None = None) -> I.Instruction:
        return self.insert(I.Store("store", T.VOID, [value, ptr], align))

    def getelementptr(self, source_type: T.Type, ptr: Value, indices: Sequence[Value],
                      name: str | None = None,
                      flags: tuple[str, ...] = ("inbounds",)) -> I.Instruction:
        return self.insert(I.GetElementPtr(source_type, ptr.type, [ptr, *indices],
                                           flags=flags), name)

    def phi(self, ty: T.Type, incoming: Sequence[tuple[Value, Block]] = (),
            name: str | None = None) -> I.Phi:
        phi = I.Phi(ty)
        for v, b in incoming:
            phi.add_incoming(v, b)
        self.insert(phi, name)
        return phi

    # --- aggregates and vectors -------------------------------------------------------------

    def extractvalue(self, agg: Value, indices: Sequence[int],
                     name: str | None = None) -> I.Instruction:
        ty = agg.type
        for i in indices:
            ty = T.element_type_at(ty, i)
        return self.insert(I.AggregateOp("extractvalue", ty, [agg], tuple(indices)), name)

    def insertvalue(self, agg: Value, value: Value, indices: Sequence[int],
                    name: str | None = None) -> I.Instruction:
        return self.insert(I.AggregateOp("insertvalue", agg.type, [agg, value],
                                         tuple(indices)), name)

    def extractelement(self, vec: Value, index: Value, name: str | None = None) -> I.Instruction:
        assert isinstance(vec.type, T.VectorType)
        return self.insert(I.VectorOp("extractelement", vec.type.element, [vec, index]), name)

    def insertelement(self, vec: Value, value: Value, index: Value,
                      name: str | None = None) -> I.Instruction:
        return self.insert(I.VectorOp("insertelement", vec.type, [vec, value, index]), name)

    def shufflevector(self, a: Value, b: Value, mask: Value,
                      name: str | None = None) -> I.Instruction:
        assert isinstance(a.type, T.VectorType) and isinstance(mask.type, T.VectorType)
        ty = T.VectorType(mask.type.count, a.type.element)
        return self.insert(I.VectorOp("shufflevector", ty, [a, b, mask]), name)

    # --- calls and control flow -------------------------------------------------------------

    def call(self, callee: Function | Value, args: Sequence[Value], name: str | None = None,
             function_type: T.FunctionType | None = None,
             flags: tuple[str, ...] = ()) -> I.Call:
        if function_type is None:
            if not isinstance(callee, Function):
                raise ValueError("an indirect call needs its function_type")
            function_type = callee.function_type
        call = I.Call(function_type, callee, list(args), flags=flags)
        self.insert(call, name)
        return call

    def call_intrinsic(self, module_fn: Function, args: Sequence[Value],
                       name: str | None = None) -> I.Call:
        return self.call(module_fn, args, name, flags=self.fast_math
                         if module_fn.return_type.is_fp_or_fp_vector else ())

    def ret(self, value: Value | None = None) -> I.Instruction:
        return self.insert(I.Ret(value))

    def br(self, target: Block) -> I.Instruction:
        return self.insert(I.Br([target]))

    def condbr(self, cond: Value, if_true: Block, if_false: Block) -> I.Instruction:
        return self.insert(I.Br([if_true, if_false], cond))

    def switch(self, cond: Value, default: Block,
               cases: Sequence[tuple[Value, Block]] = ()) -> I.Instruction:
        return self.insert(I.Switch(cond, default, list(cases)))

    def unreachable(self) -> I.Instruction:
        return self.insert(I.Unreachable())


def _bool_like(t: T.Type) -> T.Type:
    if isinstance(t, T.VectorType):
        return T.VectorType(t.count, T.I1, t.scalable)
    return T.I1


def const_f(ty: T.Type, x: float) -> Value:
    """A float constant of `ty` (splat for vectors)."""
    from enzyme_py.ir.values import const_float

    return const_float(ty, x)


def const_i(ty: T.Type, x: int) -> ConstantInt:
    return ConstantInt(ty, x)


__all__ = ["Builder", "ConstantFloat", "GlobalValue", "const_f", "const_i"]
