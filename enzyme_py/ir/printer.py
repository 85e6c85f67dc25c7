"""Deterministic LLVM text for modules, functions and instructions.

Invariants: the output depends only on the IR (never on ids or dict order of anything but
insertion); anonymous locals are numbered `%0, %1, ...` in LLVM's order (arguments, then blocks
and value-producing instructions in program order); a name used by two locals of one function
is made unique with a `.N` suffix, in program order, so the text always parses back.
"""

from __future__ import annotations

from collections.abc import Callable

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Alias, Block, Function, GlobalVariable, Module
from enzyme_py.ir.names import ident
from enzyme_py.ir.values import Argument, Placeholder, Value


class Slots:
    """Printed names of one function's locals."""

    def __init__(self, fn: Function | None) -> None:
        self.names: dict[int, str] = {}
        self.next = 0
        self.used: set[str] = set()
        self.suffix: dict[str, int] = {}  # per base name: no smaller `.k` suffix is free
        if fn is None:
            return
        for arg in fn.args:
            self._assign(arg)
        for block in fn.blocks:
            self._assign(block)
            for inst in block.instructions:
                if not inst.type.is_void:
                    self._assign(inst)

    def _assign(self, v: Value) -> None:
        name = v.name
        if not name or name.isdigit():
            self.names[id(v)] = str(self.next)
            self.next += 1
            return
        if name in self.used:
            # the smallest free `.k` (names are only ever added, so a suffix found taken
            # stays taken: the search resumes where the last one for this base ended)
            i = self.suffix.get(name, 1)
            while f"{name}.{i}" in self.used:
                i += 1
            self.suffix[name] = i + 1
            name = f"{name}.{i}"
        self.used.add(name)
        self.names[id(v)] = ident(name)

    def local(self, v: Value) -> str:
        s = self.names.get(id(v))
        if s is not None:
            return "%" + s
        if isinstance(v, Placeholder):
            return v.key
        # A value from elsewhere (a bug in a transform): print something recognisable.
        return f"%<unattached {v.name or type(v).__name__}>"

    def block_label(self, b: Block) -> str:
        return self.names.get(id(b), "<unattached block>")


_LOCAL_KINDS = (Argument, I.Instruction, Block, Placeholder)


def block_ref_in(block: Block | None) -> str:
    """`%label` of a block in its own function's numbering (for `blockaddress`)."""
    if block is None:
        return "%<unresolved>"
    return Slots(block.parent).local(block)


class FunctionPrinter:
    def __init__(self, fn: Function | None) -> None:
        self.slots = Slots(fn)

    def ref(self, v: Value) -> str:
        if isinstance(v, _LOCAL_KINDS):
            return self.slots.local(v)
        return v.ref()

    def typed(self, v: Value) -> str:
        return f"{v.type} {self.ref(v)}"

    def label(self, b: Block) -> str:
        return f"label {self.slots.local(b)}"

    def instruction(self, inst: I.Instruction) -> str:
        body = _FORMATS[type(inst)](self, inst)
        if not inst.type.is_void:
            body = f"{self.slots.local(inst)} = {body}"
        for kind, text in inst.metadata:
            body += f", !{kind} {text}"
        return body

    def function(self, fn: Function) -> str:
        is_decl = fn.is_declaration
        params = []
        for arg in fn.args:
            parts = [str(arg.type), *arg.attrs]
            if not is_decl or arg.name:
                parts.append(self.slots.local(arg))
            params.append(" ".join(parts))
        if fn.function_type.vararg:
            params.append("...")
        md = [w for w in fn.suffix if w.startswith("!")]
        # A declaration's metadata goes right after `declare`; a definition's before `{`.
        head = ["declare", *md] if is_decl else ["define"]
        head += [*fn.prefix, *fn.ret_attrs, str(fn.return_type),
                 f"{fn.ref()}({', '.join(params)})"]
        head.extend(w for w in fn.suffix if not w.startswith("!"))
        if fn.personality is not None:
            head.append(f"personality {self.typed(fn.personality)}")
        if is_decl:
            return " ".join(head) + "\n"
        head.extend(md)
        lines = [" ".join(head) + " {"]
        for i, block in enumerate(fn.blocks):
            if i > 0:
                lines.append("")
            if i > 0 or (block.name and not block.name.isdigit()):
                lines.append(self.slots.block_label(block) + ":")
            for inst in block.instructions:
                lines.extend(f"    {rec}" for rec in inst.dbg_records)
                lines.append("  " + self.instruction(inst))
        lines.append("}")
        return "\n".join(lines) + "\n"


def _flags(inst: I.Instruction) -> str:
    return "".join(f" {f}" for f in inst.flags)


def _binary(p: FunctionPrinter, inst: I.Instruction) -> str:
    a, b = inst.operands
    return f"{inst.opcode}{_flags(inst)} {a.type} {p.ref(a)}, {p.ref(b)}"


