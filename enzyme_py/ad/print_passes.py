"""The printers of the analyses the transforms read: `print-activity`, `print-loops`,
`print-types` (registered on import).

Each prints, for the function named by `fn=` or else every defined function in module order,
what the analysis finds, in the words of its `__str__`: `; active` / `; const` on every
instruction, the loops with their induction variables and trip counts, the types memory is
accessed as and the float type of the memory behind each pointer. They read what the
transforms read: the module's registrations (inactive functions) and the globals shared with
callees.

Invariant: a printer never changes the module (`PrinterPass`).

Example::

    enzyme-py opt f.ll -p 'print-activity{fn=f,acts=dup,const}' --disable-output
"""

from __future__ import annotations

from enzyme_py.ad.activity_arguments import activities_for, function_named, return_active
from enzyme_py.ad.context import analysis_errors
from enzyme_py.ad.registrations import find_registrations
from enzyme_py.analysis.activity import alias_classes, analyze_activity
from enzyme_py.analysis.float_kinds import MemoryKinds, float_kinds
from enzyme_py.analysis.globals import globals_shared_with_callees
from enzyme_py.analysis.loops import describe_loops
from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.printer import Slots
from enzyme_py.ir.values import Value
from enzyme_py.passes import Param, PrinterPass, register_pass

_FN = Param("fn", "the function to print (default: every defined function)")


def _functions(module: Module, name: str | None) -> list[Function]:
    if name:
        return [function_named(module, name)]
    return [f for f in module.functions if not f.is_declaration]


class PrintActivity(PrinterPass):
    """Activity of one function with `acts=`/`ret=` (defaults: Enzyme's reverse-mode ones),
    or of every function with the defaults."""

    name = "print-activity"

    def __init__(self, fn: str | None, acts: list[str] | None, ret: str | None) -> None:
        super().__init__()
        self.function, self.activities, self.ret = fn, acts, ret

    def report(self, module: Module) -> str:
        with analysis_errors():
            registrations = find_registrations(module)
            out = []
            for fn in _functions(module, self.function):
                acts = activities_for(fn, self.activities if self.function else None)
                shared = globals_shared_with_callees(fn, registrations.keep_calls)
                out.append(str(analyze_activity(
                    fn, acts, return_active(self.name, fn, self.ret), registrations.inactive,
                    dup_globals=shared)))
        return "".join(out)


class PrintLoops(PrinterPass):
    name = "print-loops"

    def __init__(self, fn: str | None) -> None:
        super().__init__()
        self.function = fn

    def report(self, module: Module) -> str:
        with analysis_errors():
            return "".join(describe_loops(fn) for fn in _functions(module, self.function))


class PrintTypes(PrinterPass):
    """The types each memory object is accessed as (`analysis.float_kinds`), then the float
    type of the memory behind each pointer argument and each pointer an instruction makes, as
    the transforms resolve it (`memory_float_kind`: through copies, stack slot types, memory
    reached the same way; GEPs aside: they point into their base's memory)."""

    name = "print-types"

    def __init__(self, fn: str | None) -> None:
        super().__init__()
        self.function = fn

    def report(self, module: Module) -> str:
        return "".join(str(float_kinds(fn)) + describe_memory_types(fn)
                       for fn in _functions(module, self.function))


def describe_memory_types(fn: Function) -> str:
    """`; float kind of memory in @f`, then `;   <what> %p: <type>` per pointer (`unknown`
    when nothing tells, a comma-separated list when accesses disagree)."""
    insts = list(fn.instructions())
    kinds = MemoryKinds(insts, alias_classes(insts), (), fn)
    slots = Slots(fn)
    pointers: list[tuple[str, Value]] = [("argument", a) for a in fn.args if a.type.is_pointer]
    pointers += [(i.opcode, i) for i in insts
                 if i.type.is_pointer and not isinstance(i, I.GetElementPtr)]
    lines = [f"; float kind of memory in @{fn.name}"]
    for what, p in pointers:
        kind = kinds.kind([p])
        lines.append(f";   {what} {slots.local(p)}: {kind or 'unknown'}")
    return "\n".join(lines) + "\n"


register_pass("print-activity", "print which values are active (; active / ; const) and which "
              "memory gets a shadow", (
                  _FN,
                  Param("acts", "one of const, dup, dupnoneed, out per argument (default: "
                        "integers const, floats out, pointers dup)", list),
                  Param("ret", "active or const (default: active when it returns floats)")),
              )(PrintActivity)
register_pass("print-loops", "print natural loops, induction variables, trip counts",
              (_FN,))(PrintLoops)
register_pass("print-types", "print the float type of the memory behind each pointer",
              (_FN,))(PrintTypes)
