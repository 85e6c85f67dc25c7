"""Blocks, functions, global variables, aliases, and the module that owns them.

Invariants: a block's `instructions` end with its terminator once the function is complete; each
instruction's `parent` is the block holding it; a function with no blocks is a declaration.
Module-level text the AD never needs (attribute groups, metadata, comdats, module asm) is kept
verbatim and printed back unchanged. `str(module)` is LLVM text that llvmlite accepts.
"""

from __future__ import annotations

from collections.abc import Iterator

from enzyme_py.ir import types as T
from enzyme_py.ir.instructions import Instruction, Phi
from enzyme_py.ir.values import Argument, Constant, GlobalValue, Value


class Block(Value):
    """A basic block; a `label` value so it can be named like one."""

    __slots__ = ("instructions", "parent")

    def __init__(self, name: str | None = None, parent: Function | None = None) -> None:
        super().__init__(T.LABEL, name)
        self.instructions: list[Instruction] = []
        self.parent = parent

    @property
    def terminator(self) -> Instruction | None:
        if self.instructions and self.instructions[-1].is_terminator:
            return self.instructions[-1]
        return None

    def successors(self) -> list[Block]:
        term = self.terminator
        return term.successors() if term is not None else []

    def phis(self) -> list[Phi]:
        out = []
        for inst in self.instructions:
            if not isinstance(inst, Phi):
                break
            out.append(inst)
        return out

    def first_non_phi_index(self) -> int:
        for i, inst in enumerate(self.instructions):
            if not isinstance(inst, Phi):
                return i
        return len(self.instructions)

    def first_insertion_index(self) -> int:
        """Where code may go first: after the phis and a landing pad, which must lead."""
        i = self.first_non_phi_index()
        if i < len(self.instructions) and self.instructions[i].opcode == "landingpad":
            i += 1
        return i

    def append(self, inst: Instruction) -> Instruction:
        inst.parent = self
        self.instructions.append(inst)
        return inst

    def insert(self, index: int, inst: Instruction) -> Instruction:
        inst.parent = self
        self.instructions.insert(index, inst)
        return inst

    def remove(self, inst: Instruction) -> None:
        self.instructions.remove(inst)
        inst.parent = None

    def __repr__(self) -> str:
        return f"<Block {self.name or '?'}>"


class Function(GlobalValue):
    """A function definition (with blocks) or declaration (without).

    `prefix` holds linkage, visibility, calling convention words; `ret_attrs` the return
    attributes; `suffix` the words after the parameter list (`#0`, `local_unnamed_addr`,
    `comdat`, `align 2`, `!dbg !5` ...) as text; `personality` the personality function.
    """

    __slots__ = ("function_type", "args", "blocks", "ret_attrs", "suffix", "personality",
                 "parent")

    def __init__(self, name: str, function_type: T.FunctionType | None = None,
                 arg_names: list[str | None] | None = None) -> None:
        super().__init__(name)
        self.function_type = function_type or T.FunctionType(T.VOID, ())
        names = arg_names or [None] * len(self.function_type.params)
        self.args: list[Argument] = [
            Argument(t, n, parent=self, index=i)
            for i, (t, n) in enumerate(zip(self.function_type.params, names, strict=True))
        ]
        self.blocks: list[Block] = []
        self.ret_attrs: list[str] = []
        self.suffix: list[str] = []
        self.personality: Value | None = None
        self.parent: Module | None = None

    @property
    def is_declaration(self) -> bool:
        return not self.blocks

    @property
    def return_type(self) -> T.Type:
        return self.function_type.ret

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    def set_type(self, function_type: T.FunctionType, args: list[Argument]) -> None:
        self.function_type = function_type
        self.args = args
        for i, a in enumerate(args):
            a.parent = self
            a.index = i

    def append_block(self, name: str | None = None) -> Block:
        block = Block(name, self)
        self.blocks.append(block)
        return block

    def instructions(self) -> Iterator[Instruction]:
        for block in self.blocks:
            yield from block.instructions

    def replace_all_uses(self, old: Value, new: Value) -> None:
        """Replace `old` by `new` in every operand of this function."""
        for inst in self.instructions():
            inst.replace_operand(old, new)

    def attribute_words(self) -> list[str]:
        """Function attributes written inline or as `#N` group references."""
        return [w for w in self.suffix if w.startswith("#") or w.isidentifier()]


