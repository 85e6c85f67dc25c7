"""Instructions.

Invariants: `operands` holds every data operand (never blocks); blocks an instruction refers to
live in named fields (`targets`, `incoming_blocks`, `default`, `cases`, `normal`, `unwind`), so
`replace_operand` and use scans never see blocks. `flags` are LLVM's keyword flags in LLVM's
order (`fast`, `nsw`, `inbounds`, `volatile` ...). `metadata` is a list of `(kind, text)`
attachments kept opaque, e.g. `("tbaa", "!5")`. `dbg_records` are `#dbg_...` lines kept as text,
printed before the instruction. An instruction belongs to at most one block (`parent`). `loc` is
where the parser read it (`location.SourceLoc`), None for built ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enzyme_py.ir import types as T
from enzyme_py.ir.values import Value

if TYPE_CHECKING:
    from enzyme_py.ir.location import SourceLoc
    from enzyme_py.ir.module import Block, Function

BINARY_OPS = frozenset({
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or",
    "xor", "fadd", "fsub", "fmul", "fdiv", "frem",
})
FLOAT_BINARY_OPS = frozenset({"fadd", "fsub", "fmul", "fdiv", "frem"})
CAST_OPS = frozenset({
    "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
    "ptrtoint", "inttoptr", "bitcast", "addrspacecast", "ptrtoaddr",
})
FAST_MATH_FLAGS = ("fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc")
TERMINATORS = frozenset({
    "ret", "br", "switch", "indirectbr", "invoke", "resume", "unreachable", "callbr",
})


class Instruction(Value):
    """Base of all instructions."""

    __slots__ = ("opcode", "operands", "flags", "metadata", "dbg_records", "parent", "loc")

    def __init__(self, opcode: str, type: T.Type, operands: list[Value],
                 name: str | None = None, flags: tuple[str, ...] = ()) -> None:
        super().__init__(type, name)
        self.opcode = opcode
        self.operands = operands
        self.flags = flags
        self.metadata: list[tuple[str, str]] = []
        self.dbg_records: list[str] = []
        self.parent: Block | None = None
        self.loc: SourceLoc | None = None  # where the parser read it (see `location`)

    @property
    def is_terminator(self) -> bool:
        return self.opcode in TERMINATORS

    @property
    def function(self) -> Function | None:
        return self.parent.parent if self.parent is not None else None

    def successors(self) -> list[Block]:
        """Blocks control may go to next (terminators only)."""
        return []

    def replace_operand(self, old: Value, new: Value) -> bool:
        """Replace every use of `old` among the operands; True if any was replaced."""
        changed = False
        ops = self.operands
        for i, op in enumerate(ops):
            if op is old:
                ops[i] = new
                changed = True
        return changed

    def replace_successor(self, old: Block, new: Block) -> None:
        """Retarget edges to `old` so they go to `new` (no-op for non-terminators)."""

    def get_metadata(self, kind: str) -> str | None:
        for k, text in self.metadata:
            if k == kind:
                return text
        return None

    def __str__(self) -> str:
        from enzyme_py.ir.printer import format_instruction

        return format_instruction(self)


class BinaryOp(Instruction):
    __slots__ = ()

    @property
    def lhs(self) -> Value:
        return self.operands[0]

    @property
    def rhs(self) -> Value:
        return self.operands[1]


class UnaryOp(Instruction):
    """`fneg`."""

    __slots__ = ()


class Cast(Instruction):
    __slots__ = ()


class Compare(Instruction):
    """`icmp` / `fcmp` with a predicate (`slt`, `olt`, ...)."""

    __slots__ = ("predicate",)

    def __init__(self, opcode: str, type: T.Type, predicate: str, lhs: Value, rhs: Value,
                 name: str | None = None, flags: tuple[str, ...] = ()) -> None:
        super().__init__(opcode, type, [lhs, rhs], name, flags)
        self.predicate = predicate


class Select(Instruction):
    __slots__ = ()


class Phi(Instruction):
    """`incoming_blocks[i]` pairs with `operands[i]`."""

    __slots__ = ("incoming_blocks",)

    def __init__(self, type: T.Type, name: str | None = None, flags: tuple[str, ...] = ()) -> None:
        super().__init__("phi", type, [], name, flags)
        self.incoming_blocks: list[Block] = []

    def add_incoming(self, value: Value, block: Block) -> None:
        self.operands.append(value)
        self.incoming_blocks.append(block)

    def incoming(self) -> list[tuple[Value, Block]]:
        return list(zip(self.operands, self.incoming_blocks, strict=True))

    def value_for(self, block: Block) -> Value:
        for v, b in zip(self.operands, self.incoming_blocks, strict=True):
            if b is block:
                return v
        raise KeyError(block.name)

    def remove_incoming(self, block: Block) -> None:
        keep = [(v, b) for v, b in self.incoming() if b is not block]
        self.operands = [v for v, _ in keep]
        self.incoming_blocks = [b for _, b in keep]

    def replace_block(self, old: Block, new: Block) -> None:
        self.incoming_blocks = [new if b is old else b for b in self.incoming_blocks]


class Alloca(Instruction):
    """`operands` is `[count]` or empty; `suffix` keeps `addrspace(N)` and the like."""

    __slots__ = ("allocated_type", "align", "suffix")

    def __init__(self, allocated_type: T.Type, count: Value | None = None,
                 align: int | None = None, name: str | None = None,
                 flags: tuple[str, ...] = (), suffix: tuple[str, ...] = ()) -> None:
        super().__init__("alloca", T.PTR, [count] if count is not None else [], name, flags)
        self.allocated_type = allocated_type
        self.align = align
        self.suffix = suffix


class MemoryAccess(Instruction):
    """Shared fields of `load` and `store`: alignment and the atomic ordering, if any."""

    __slots__ = ("align", "ordering", "syncscope")

    def __init__(self, opcode: str, type: T.Type, operands: list[Value], align: int | None,
                 name: str | None = None, flags: tuple[str, ...] = (),
                 ordering: str | None = None, syncscope: str | None = None) -> None:
        super().__init__(opcode, type, operands, name, flags)
        self.align = align
        self.ordering = ordering
        self.syncscope = syncscope


class Load(MemoryAccess):
    """`operands == [pointer]`; `type` is the loaded type."""

    __slots__ = ()

    @property
    def pointer(self) -> Value:
        return self.operands[0]


class Store(MemoryAccess):
    """`operands == [value, pointer]`."""

    __slots__ = ()

    @property
    def value(self) -> Value:
        return self.operands[0]

    @property
    def pointer(self) -> Value:
        return self.operands[1]


class GetElementPtr(Instruction):
    """`operands == [pointer, *indices]`; `source_type` is the indexed element type."""

    __slots__ = ("source_type",)

    def __init__(self, source_type: T.Type, type: T.Type, operands: list[Value],
                 name: str | None = None, flags: tuple[str, ...] = ()) -> None:
        super().__init__("getelementptr", type, operands, name, flags)
        self.source_type = source_type

    @property
    def pointer(self) -> Value:
        return self.operands[0]

    @property
    def indices(self) -> list[Value]:
        return self.operands[1:]


class Call(Instruction):
    """A call. `operands == [*args, callee]` (LLVM's order).

    `function_type` is the callee's type; `arg_attrs[i]` the attributes of argument i;
    `ret_attrs` the return attributes; `fn_attrs` the trailing attributes (`#3`, `nounwind`);
    `tail` is `""`, `"tail"`, `"musttail"` or `"notail"`; `cconv` a calling convention or `""`;
    `bundles` the operand bundles, kept as text.
    """

    __slots__ = ("function_type", "arg_attrs", "ret_attrs", "fn_attrs", "tail", "cconv",
                 "bundles")

    def __init__(self, function_type: T.FunctionType, callee: Value, args: list[Value],
                 name: str | None = None, flags: tuple[str, ...] = (),
                 arg_attrs: list[list[str]] | None = None, ret_attrs: list[str] | None = None,
                 fn_attrs: list[str] | None = None, tail: str = "", cconv: str = "",
                 bundles: str = "", opcode: str = "call") -> None:
        super().__init__(opcode, function_type.ret, [*args, callee], name, flags)
        self.function_type = function_type
        self.arg_attrs = arg_attrs if arg_attrs is not None else [[] for _ in args]
        self.ret_attrs = ret_attrs if ret_attrs is not None else []
        self.fn_attrs = fn_attrs if fn_attrs is not None else []
        self.tail = tail
        self.cconv = cconv
        self.bundles = bundles

    @property
    def callee(self) -> Value:
        return self.operands[-1]

    @property
    def args(self) -> list[Value]:
        return self.operands[:-1]

    @property
    def callee_name(self) -> str | None:
        """The called symbol's name for a direct call, else None."""
        from enzyme_py.ir.values import GlobalValue

        c = self.callee
        return c.name if isinstance(c, GlobalValue) else None


class Invoke(Call):
    """A call that may unwind: continues at `normal`, or at `unwind` on an exception."""

    __slots__ = ("normal", "unwind")

    def __init__(self, function_type: T.FunctionType, callee: Value, args: list[Value],
                 normal: Block, unwind: Block, **kw: object) -> None:
        super().__init__(function_type, callee, args, opcode="invoke", **kw)  # type: ignore[arg-type]
        self.normal = normal
        self.unwind = unwind

    def successors(self) -> list[Block]:
        return [self.normal, self.unwind]

    def replace_successor(self, old: Block, new: Block) -> None:
        if self.normal is old:
            self.normal = new
        if self.unwind is old:
            self.unwind = new


class Ret(Instruction):
    """`operands` is `[value]` or empty for `ret void`."""

    __slots__ = ()

    def __init__(self, value: Value | None = None) -> None:
        super().__init__("ret", T.VOID, [value] if value is not None else [])

    @property
    def value(self) -> Value | None:
        return self.operands[0] if self.operands else None


class Br(Instruction):
    """`br label %t` (no operands) or `br i1 %c, label %t, label %f`."""

    __slots__ = ("targets",)

    def __init__(self, targets: list[Block], condition: Value | None = None) -> None:
        super().__init__("br", T.VOID, [condition] if condition is not None else [])
        self.targets = targets

    @property
    def condition(self) -> Value | None:
        return self.operands[0] if self.operands else None

    @property
    def is_conditional(self) -> bool:
        return bool(self.operands)

    def successors(self) -> list[Block]:
        return list(self.targets)

    def replace_successor(self, old: Block, new: Block) -> None:
        self.targets = [new if b is old else b for b in self.targets]


class Switch(Instruction):
    """`operands == [condition]`; `cases` pairs a constant with its block."""

    __slots__ = ("default", "cases")

    def __init__(self, condition: Value, default: Block,
                 cases: list[tuple[Value, Block]] | None = None) -> None:
        super().__init__("switch", T.VOID, [condition])
        self.default = default
        self.cases = cases if cases is not None else []

    @property
    def condition(self) -> Value:
        return self.operands[0]

    def successors(self) -> list[Block]:
        return [self.default, *(b for _, b in self.cases)]

    def replace_successor(self, old: Block, new: Block) -> None:
        if self.default is old:
            self.default = new
        self.cases = [(v, new if b is old else b) for v, b in self.cases]


class IndirectBr(Instruction):
    __slots__ = ("targets",)

    def __init__(self, address: Value, targets: list[Block]) -> None:
        super().__init__("indirectbr", T.VOID, [address])
        self.targets = targets

    def successors(self) -> list[Block]:
        return list(self.targets)

    def replace_successor(self, old: Block, new: Block) -> None:
        self.targets = [new if b is old else b for b in self.targets]


class Unreachable(Instruction):
    __slots__ = ()

    def __init__(self) -> None:
        super().__init__("unreachable", T.VOID, [])


class Resume(Instruction):
    __slots__ = ()

    def __init__(self, value: Value) -> None:
        super().__init__("resume", T.VOID, [value])


class AggregateOp(Instruction):
    """`extractvalue` (operands `[agg]`) and `insertvalue` (operands `[agg, value]`)."""

    __slots__ = ("indices",)

    def __init__(self, opcode: str, type: T.Type, operands: list[Value],
                 indices: tuple[int, ...], name: str | None = None) -> None:
        super().__init__(opcode, type, operands, name)
        self.indices = indices


class VectorOp(Instruction):
    """`extractelement`, `insertelement`, `shufflevector` (mask is the last operand)."""

    __slots__ = ()


class Freeze(Instruction):
    __slots__ = ()


class VAArg(Instruction):
    __slots__ = ()


class AtomicRMW(Instruction):
    """`operands == [pointer, value]`; `operation` is `add`, `fadd`, `xchg` ..."""

    __slots__ = ("operation", "ordering", "syncscope", "align")

    def __init__(self, operation: str, type: T.Type, pointer: Value, value: Value,
                 ordering: str, align: int | None, syncscope: str | None = None,
                 name: str | None = None, flags: tuple[str, ...] = ()) -> None:
        super().__init__("atomicrmw", type, [pointer, value], name, flags)
        self.operation = operation
        self.ordering = ordering
        self.syncscope = syncscope
        self.align = align


class CmpXchg(Instruction):
    """`operands == [pointer, expected, new]`; result `{ T, i1 }`."""

    __slots__ = ("success_ordering", "failure_ordering", "syncscope", "align")

    def __init__(self, type: T.Type, operands: list[Value], success_ordering: str,
                 failure_ordering: str, align: int | None, syncscope: str | None = None,
                 name: str | None = None, flags: tuple[str, ...] = ()) -> None:
        super().__init__("cmpxchg", type, operands, name, flags)
        self.success_ordering = success_ordering
        self.failure_ordering = failure_ordering
        self.syncscope = syncscope
        self.align = align


class Fence(Instruction):
    __slots__ = ("ordering", "syncscope")

    def __init__(self, ordering: str, syncscope: str | None = None) -> None:
        super().__init__("fence", T.VOID, [])
        self.ordering = ordering
        self.syncscope = syncscope


class LandingPad(Instruction):
    """`clauses[i]` is `"catch"` or `"filter"` for `operands[i]`."""

    __slots__ = ("cleanup", "clauses")

    def __init__(self, type: T.Type, cleanup: bool, name: str | None = None) -> None:
        super().__init__("landingpad", type, [], name)
        self.cleanup = cleanup
        self.clauses: list[str] = []
