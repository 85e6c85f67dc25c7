"""Parser for function bodies: blocks, instructions, forward references.

Invariants: anonymous values (`%5`, `5:`) get `name=None` (the printer renumbers them); a local
used before its definition is a `Placeholder` until the function ends, then replaced; a use
whose type disagrees with the definition, an undefined local, or an undefined block is a
`ParseError` at the use. Every instruction gets `loc`, the file name given to `parse` and the
line it starts on.
"""

from __future__ import annotations

from collections.abc import Callable

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.location import SourceLoc
from enzyme_py.ir.module import Block, Function
from enzyme_py.ir.parse_base import ParserBase, _name_of
from enzyme_py.ir.values import Placeholder, Value

_ORDERINGS = frozenset({"unordered", "monotonic", "acquire", "release", "acq_rel", "seq_cst"})
_INT_FLAGS = frozenset({"nuw", "nsw", "exact", "disjoint", "nneg", "samesign"})
_FMF = frozenset(I.FAST_MATH_FLAGS)
_MEM_FLAGS = frozenset({"volatile", "atomic", "inalloca", "swifterror", "weak"})
_GEP_FLAGS = frozenset({"inbounds", "nuw", "nusw"})
_CALL_STOP = frozenset({"to"})


class FunctionBodyParser(ParserBase):
    """Adds function-body parsing to the base parser; one function at a time."""

    fn: Function
    locals: dict[str, Value]
    forward: dict[str, Placeholder]
    blocks: dict[str, Block]
    defined_blocks: set[str]
    block_uses: dict[str, int]
    next_slot: int

    # --- locals -----------------------------------------------------------------------------

    def parse_local(self, ty: T.Type) -> Value:
        t = self.texts[self.i]
        key = _name_of(t)
        v = self.locals.get(key)
        if v is None:
            v = self.forward.get(key)
            if v is None:
                v = Placeholder(ty, t, self.i)
                self.forward[key] = v
        if v.type != ty and not isinstance(v.type, T.LabelType):
            self.error(f"'{t}' has type {v.type} but is used as {ty}")
        self.i += 1
        return v

    def define_local(self, key: str, value: Value, at: int) -> None:
        if key in self.locals:
            self.error(f"redefinition of '%{key}'", at=at)
        if key.isdigit():
            if int(key) != self.next_slot:
                self.error(f"instruction expected to be numbered '%{self.next_slot}'", at=at)
            self.next_slot += 1
        self.locals[key] = value
        ph = self.forward.pop(key, None)
        if ph is not None:
            if ph.type != value.type:
                self.error(f"'%{key}' defined with type {value.type} but used as {ph.type}",
                           at=ph.pos)
            self.replacements[ph] = value

    replacements: dict[Placeholder, Value]

    def block_ref(self, key: str) -> Block:
        b = self.blocks.get(key)
        if b is None:
            b = Block(None if key.isdigit() else key, self.fn)
            self.blocks[key] = b
            self.block_uses[key] = self.i - 1  # callers have just consumed the label
        return b

    def parse_label(self) -> Block:
        self.expect("label")
        t = self.expect_kind("local", "block label")
        return self.block_ref(_name_of(t))

    # --- function body ----------------------------------------------------------------------

    def parse_body(self, fn: Function) -> None:
        """Parse `{ blocks }` into `fn`; arguments are already in `self.locals`."""
        self.fn = fn
        self.expect("{")
        self.replacements = {}
        block: Block | None = None
        pending_dbg: list[str] = []
        while True:
            k, t = self.kinds[self.i], self.texts[self.i]
            if k == "label":
                key = _name_of(t)
                if key in self.defined_blocks:
                    self.error(f"redefinition of block '{key}'")
                if key.isdigit():
                    if int(key) != self.next_slot:
                        self.error(f"label expected to be numbered '{self.next_slot}'")
                    self.next_slot += 1
                block = self.block_ref(key)
                self.defined_blocks.add(key)
                fn.blocks.append(block)
                self.i += 1
                continue
            if t == "}" and k == "punct":
                self.i += 1
                break
            if k == "eof":
                self.error("expected '}' at end of function")
            if block is None:
                key = str(self.next_slot)
                self.next_slot += 1
                block = self.block_ref(key)
                self.defined_blocks.add(key)
                fn.blocks.append(block)
            if k == "dbgrec":
                start = self.i
                self.i += 1
                if self.peek() != "(":
                    self.error("expected '(' after debug record")
                self.skip_balanced()
                pending_dbg.append(self.slice_text(start, self.i))
                continue
            inst = self.parse_instruction()
            if pending_dbg:
                inst.dbg_records = pending_dbg
                pending_dbg = []
            block.append(inst)
        if not fn.blocks:
            self.error("function body has no blocks")
        self._finish_function()

    def _finish_function(self) -> None:
        for key, ph in self.forward.items():
            self.error(f"use of undefined value '%{key}'", at=ph.pos)
        for key in self.blocks:
            if key not in self.defined_blocks:
                self.error(f"use of undefined block '%{key}'", at=self.block_uses[key])
        if self.replacements:
            rep = self.replacements
            for inst in self.fn.instructions():
                ops = inst.operands
                for j, op in enumerate(ops):
                    if isinstance(op, Placeholder):
                        ops[j] = rep[op]

    def parse_instruction(self) -> I.Instruction:
        name_key: str | None = None
        name_at = self.i
        if self.kinds[self.i] == "local" and self.texts[self.i + 1] == "=":
            name_key = _name_of(self.texts[self.i])
            self.i += 2
        op_at = self.i
        opcode = self.expect_kind("word", "an instruction")
        handler = _HANDLERS.get(opcode)
        if handler is None:
            if opcode in I.BINARY_OPS:
                handler = FunctionBodyParser._binary
            elif opcode in I.CAST_OPS:
                handler = FunctionBodyParser._cast
            else:
                self.error(f"unknown or unsupported instruction '{opcode}'", at=op_at)
        inst = handler(self, opcode)
        inst.loc = SourceLoc(self.filename, self.line_at(self.offsets[name_at]))
        while self.texts[self.i] == "," and self.kinds[self.i + 1] == "meta":
            self.i += 1
            kind = self.next()[1:]
            inst.metadata.append((kind, self._metadata_text()))
        if name_key is not None:
            if inst.type.is_void:
                self.error("instructions returning void cannot have a name", at=name_at)
            inst.name = None if name_key.isdigit() else name_key
            self.define_local(name_key, inst, name_at)
        elif not inst.type.is_void and not (isinstance(inst, I.Call)):
            self.error("this instruction produces a value and needs a name", at=name_at)
        elif not inst.type.is_void:
            self.next_slot += 1  # an unnamed call result still takes a slot number
        return inst

    def _flags(self, allowed: frozenset[str]) -> tuple[str, ...]:
        out = []
        while self.kinds[self.i] == "word" and self.texts[self.i] in allowed:
            out.append(self.next())
        return tuple(out)

    def _align(self) -> int | None:
        if self.texts[self.i] == "," and self.texts[self.i + 1] == "align":
            self.i += 2
            align = self.expect_int("alignment")
            if align <= 0 or align & (align - 1):  # LLVM's rules (LLParser::parseAlignment)
                self.error("alignment is not a power of two", at=self.i - 1)
            if align > 1 << 32:
                self.error("huge alignments are not supported yet", at=self.i - 1)
            return align
        return None

    # --- handlers ---------------------------------------------------------------------------

    def _binary(self, op: str) -> I.Instruction:
        flags = self._flags(_FMF if op in I.FLOAT_BINARY_OPS else _INT_FLAGS)
        ty = self.parse_type()
        a = self.parse_value(ty)
        self.expect(",")
        b = self.parse_value(ty)
        return I.BinaryOp(op, ty, [a, b], flags=flags)

    def _fneg(self, op: str) -> I.Instruction:
        flags = self._flags(_FMF)
        v = self.parse_typed_value()
        return I.UnaryOp(op, v.type, [v], flags=flags)

    def _cast(self, op: str) -> I.Instruction:
        flags = self._flags(_INT_FLAGS | _FMF)
        v = self.parse_typed_value()
        self.expect("to")
        return I.Cast(op, self.parse_type(), [v], flags=flags)

    def _compare(self, op: str) -> I.Instruction:
        flags = self._flags(_FMF | _INT_FLAGS)
        pred = self.expect_kind("word", "comparison predicate")
        ty = self.parse_type()
        a = self.parse_value(ty)
        self.expect(",")
        b = self.parse_value(ty)
        rt: T.Type = T.I1
        if isinstance(ty, T.VectorType):
            rt = T.VectorType(ty.count, T.I1, ty.scalable)
        return I.Compare(op, rt, pred, a, b, flags=flags)

    def _select(self, op: str) -> I.Instruction:
        flags = self._flags(_FMF)
        c = self.parse_typed_value()
        self.expect(",")
        a = self.parse_typed_value()
        self.expect(",")
        b = self.parse_typed_value()
        return I.Select("select", a.type, [c, a, b], flags=flags)

    def _phi(self, op: str) -> I.Instruction:
        flags = self._flags(_FMF)
        ty = self.parse_type()
        phi = I.Phi(ty, flags=flags)
        while True:
            self.expect("[")
            v = self.parse_value(ty)
            self.expect(",")
            label = self.expect_kind("local", "block label")
            phi.add_incoming(v, self.block_ref(_name_of(label)))
            self.expect("]")
            if not (self.texts[self.i] == "," and self.texts[self.i + 1] == "["):
                return phi
            self.i += 1

    def _alloca(self, op: str) -> I.Instruction:
        flags = self._flags(_MEM_FLAGS)
        ty = self.parse_type()
        count = None
        align = None
        suffix: list[str] = []
        while self.texts[self.i] == "," and self.kinds[self.i + 1] != "meta":
            self.i += 1
            if self.peek() == "align":
                self.i += 1
                align = self.expect_int("alignment")
            elif self.peek() == "addrspace":
                s = self.i
                self.i += 1
                self.skip_balanced()
                suffix.append(self.slice_text(s, self.i))
            else:
                count = self.parse_typed_value()
        return I.Alloca(ty, count, align, flags=flags, suffix=tuple(suffix))

    def _ordering(self) -> tuple[str | None, str | None]:
        scope = None
        if self.peek() == "syncscope":
            self.i += 1
            self.expect("(")
            scope = self.expect_kind("string", "sync scope")[1:-1]
            self.expect(")")
        ordering = self.next() if self.peek() in _ORDERINGS else None
        return ordering, scope

    def _load(self, op: str) -> I.Instruction:
        flags = self._flags(_MEM_FLAGS)
        ty = self.parse_type()
        self.expect(",")
        ptr = self.parse_typed_value()
        ordering, scope = self._ordering()
        return I.Load("load", ty, [ptr], self._align(), flags=flags, ordering=ordering,
                      syncscope=scope)

    def _store(self, op: str) -> I.Instruction:
        flags = self._flags(_MEM_FLAGS)
        v = self.parse_typed_value()
        self.expect(",")
        ptr = self.parse_typed_value()
        ordering, scope = self._ordering()
        return I.Store("store", T.VOID, [v, ptr], self._align(), flags=flags,
                       ordering=ordering, syncscope=scope)

    def _gep(self, op: str) -> I.Instruction:
        flags = self._flags(_GEP_FLAGS)
        src = self.parse_type()
        self.expect(",")
        ops = [self.parse_typed_value()]
        while self.texts[self.i] == "," and self.kinds[self.i + 1] != "meta":
            self.i += 1
            ops.append(self.parse_typed_value())
        ty = ops[0].type
        for idx in ops[1:]:
            if isinstance(idx.type, T.VectorType) and not isinstance(ty, T.VectorType):
                ty = T.VectorType(idx.type.count, T.PTR, idx.type.scalable)
        return I.GetElementPtr(src, ty, ops, flags=flags)

    def _call(self, op: str, tail: str = "") -> I.Instruction:
        if op in ("tail", "musttail", "notail"):
            tail = op
            self.expect("call")
        return self._call_like("call", tail)

    def _call_like(self, op: str, tail: str) -> I.Call:
        flags = self._flags(_FMF)
        cconv = ""
        if self.kinds[self.i] == "word" and (self.peek().endswith("cc") or self.peek() == "cc"):
            s = self.i
            self.i += 2 if self.peek() == "cc" else 1
            cconv = self.slice_text(s, self.i)
        ret_attrs = []
        while not self.at_type():
            attrs = self.parse_attributes()
            if not attrs:
                self.error("expected a return type")
            ret_attrs.extend(attrs)
        ty = self.parse_type(allow_function=True)
        callee_at = self.i
        callee = self.parse_value(T.PTR)
        self.expect("(")
        args: list[Value] = []
        arg_attrs: list[list[str]] = []
        if not self.accept(")"):
            while True:
                aty = self.parse_type()
                arg_attrs.append(self.parse_attributes())
                args.append(self.parse_value(aty))
                if not self.accept(","):
                    break
            self.expect(")")
        if isinstance(ty, T.FunctionType):
            ftype = ty
            if len(args) < len(ftype.params) or (len(args) > len(ftype.params)
                                                   and not ftype.vararg):
                self.error("argument count does not match the function type", at=callee_at)
        else:
            ftype = T.FunctionType(ty, tuple(a.type for a in args), False)
        fn_attrs = self.parse_attributes(_CALL_STOP, same_line=True)
        bundles = ""
        if self.peek() == "[":
            s = self.skip_balanced()
            bundles = self.slice_text(s, self.i)
        if op == "invoke":
            self.expect("to")
            normal = self.parse_label()
            self.expect("unwind")
            unwind = self.parse_label()
            return I.Invoke(ftype, callee, args, normal, unwind, flags=flags,
                            arg_attrs=arg_attrs, ret_attrs=ret_attrs, fn_attrs=fn_attrs,
                            cconv=cconv, bundles=bundles)
        return I.Call(ftype, callee, args, flags=flags, arg_attrs=arg_attrs,
                      ret_attrs=ret_attrs, fn_attrs=fn_attrs, tail=tail, cconv=cconv,
                      bundles=bundles)

    def _invoke(self, op: str) -> I.Instruction:
        return self._call_like("invoke", "")

    def _ret(self, op: str) -> I.Instruction:
        if self.accept("void"):
            return I.Ret()
        return I.Ret(self.parse_typed_value())

    def _br(self, op: str) -> I.Instruction:
        if self.peek() == "label":
            return I.Br([self.parse_label()])
        cond = self.parse_typed_value()
        self.expect(",")
        t = self.parse_label()
        self.expect(",")
        f = self.parse_label()
        return I.Br([t, f], cond)

    def _switch(self, op: str) -> I.Instruction:
        cond = self.parse_typed_value()
        self.expect(",")
        default = self.parse_label()
        self.expect("[")
        cases = []
        while not self.accept("]"):
            v = self.parse_typed_value()
            self.expect(",")
            cases.append((v, self.parse_label()))
        return I.Switch(cond, default, cases)

    def _indirectbr(self, op: str) -> I.Instruction:
        addr = self.parse_typed_value()
        self.expect(",")
        self.expect("[")
        targets = []
        if not self.accept("]"):
            targets.append(self.parse_label())
            while self.accept(","):
                targets.append(self.parse_label())
            self.expect("]")
        return I.IndirectBr(addr, targets)

    def _unreachable(self, op: str) -> I.Instruction:
        return I.Unreachable()

    def _resume(self, op: str) -> I.Instruction:
        return I.Resume(self.parse_typed_value())

    def _indices(self) -> tuple[int, ...]:
        out = []
        while self.texts[self.i] == "," and self.kinds[self.i + 1] == "int":
            self.i += 1
            out.append(self.expect_int())
        if not out:
            self.error("expected an aggregate index")
        return tuple(out)

    def _extractvalue(self, op: str) -> I.Instruction:
        agg = self.parse_typed_value()
        idx = self._indices()
        ty = agg.type
        for j in idx:
            ty = self._index_type(ty, j)
        return I.AggregateOp(op, ty, [agg], idx)

    def _index_type(self, ty: T.Type, j: int) -> T.Type:
        try:
            return T.element_type_at(ty, j)
        except (TypeError, IndexError):
            self.error(f"invalid aggregate index {j} into {ty}")

    def _insertvalue(self, op: str) -> I.Instruction:
        agg = self.parse_typed_value()
        self.expect(",")
        v = self.parse_typed_value()
        idx = self._indices()
        return I.AggregateOp(op, agg.type, [agg, v], idx)

    def _extractelement(self, op: str) -> I.Instruction:
        vec = self.parse_typed_value()
        self.expect(",")
        idx = self.parse_typed_value()
        if not isinstance(vec.type, T.VectorType):
            self.error(f"extractelement needs a vector, got {vec.type}")
        return I.VectorOp(op, vec.type.element, [vec, idx])

    def _insertelement(self, op: str) -> I.Instruction:
        vec = self.parse_typed_value()
        self.expect(",")
        v = self.parse_typed_value()
        self.expect(",")
        idx = self.parse_typed_value()
        return I.VectorOp(op, vec.type, [vec, v, idx])

    def _shufflevector(self, op: str) -> I.Instruction:
        a = self.parse_typed_value()
        self.expect(",")
        b = self.parse_typed_value()
        self.expect(",")
        mask = self.parse_typed_value()
        if not isinstance(a.type, T.VectorType) or not isinstance(mask.type, T.VectorType):
            self.error("shufflevector needs vector operands")
        ty = T.VectorType(mask.type.count, a.type.element, mask.type.scalable)
        return I.VectorOp(op, ty, [a, b, mask])

    def _freeze(self, op: str) -> I.Instruction:
        v = self.parse_typed_value()
        return I.Freeze(op, v.type, [v])

    def _va_arg(self, op: str) -> I.Instruction:
        ptr = self.parse_typed_value()
        self.expect(",")
        return I.VAArg(op, self.parse_type(), [ptr])

    def _atomicrmw(self, op: str) -> I.Instruction:
        flags = self._flags(frozenset({"volatile"}))
        operation = self.expect_kind("word", "atomicrmw operation")
        ptr = self.parse_typed_value()
        self.expect(",")
        v = self.parse_typed_value()
        ordering, scope = self._ordering()
        if ordering is None:
            self.error("expected an atomic ordering")
        return I.AtomicRMW(operation, v.type, ptr, v, ordering, self._align(), scope,
                           flags=flags)

    def _cmpxchg(self, op: str) -> I.Instruction:
        flags = self._flags(frozenset({"weak", "volatile"}))
        ptr = self.parse_typed_value()
        self.expect(",")
        cmp = self.parse_typed_value()
        self.expect(",")
        new = self.parse_typed_value()
        success, scope = self._ordering()
        failure = self.next() if self.peek() in _ORDERINGS else None
        if success is None or failure is None:
            self.error("expected success and failure orderings")
        ty = T.StructType((cmp.type, T.I1))
        return I.CmpXchg(ty, [ptr, cmp, new], success, failure, self._align(), scope,
                         flags=flags)

    def _fence(self, op: str) -> I.Instruction:
        ordering, scope = self._ordering()
        if ordering is None:
            self.error("expected an atomic ordering")
        return I.Fence(ordering, scope)

    def _landingpad(self, op: str) -> I.Instruction:
        ty = self.parse_type()
        pad = I.LandingPad(ty, cleanup=self.accept("cleanup"))
        while self.peek() in ("catch", "filter"):
            pad.clauses.append(self.next())
            pad.operands.append(self.parse_typed_value())
        return pad


