"""Instructions by opcode, per function: the sum-across-opcodes table of a module (as XLA's HLO
profile summary), for `enzyme_py.profile` and `enzyme-py grad --profile`.

Invariants: static counts (each instruction once, wherever it sits in loops); a call is
counted as `call @name` for a named callee (`call` for an indirect one), so libm calls and the
runtime's helpers show by name; declarations count nothing; the module is never changed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function, Module


@dataclass(frozen=True)
class OpcodeCounts:
    """Counts of one function (and the functions it calls, which the optimizer kept)."""

    function: str
    counts: tuple[tuple[str, int], ...]  # (opcode, count), most frequent first

    @property
    def total(self) -> int:
        return sum(n for _, n in self.counts)

    def get(self, opcode: str) -> int:
        return dict(self.counts).get(opcode, 0)


def _key(inst: I.Instruction) -> str:
    if isinstance(inst, I.Call):
        name = inst.callee_name
        return f"call @{name}" if name else "call"
    return inst.opcode


def function_opcodes(fn: Function) -> Counter[str]:
    """The opcodes of `fn`'s instructions (calls by callee name)."""
    return Counter(_key(i) for i in fn.instructions())


def opcode_counts(module: Module, root: str) -> OpcodeCounts:
    """The counts of `root` and every function of `module` it reaches by direct calls."""
    seen: set[str] = set()
    todo = [root]
    total: Counter[str] = Counter()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            fn = module.get_function(name)
        except KeyError:
            continue
        if fn.is_declaration:
            continue
        total += function_opcodes(fn)
        todo += [i.callee_name for i in fn.instructions()
                 if isinstance(i, I.Call) and i.callee_name]
    ordered = tuple(sorted(total.items(), key=lambda kv: (-kv[1], kv[0])))
    return OpcodeCounts(root, ordered)