def _unary(p: FunctionPrinter, inst: I.Instruction) -> str:
    return f"{inst.opcode}{_flags(inst)} {p.typed(inst.operands[0])}"


def _cast(p: FunctionPrinter, inst: I.Instruction) -> str:
    return f"{inst.opcode}{_flags(inst)} {p.typed(inst.operands[0])} to {inst.type}"


def _compare(p: FunctionPrinter, inst: I.Compare) -> str:
    a, b = inst.operands
    return f"{inst.opcode}{_flags(inst)} {inst.predicate} {a.type} {p.ref(a)}, {p.ref(b)}"


def _select(p: FunctionPrinter, inst: I.Instruction) -> str:
    return f"select{_flags(inst)} " + ", ".join(p.typed(o) for o in inst.operands)


def _phi(p: FunctionPrinter, inst: I.Phi) -> str:
    pairs = ", ".join(f"[ {p.ref(v)}, {p.slots.local(b)} ]"
                      for v, b in zip(inst.operands, inst.incoming_blocks, strict=True))
    return f"phi{_flags(inst)} {inst.type} {pairs}"


def _align(align: int | None) -> str:
    return f", align {align}" if align is not None else ""


def _atomic(ordering: str | None, syncscope: str | None) -> str:
    out = f' syncscope("{syncscope}")' if syncscope is not None else ""
    return out + (f" {ordering}" if ordering else "")


def _alloca(p: FunctionPrinter, inst: I.Alloca) -> str:
    out = f"alloca{_flags(inst)} {inst.allocated_type}"
    if inst.operands:
        out += f", {p.typed(inst.operands[0])}"
    out += _align(inst.align)
    return out + "".join(f", {s}" for s in inst.suffix)


def _load(p: FunctionPrinter, inst: I.Load) -> str:
    return (f"load{_flags(inst)} {inst.type}, {p.typed(inst.operands[0])}"
            f"{_atomic(inst.ordering, inst.syncscope)}{_align(inst.align)}")


def _store(p: FunctionPrinter, inst: I.Store) -> str:
    v, ptr = inst.operands
    return (f"store{_flags(inst)} {p.typed(v)}, {p.typed(ptr)}"
            f"{_atomic(inst.ordering, inst.syncscope)}{_align(inst.align)}")


def _gep(p: FunctionPrinter, inst: I.GetElementPtr) -> str:
    ops = ", ".join(p.typed(o) for o in inst.operands)
    return f"getelementptr{_flags(inst)} {inst.source_type}, {ops}"


def _call_body(p: FunctionPrinter, inst: I.Call) -> str:
    ft = inst.function_type
    args = []
    for arg, attrs in zip(inst.args, inst.arg_attrs, strict=True):
        args.append(" ".join([str(arg.type), *attrs, p.ref(arg)]))
    words = [w for w in (inst.cconv, *inst.ret_attrs) if w]
    words.append(str(ft) if ft.vararg else str(ft.ret))
    words.append(f"{p.ref(inst.callee)}({', '.join(args)})")
    words.extend(inst.fn_attrs)
    if inst.bundles:
        words.append(inst.bundles)
    return " ".join(words)


def _call(p: FunctionPrinter, inst: I.Call) -> str:
    tail = f"{inst.tail} " if inst.tail else ""
    return f"{tail}call{_flags(inst)} {_call_body(p, inst)}"


def _invoke(p: FunctionPrinter, inst: I.Invoke) -> str:
    return (f"invoke{_flags(inst)} {_call_body(p, inst)}\n"
            f"          to {p.label(inst.normal)} unwind {p.label(inst.unwind)}")


def _ret(p: FunctionPrinter, inst: I.Ret) -> str:
    return f"ret {p.typed(inst.operands[0])}" if inst.operands else "ret void"


def _br(p: FunctionPrinter, inst: I.Br) -> str:
    if inst.operands:
        t, f = inst.targets
        return f"br {p.typed(inst.operands[0])}, {p.label(t)}, {p.label(f)}"
    return f"br {p.label(inst.targets[0])}"


def _switch(p: FunctionPrinter, inst: I.Switch) -> str:
    lines = [f"switch {p.typed(inst.operands[0])}, {p.label(inst.default)} ["]
    lines.extend(f"    {p.typed(v)}, {p.label(b)}" for v, b in inst.cases)
    lines.append("  ]")
    return "\n".join(lines)


def _indirectbr(p: FunctionPrinter, inst: I.IndirectBr) -> str:
    labels = ", ".join(p.label(b) for b in inst.targets)
    return f"indirectbr {p.typed(inst.operands[0])}, [{labels}]"


def _unreachable(p: FunctionPrinter, inst: I.Instruction) -> str:
    return "unreachable"


def _resume(p: FunctionPrinter, inst: I.Instruction) -> str:
    return f"resume {p.typed(inst.operands[0])}"


def _aggregate(p: FunctionPrinter, inst: I.AggregateOp) -> str:
    ops = ", ".join(p.typed(o) for o in inst.operands)
    return f"{inst.opcode} {ops}, " + ", ".join(str(i) for i in inst.indices)


