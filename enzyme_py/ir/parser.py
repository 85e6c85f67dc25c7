"""Parser for the LLVM text that LLVM 22 prints (clang-22, llvmlite).

Invariants: `parse(text)` returns a `Module` or raises `ParseError` (never another exception);
`str(parse(text))` is accepted by LLVM and means the same as `text`. Every global symbol is
created by a pre-scan, so globals and functions may be used before their definition.
Metadata definitions, attribute groups and comdats are kept verbatim.
"""

from __future__ import annotations

import re

from enzyme_py.ir import types as T
from enzyme_py.ir.errors import ParseError
from enzyme_py.ir.module import Alias, Function, GlobalVariable, Module
from enzyme_py.ir.names import unescape
from enzyme_py.ir.parse_base import _name_of
from enzyme_py.ir.parse_instructions import FunctionBodyParser
from enzyme_py.ir.values import Argument, GlobalValue, Value, global_pointer_type

_GLOBAL_NAME = r'(?:[-a-zA-Z$._][-a-zA-Z$._0-9]*|[0-9]+|"[^"\n]*")'
_TYPE_SCAN = re.compile(r"^%(" + _GLOBAL_NAME + r")[ \t]*=[ \t]*type\b", re.MULTILINE)
_SCAN = re.compile(
    r"^(?:@(" + _GLOBAL_NAME + r")[ \t]*=[ \t]*(?:[\w.]+(?:\([^)\n]*\))?[ \t]+)*?"
    r"(alias|ifunc|global|constant)\b"
    r"|(?:define|declare)\b[^\n]*?@(" + _GLOBAL_NAME + r")\()",
    re.MULTILINE,
)
_SUFFIX_KEYWORDS = frozenset({"personality", "prefix", "prologue", "section", "partition", "gc"})
_MODULE_ID = re.compile(r"; ModuleID = '([^'\n]*)'")
_PREFIX_WORDS = frozenset({
    "private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
    "extern_weak", "linkonce_odr", "weak_odr", "external", "dso_local", "dso_preemptable",
    "default", "hidden", "protected", "dllimport", "dllexport", "unnamed_addr",
    "local_unnamed_addr", "externally_initialized", "thread_local",
})


def parse(text: str, filename: str = "<string>") -> Module:
    """Parse LLVM text into a `Module`.

    Example::

        >>> m = parse("define double @sq(double %x) {\\n  %y = fmul double %x, %x\\n"
        ...           "  ret double %y\\n}\\n")
        >>> m.get_function("sq").blocks[0].instructions[0].opcode
        'fmul'
    """
    parser = ModuleParser(text, filename)
    try:
        return parser.parse_module()
    except ParseError:
        raise
    except RecursionError:
        parser.error("input nested too deeply")
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as exc:
        parser.error(f"malformed input ({type(exc).__name__}: {exc})")