_HANDLERS: dict[str, Callable[[FunctionBodyParser, str], I.Instruction]] = {
    "fneg": FunctionBodyParser._fneg,
    "icmp": FunctionBodyParser._compare,
    "fcmp": FunctionBodyParser._compare,
    "select": FunctionBodyParser._select,
    "phi": FunctionBodyParser._phi,
    "alloca": FunctionBodyParser._alloca,
    "load": FunctionBodyParser._load,
    "store": FunctionBodyParser._store,
    "getelementptr": FunctionBodyParser._gep,
    "call": FunctionBodyParser._call,
    "tail": FunctionBodyParser._call,
    "musttail": FunctionBodyParser._call,
    "notail": FunctionBodyParser._call,
    "invoke": FunctionBodyParser._invoke,
    "ret": FunctionBodyParser._ret,
    "br": FunctionBodyParser._br,
    "switch": FunctionBodyParser._switch,
    "indirectbr": FunctionBodyParser._indirectbr,
    "unreachable": FunctionBodyParser._unreachable,
    "resume": FunctionBodyParser._resume,
    "extractvalue": FunctionBodyParser._extractvalue,
    "insertvalue": FunctionBodyParser._insertvalue,
    "extractelement": FunctionBodyParser._extractelement,
    "insertelement": FunctionBodyParser._insertelement,
    "shufflevector": FunctionBodyParser._shufflevector,
    "freeze": FunctionBodyParser._freeze,
    "va_arg": FunctionBodyParser._va_arg,
    "atomicrmw": FunctionBodyParser._atomicrmw,
    "cmpxchg": FunctionBodyParser._cmpxchg,
    "fence": FunctionBodyParser._fence,
    "landingpad": FunctionBodyParser._landingpad,
}
