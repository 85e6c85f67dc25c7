"""The `fastmath` option: LLVM's fast-math flags on every floating-point operation of a
module (the primal and, after differentiation, the gradient), as Numba's `fastmath=`.

`fastmath=True` means all flags (`fast`); a set picks some: `reassoc` (reorder sums and
products, which lets reductions vectorize), `contract` (fuse a multiply and an add), `nnan`,
`ninf` (assume no NaN / infinity: results are undefined if one appears), `nsz` (ignore the
sign of zero), `arcp` (x / y as x * (1 / y)), `afn` (approximate math functions).

Invariants: the flags go on exactly the operations LLVM allows them on — `fneg`, `fadd`,
`fsub`, `fmul`, `fdiv`, `frem`, `fcmp`, and `phi`, `select`, `call` whose result is floating
point (or a vector of it); flags already there are kept; with no flags nothing changes, so
the default stays IEEE-exact.
"""

from __future__ import annotations

from collections.abc import Iterable

from enzyme_py.errors import ArgumentValueError
from enzyme_py.ir import Module
from enzyme_py.ir import types as T

__all__ = ["FLAGS", "add_fast_math", "fast_math_flags"]

FLAGS = ("reassoc", "contract", "nnan", "ninf", "nsz", "arcp", "afn")
_ARITHMETIC = {"fneg", "fadd", "fsub", "fmul", "fdiv", "frem", "fcmp"}
_BY_RESULT = {"phi", "select", "call"}


def fast_math_flags(fastmath: bool | str | Iterable[str] | None) -> tuple[str, ...]:
    """The flags an option value asks for: () for False/None, ("fast",) for True, else the
    named flags in LLVM's order (an unknown name is an `ArgumentValueError`)."""
    if fastmath is None or fastmath is False:
        return ()
    if fastmath is True or fastmath == "fast":
        return ("fast",)
    names = {fastmath} if isinstance(fastmath, str) else set(fastmath)
    unknown = sorted(names - set(FLAGS) - {"fast"})
    if unknown:
        raise ArgumentValueError(f"fastmath: unknown flag(s) {', '.join(unknown)}; use True "
                                 f"or a set of {', '.join(FLAGS)}")
    if "fast" in names:
        return ("fast",)
    return tuple(f for f in FLAGS if f in names)


def _is_float(t: T.Type) -> bool:
    if isinstance(t, T.VectorType | T.ArrayType):
        return _is_float(t.element)
    return t.is_float


def add_fast_math(module: Module, flags: tuple[str, ...]) -> Module:
    """`module` with `flags` on each floating-point operation (in place; returned)."""
    if not flags:
        return module
    for fn in module.functions:
        for inst in fn.instructions():
            op = inst.opcode
            if op in _ARITHMETIC:
                operand = inst.operands[0].type
                if not _is_float(operand):
                    continue
            elif op in _BY_RESULT:
                if inst.type.is_void or not _is_float(inst.type):
                    continue
            else:
                continue
            have = tuple(inst.flags)
            if "fast" in have:
                continue
            extra = tuple(f for f in flags if f not in have)
            if extra:
                inst.flags = (*have, *extra)
    return module