class ModuleParser(FunctionBodyParser):
    def __init__(self, text: str, filename: str = "<string>") -> None:
        super().__init__(text, filename)
        self.pending_blockaddresses = []

    def parse_module(self) -> Module:
        self._prescan()
        m = self.module
        head = _MODULE_ID.match(self.text)
        if head:
            m.name = head.group(1)
        while True:
            k, t = self.kinds[self.i], self.texts[self.i]
            if k == "eof":
                break
            if k == "word":
                if t == "define" or t == "declare":
                    self._function(t == "define")
                elif t == "source_filename":
                    self.i += 1
                    self.expect("=")
                    m.source_filename = self.expect_kind("string", "file name")[1:-1]
                elif t == "target":
                    self._target()
                elif t == "attributes":
                    start = self.i
                    self.i += 1
                    group = self.expect_kind("attrgrp", "attribute group '#N'")
                    self.expect("=")
                    if self.peek() != "{":
                        self.error("expected '{' for attribute group")
                    self.skip_balanced()
                    m.attribute_groups[group] = self.slice_text(start, self.i)
                elif t == "module":
                    start = self.i
                    self.i += 1
                    self.expect("asm")
                    self.expect_kind("string", "asm string")
                    m.module_asm.append(self.slice_text(start, self.i))
                else:
                    self.error("expected a top-level entity (define, declare, @global, ...)")
            elif k == "global":
                self._global()
            elif k == "local":
                self._type_definition()
            elif k == "comdat":
                start = self.i
                self.i += 1
                self.expect("=")
                self.expect("comdat")
                self.expect_kind("word", "comdat selection kind")
                m.comdats.append(self.slice_text(start, self.i))
            elif k == "meta":
                self._metadata_definition()
            else:
                self.error("expected a top-level entity (define, declare, @global, ...)")
        self._resolve_blockaddresses()
        for name, sym in m.symbols.items():
            if getattr(sym, "parent", None) is None:
                raise ParseError(f"global @{name} was scanned but never defined",
                                 filename=self.filename)
        return m

    # --- pre-scan ---------------------------------------------------------------------------

    def _prescan(self) -> None:
        """Create every global symbol up front so uses may precede definitions."""
        pending: dict[str, GlobalValue] = {}
        for mt in _SCAN.finditer(self.text):
            if mt.group(1) is not None:
                name, kind = _name_of("@" + mt.group(1)), mt.group(2)
                sym: GlobalValue
                if kind == "alias":
                    sym = Alias(name)
                elif kind == "ifunc":
                    line, col = self.lines.position(mt.start())
                    raise ParseError("ifunc is not supported", filename=self.filename,
                                     line=line, col=col, source_line=self.lines.line_text(line))
                else:
                    sym = GlobalVariable(name)
            else:
                name = _name_of("@" + mt.group(3))
                sym = Function(name)
            pending.setdefault(name, sym)
        self.module.symbols.update(pending)
        self.type_names = {_name_of("%" + mt.group(1)) for mt in _TYPE_SCAN.finditer(self.text)}

    # --- top-level entities -----------------------------------------------------------------

    def _target(self) -> None:
        self.i += 1
        what = self.expect_kind("word", "'datalayout' or 'triple'")
        self.expect("=")
        value = unescape(self.expect_kind("string", "string")[1:-1])
        if what == "datalayout":
            self.module.datalayout = value
        elif what == "triple":
            self.module.triple = value
        else:
            self.error(f"unknown target property '{what}'", at=self.i - 3)

    def _type_definition(self) -> None:
        name = _name_of(self.next())
        self.expect("=")
        self.expect("type")
        t = self.module.get_or_create_struct(name)
        if t.elements is not None:
            self.error(f"redefinition of type %{name}", at=self.i - 3)
        if self.accept("opaque"):
            return
        packed = self.peek() == "<"
        if packed:
            self.i += 1
        body = self._struct_body(packed)
        if packed:
            self.expect(">")
        t.elements = body.elements
        t.packed = packed
        # Keep definition order (a forward use created the entry earlier).
        self.module.types.pop(name)
        self.module.types[name] = t

    def _metadata_definition(self) -> None:
        start_offset = self.offsets[self.i]
        end_offset = self.lines.line_end(start_offset)
        line = self.text[start_offset:end_offset].rstrip()
        is_named = not self.texts[self.i][1:].isdigit()
        while self.offsets[self.i] < end_offset and self.kinds[self.i] != "eof":
            self.i += 1
        if "=" not in line:
            self.error("expected '=' in metadata definition")
        (self.module.named_metadata if is_named else self.module.metadata).append(line)

    def _prefix_words(self, stop: frozenset[str]) -> list[str]:
        out = []
        while self.kinds[self.i] == "word" and self.texts[self.i] not in stop:
            start = self.i
            self.i += 1
            if self.peek() == "(":
                self.skip_balanced()
            out.append(self.slice_text(start, self.i))
        return out

    def _defined(self, name: str, cls: type) -> GlobalValue:
        sym = self.module.symbols.get(name)
        if not isinstance(sym, cls):
            self.error(f"@{name} is not scanned as a {cls.__name__}")
        if getattr(sym, "parent", None) is not None:
            self.error(f"redefinition of @{name}")
        return sym

    def _global(self) -> None:
        at = self.i
        name = _name_of(self.next())
        self.expect("=")
        prefix = self._prefix_words(frozenset({"global", "constant", "alias", "ifunc"}))
        kind = self.expect_kind("word", "'global', 'constant' or 'alias'")
        if kind == "alias":
            alias = self._defined(name, Alias)
            assert isinstance(alias, Alias)
            alias.prefix = prefix
            alias.value_type = self.parse_type(allow_function=True)
            self.expect(",")
            aliasee = self.parse_typed_value()
            if not isinstance(aliasee, GlobalValue) and not hasattr(aliasee, "opcode"):
                self.error("alias target must be a global or constant expression")
            alias.aliasee = aliasee  # type: ignore[assignment]
            alias.suffix = self._global_suffix()
            self.module.add_alias(alias)
            return
        if kind not in ("global", "constant"):
            self.error(f"expected 'global' or 'constant', found '{kind}'", at=self.i - 1)
        gv = self._defined(name, GlobalVariable)
        assert isinstance(gv, GlobalVariable)
        gv.prefix = prefix
        gv.type = global_pointer_type(prefix)  # `addrspace(3) global`: a ptr addrspace(3)
        gv.is_constant = kind == "constant"
        gv.value_type = self.parse_type()
        if not ({"external", "extern_weak"} & set(prefix)):
            gv.initializer = self.parse_constant(gv.value_type)
        gv.suffix = self._global_suffix()
        gv.attrs = []
        while self.kinds[self.i] == "attrgrp":
            gv.attrs.append(self.next())
        if gv.name is None:
            self.error("global without a name", at=at)
        self.module.add_global(gv)

    def _global_suffix(self) -> list[str]:
        items = []
        while self.texts[self.i] == "," and self.kinds[self.i] == "punct":
            self.i += 1
            start = self.i
            k, t = self.kinds[self.i], self.texts[self.i]
            if k == "meta":
                self.i += 1
                self._metadata_text()
            elif t in ("section", "partition", "code_model"):
                self.i += 1
                self.expect_kind("string", "string")
            elif t == "comdat":
                self.i += 1
                if self.peek() == "(":
                    self.skip_balanced()
            elif t == "align":
                self.i += 1
                self.expect_int("alignment")
            elif k == "word":
                self.i += 1
                if self.peek() == "(":
                    self.skip_balanced()
            else:
                self.error("expected a global attribute")
            items.append(self.slice_text(start, self.i))
        return items

    def _function(self, is_define: bool) -> None:
        self.i += 1
        prefix: list[str] = []
        ret_attrs: list[str] = []
        leading_md: list[str] = []
        while self.kinds[self.i] == "meta":  # `declare !dbg !5 double @f(...)`
            start = self.i
            self.i += 1
            self._metadata_text()
            leading_md.append(self.slice_text(start, self.i))
        while not self.at_type():
            start = self.i
            if self.kinds[self.i] != "word" and self.kinds[self.i] != "string":
                self.error("expected a return type")
            words = self.parse_attributes()
            if not words:
                self.error("expected a return type")
            for w in words:
                head = w.split("(")[0].split(" ")[0]
                if head in _PREFIX_WORDS or head.endswith("cc") or head == "cc":
                    prefix.append(w)
                else:
                    ret_attrs.append(w)
            if self.i == start:
                self.error("expected a return type")
        ret = self.parse_type()
        name_tok = self.expect_kind("global", "function name")
        fn = self._defined(_name_of(name_tok), Function)
        assert isinstance(fn, Function)
        self.expect("(")
        params: list[T.Type] = []
        args: list[Argument] = []
        vararg = False
        self.locals = {}
        self.forward = {}
        self.blocks = {}
        self.defined_blocks = set()
        self.block_uses = {}
        self.next_slot = 0
        if not self.accept(")"):
            while True:
                if self.accept("..."):
                    vararg = True
                    break
                aty = self.parse_type()
                attrs = self.parse_attributes()
                arg = Argument(aty, None, attrs)
                if self.kinds[self.i] == "local":
                    key = _name_of(self.texts[self.i])
                    arg.name = None if key.isdigit() else key
                    self.define_local(key, arg, self.i)
                    self.i += 1
                elif is_define:
                    self.next_slot += 1
                params.append(aty)
                args.append(arg)
                if not self.accept(","):
                    break
            self.expect(")")
        fn.set_type(T.FunctionType(ret, tuple(params), vararg), args)
        fn.prefix = prefix
        fn.ret_attrs = ret_attrs
        self.personality = None
        fn.suffix = leading_md + self._function_suffix()
        fn.personality = self.personality
        self.module.add_function(fn)
        if is_define:
            self.parse_body(fn)

    def _function_suffix(self) -> list[str]:
        out: list[str] = []
        while True:
            k, t = self.kinds[self.i], self.texts[self.i]
            start = self.i
            if t == "{" or k == "eof" or self.at_line_start():
                return out
            if k == "meta":
                self.i += 1
                self._metadata_text()
            elif t == "personality":
                self.i += 1
                self.personality = self.parse_typed_value()
                continue
            elif t in ("section", "partition", "gc"):
                self.i += 1
                self.expect_kind("string", "string")
            elif t in ("prefix", "prologue"):
                self.i += 1
                self.parse_typed_value()
            elif t == "align":
                self.i += 1
                self.expect_int("alignment")
            elif k in ("word", "attrgrp", "string"):
                words = self.parse_attributes(_SUFFIX_KEYWORDS, same_line=True)
                if not words:
                    return out
                out.extend(words)
                continue
            else:
                return out
            out.append(self.slice_text(start, self.i))

    personality: Value | None = None

    def _resolve_blockaddresses(self) -> None:
        for ba, label, at in self.pending_blockaddresses:
            fn = ba.function
            if not isinstance(fn, Function):
                self.error("blockaddress must name a function", at=at)
            for block in fn.blocks:
                key = block.name
                if key is None:
                    from enzyme_py.ir.printer import Slots

                    key = Slots(fn).block_label(block)
                if key == label:
                    ba.block = block
                    break
            else:
                self.error(f"blockaddress names unknown block '%{label}'", at=at)
