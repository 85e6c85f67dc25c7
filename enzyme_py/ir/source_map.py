"""From printed text back to the user's file: locations across a print and re-parse.

Invariants: `str(module)` parses back into the same functions with the same instructions in
the same order (the printer's invariant), so instructions of a module and of its re-parsed text
correspond one to one, function by function; `copy_locations` and `printed_lines` rely on that
and skip a function whose instruction count differs (never a wrong location). Nothing here
changes what a module means.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from enzyme_py.ir import instructions as I
from enzyme_py.ir.location import SourceLoc
from enzyme_py.ir.module import Module
from enzyme_py.ir.parser import parse
from enzyme_py.ir.printer import FunctionPrinter

PRINTED = "<printed>"  # the file name of a module's own printed text when it is re-parsed


def _pairs(a: Module, b: Module) -> Iterator[tuple[I.Instruction, I.Instruction]]:
    """Corresponding instructions of `a` and of `b`, a re-parse of `a`'s text."""
    defined_b = {fn.name: fn for fn in b.functions if not fn.is_declaration}
    for fa in a.functions:
        fb = defined_b.get(fa.name)
        if fa.is_declaration or fb is None:
            continue
        ia, ib = list(fa.instructions()), list(fb.instructions())
        if len(ia) == len(ib):
            yield from zip(ia, ib, strict=True)


def reparse(module: Module) -> Module:
    """A copy of `module` through its text (`parse(str(module))`) that keeps every
    instruction's `loc`, so errors about the copy still name the user's file and line."""
    copy = parse(str(module), module.name)
    copy.name = module.name
    copy_locations(module, copy)
    return copy


def copy_locations(src: Module, dst: Module) -> None:
    """Give each instruction of `dst` (a re-parse of `src`'s text) its twin's `loc`."""
    for a, b in _pairs(src, dst):
        b.loc = a.loc


def printed_lines(module: Module, text: str | None = None) -> dict[int, SourceLoc]:
    """Line of `text` (`str(module)` by default) -> where the instruction printed on that
    line was parsed from (every line of a multi-line instruction such as `switch`)."""
    text = str(module) if text is None else text
    try:
        printed = parse(text, PRINTED)
    except Exception:  # the text is not `str(module)`: no map rather than a wrong one
        return {}
    out: dict[int, SourceLoc] = {}
    for a, b in _pairs(module, printed):
        if a.loc is None or b.loc is None:
            continue
        fn = b.function
        height = FunctionPrinter(fn).instruction(b).count("\n") + 1
        for line in range(b.loc.line, b.loc.line + height):
            out[line] = a.loc
    return out


def named_locations(module: Module) -> dict[str, SourceLoc]:
    """Printed name (`%x`, `%5`) -> location, for names that one function alone defines."""
    seen: dict[str, SourceLoc | None] = {}
    for fn in module.functions:
        if fn.is_declaration:
            continue
        printer = FunctionPrinter(fn)
        for inst in fn.instructions():
            if inst.type.is_void or inst.loc is None:
                continue
            name = printer.slots.local(inst)
            seen[name] = None if name in seen else inst.loc
    return {name: loc for name, loc in seen.items() if loc is not None}


_POSITION = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): ", re.MULTILINE)
_VALUE_LINE = re.compile(r"^  (?P<name>%[-\w$.]+|%\"[^\"]*\") = ", re.MULTILINE)


def locate_message(message: str, module: Module, text: str, printed_name: str) -> str:
    """`message`, a diagnostic about `text` (the printed `module`, called `printed_name` in
    it), with positions in `text` replaced by the user's `file:line`.

    `printed_name:L:C:` becomes `file:line:` (the column counted in the printed line is
    dropped: the user's line may be spaced differently); an instruction quoted on its own line
    (LLVM's verifier quotes them without a position) gets `; file:line` appended when one
    function alone defines its name."""
    if printed_name not in message and "  %" not in message:
        return message
    lines = printed_lines(module, text)

    def position(m: re.Match[str]) -> str:
        if m.group("file") != printed_name:
            return m.group(0)
        loc = lines.get(int(m.group("line")))
        return f"{loc}: " if loc is not None else m.group(0)

    located = _POSITION.sub(position, message)
    if located != message:  # a parse error: its line is quoted right below it
        return located
    names = named_locations(module) if _VALUE_LINE.search(message) else {}
    if not names:
        return message
    out = []
    for line in message.split("\n"):
        m = _VALUE_LINE.match(line)
        loc = names.get(m.group("name")) if m is not None else None
        out.append(f"{line}  ; {loc}" if loc is not None else line)
    return "\n".join(out)


def forget_locations(module: Module) -> None:
    """Clear every `loc`: for code parsed from LLVM's output, which is new code (its lines
    are in a text the user never wrote)."""
    for fn in module.functions:
        for inst in fn.instructions():
            inst.loc = None