class GlobalVariable(GlobalValue):
    """`@g = [prefix] global|constant TYPE [INIT][, suffix...] [attrs]`."""

    __slots__ = ("value_type", "initializer", "is_constant", "suffix", "attrs", "parent")

    def __init__(self, name: str, value_type: T.Type | None = None,
                 initializer: Constant | None = None, is_constant: bool = False) -> None:
        super().__init__(name)
        self.value_type = value_type or T.I8
        self.initializer = initializer
        self.is_constant = is_constant
        self.suffix: list[str] = []  # comma-separated items: `section "s"`, `align 8`, `!dbg !3`
        self.attrs: list[str] = []  # trailing attribute group references (`#0`)
        self.parent: Module | None = None

    @property
    def align(self) -> int | None:
        for item in self.suffix:
            if item.startswith("align "):
                return int(item[6:])
        return None


class Alias(GlobalValue):
    """`@a = [prefix] alias TYPE, ptr @aliasee`."""

    __slots__ = ("value_type", "aliasee", "suffix", "parent")

    def __init__(self, name: str, value_type: T.Type | None = None,
                 aliasee: Constant | None = None) -> None:
        super().__init__(name)
        self.value_type = value_type or T.I8
        self.aliasee = aliasee
        self.suffix: list[str] = []
        self.parent: Module | None = None


class Module:
    """A translation unit.

    `functions`, `globals` and `aliases` keep source order; `types` maps identified struct
    names to their types in definition order; `symbols` maps every global name to its object.
    """

    def __init__(self, name: str = "module") -> None:
        self.name = name
        self.source_filename: str | None = None
        self.datalayout: str | None = None
        self.triple: str | None = None
        self.module_asm: list[str] = []
        self.types: dict[str, T.IdentifiedStructType] = {}
        self.comdats: list[str] = []
        self.globals: list[GlobalVariable] = []
        self.aliases: list[Alias] = []
        self.functions: list[Function] = []
        self.attribute_groups: dict[str, str] = {}
        self.named_metadata: list[str] = []
        self.metadata: list[str] = []
        self.symbols: dict[str, GlobalValue] = {}
        # What the transforms derived from functions of this module (gradients, split pairs,
        # tangents, shadows of globals), by a typed key: reused by later requests, and found
        # by recursive calls while still being built. Its typed view is `ad.derived`.
        self.derived: dict[object, object] = {}

    def __str__(self) -> str:
        from enzyme_py.ir.printer import format_module

        return format_module(self)

    def get_function(self, name: str) -> Function:
        sym = self.symbols.get(name)
        if not isinstance(sym, Function):
            known = ", ".join(f.name or "?" for f in self.functions if not f.is_declaration)
            raise KeyError(f"no function @{name} in module (defined: {known or 'none'})")
        return sym

    def get_global(self, name: str) -> GlobalVariable:
        sym = self.symbols.get(name)
        if not isinstance(sym, GlobalVariable):
            raise KeyError(f"no global variable @{name} in module")
        return sym

    def add_function(self, fn: Function) -> Function:
        self._add_symbol(fn)
        fn.parent = self
        self.functions.append(fn)
        return fn

    def add_global(self, gv: GlobalVariable) -> GlobalVariable:
        self._add_symbol(gv)
        gv.parent = self
        self.globals.append(gv)
        return gv

    def add_alias(self, alias: Alias) -> Alias:
        self._add_symbol(alias)
        alias.parent = self
        self.aliases.append(alias)
        return alias

    def _add_symbol(self, sym: GlobalValue) -> None:
        assert sym.name is not None
        if sym.name in self.symbols and self.symbols[sym.name] is not sym:
            raise ValueError(f"symbol @{sym.name} is already defined in the module")
        self.symbols[sym.name] = sym

    def declare_function(self, name: str, function_type: T.FunctionType,
                         prefix: list[str] | None = None) -> Function:
        """The function `name`, declared with `function_type` if the module lacks it."""
        existing = self.symbols.get(name)
        if isinstance(existing, Function):
            return existing
        fn = Function(name, function_type)
        if prefix:
            fn.prefix = list(prefix)
        return self.add_function(fn)

    def unique_name(self, base: str) -> str:
        """`base`, or `base.1`, `base.2` ... whichever is not yet a symbol."""
        if base not in self.symbols:
            return base
        i = 1
        while f"{base}.{i}" in self.symbols:
            i += 1
        return f"{base}.{i}"

    def fresh_metadata_number(self) -> int:
        """A number no `!N = ...` line of the module uses yet (one past the largest)."""
        used = [int(head[1:]) for line in self.metadata
                if (head := line.split("=", 1)[0].strip())[1:].isdigit()]
        return max(used, default=-1) + 1

    def get_or_create_struct(self, name: str) -> T.IdentifiedStructType:
        t = self.types.get(name)
        if t is None:
            t = T.IdentifiedStructType(name)
            self.types[name] = t
        return t