def _vector(p: FunctionPrinter, inst: I.Instruction) -> str:
    return f"{inst.opcode} " + ", ".join(p.typed(o) for o in inst.operands)


def _vaarg(p: FunctionPrinter, inst: I.Instruction) -> str:
    return f"va_arg {p.typed(inst.operands[0])}, {inst.type}"


def _atomicrmw(p: FunctionPrinter, inst: I.AtomicRMW) -> str:
    ptr, val = inst.operands
    return (f"atomicrmw{_flags(inst)} {inst.operation} {p.typed(ptr)}, {p.typed(val)}"
            f"{_atomic(inst.ordering, inst.syncscope)}{_align(inst.align)}")


def _cmpxchg(p: FunctionPrinter, inst: I.CmpXchg) -> str:
    ops = ", ".join(p.typed(o) for o in inst.operands)
    order = f"{inst.success_ordering} {inst.failure_ordering}"
    return f"cmpxchg{_flags(inst)} {ops}{_atomic(order, inst.syncscope)}{_align(inst.align)}"


def _fence(p: FunctionPrinter, inst: I.Fence) -> str:
    return f"fence{_atomic(inst.ordering, inst.syncscope)}"


def _landingpad(p: FunctionPrinter, inst: I.LandingPad) -> str:
    lines = [f"landingpad {inst.type}"]
    if inst.cleanup:
        lines.append("          cleanup")
    lines.extend(f"          {kind} {p.typed(v)}"
                 for kind, v in zip(inst.clauses, inst.operands, strict=True))
    return "\n".join(lines)


_FORMATS: dict[type, Callable] = {
    I.BinaryOp: _binary, I.UnaryOp: _unary, I.Cast: _cast, I.Compare: _compare,
    I.Select: _select, I.Phi: _phi, I.Alloca: _alloca, I.Load: _load, I.Store: _store,
    I.GetElementPtr: _gep, I.Call: _call, I.Invoke: _invoke, I.Ret: _ret, I.Br: _br,
    I.Switch: _switch, I.IndirectBr: _indirectbr, I.Unreachable: _unreachable,
    I.Resume: _resume, I.AggregateOp: _aggregate, I.VectorOp: _vector, I.Freeze: _unary,
    I.VAArg: _vaarg, I.AtomicRMW: _atomicrmw, I.CmpXchg: _cmpxchg, I.Fence: _fence,
    I.LandingPad: _landingpad,
}


def format_instruction(inst: I.Instruction) -> str:
    """One instruction as LLVM text, numbered as in its function (for messages and tests)."""
    return FunctionPrinter(inst.function).instruction(inst)


def format_function(fn: Function) -> str:
    return FunctionPrinter(fn).function(fn)


def format_global(gv: GlobalVariable) -> str:
    words = [f"{gv.ref()} =", *gv.prefix, "constant" if gv.is_constant else "global",
             str(gv.value_type)]
    if gv.initializer is not None:
        words.append(gv.initializer.ref())
    text = " ".join(words) + "".join(f", {s}" for s in gv.suffix)
    return text + "".join(f" {a}" for a in gv.attrs)


def format_alias(alias: Alias) -> str:
    assert alias.aliasee is not None
    words = [f"{alias.ref()} =", *alias.prefix, "alias", f"{alias.value_type},",
             f"{alias.aliasee.type} {alias.aliasee.ref()}"]
    return " ".join(words) + "".join(f", {s}" for s in alias.suffix)


def format_type_definition(t: T.IdentifiedStructType) -> str:
    return f"%{ident(t.name)} = type {t.body_text()}"


def format_module(m: Module) -> str:
    """The whole module; sections in LLVM's order, separated by blank lines."""
    head = [f"; ModuleID = '{m.name}'"]
    if m.source_filename is not None:
        head.append(f'source_filename = "{m.source_filename}"')
    if m.datalayout is not None:
        head.append(f'target datalayout = "{m.datalayout}"')
    if m.triple is not None:
        head.append(f'target triple = "{m.triple}"')
    sections = ["\n".join(head)]
    if m.module_asm:
        sections.append("\n".join(m.module_asm))
    if m.types:
        sections.append("\n".join(format_type_definition(t) for t in m.types.values()))
    if m.comdats:
        sections.append("\n".join(m.comdats))
    if m.globals:
        sections.append("\n".join(format_global(g) for g in m.globals))
    if m.aliases:
        sections.append("\n".join(format_alias(a) for a in m.aliases))
    sections.extend(format_function(f).rstrip("\n") for f in m.functions)
    if m.attribute_groups:
        sections.append("\n".join(m.attribute_groups.values()))
    if m.named_metadata:
        sections.append("\n".join(m.named_metadata))
    if m.metadata:
        sections.append("\n".join(m.metadata))
    return "\n\n".join(sections) + "\n"
