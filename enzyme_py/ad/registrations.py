"""User declarations in Enzyme's ABI: custom gradients and inactive functions.

- `void *__enzyme_register_gradient_NAME[3] = {(void *)f, (void *)f_aug, (void *)f_rev};`
  makes reverse mode call `f_rev` instead of differentiating `f`. `f_rev` takes `f`'s arguments
  (each `dup` pointer followed by its shadow), then the seed when `f` returns a float, and
  returns the adjoints of `f`'s float arguments (a struct for several). The forward sweep calls
  `f` itself, except in Enzyme's tape form: when `f` returns void and `f_aug` returns a pointer,
  the forward sweep calls `f_aug` (arguments with shadows, as for `f_rev`) instead of `f`, and
  `f_rev` receives that tape pointer as its last argument.
- `void *__enzyme_inactivefn[] = {(void *)g, ...};` (any global whose name starts with
  `__enzyme_inactivefn`) marks functions whose calls carry no derivative.

Invariant: reading the registrations never changes the module.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir.module import Function, Module
from enzyme_py.ir.values import ConstantAggregate, ConstantExpr, Value

REGISTER_PREFIX = "__enzyme_register_gradient"
INACTIVE_PREFIX = "__enzyme_inactivefn"


@dataclass(frozen=True)
class CustomGradient:
    function: Function
    augmented: Function | None
    reverse: Function
    declared_by: str


@dataclass
class Registrations:
    custom: dict[str, CustomGradient] = field(default_factory=dict)
    inactive: set[str] = field(default_factory=set)

    @property
    def keep_calls(self) -> set[str]:
        """Functions whose calls must stay calls (never inlined)."""
        return set(self.custom) | self.inactive


def _functions_in(v: Value) -> list[Function | None]:
    if isinstance(v, Function):
        return [v]
    if isinstance(v, ConstantExpr) and v.opcode in ("bitcast", "addrspacecast"):
        return _functions_in(v.ops[0])
    if isinstance(v, ConstantAggregate):
        out: list[Function | None] = []
        for e in v.elements:
            out.extend(_functions_in(e) or [None])
        return out
    return []


def find_registrations(module: Module) -> Registrations:
    reg = Registrations()
    for g in module.globals:
        name = g.name or ""
        if g.initializer is None:
            continue
        if name.startswith(INACTIVE_PREFIX):
            reg.inactive |= {f.name or "" for f in _functions_in(g.initializer)
                             if f is not None}
        elif name.startswith(REGISTER_PREFIX):
            fns = _functions_in(g.initializer)
            if len(fns) != 3 or fns[0] is None or fns[2] is None:
                raise DifferentiationError(
                    f"@{name} must hold three function pointers {{ f, augmented, reverse }} "
                    "(augmented may be null)")
            f, aug, rev = fns
            if rev.is_declaration:
                raise DifferentiationError(f"@{name}: the reverse function @{rev.name} has no "
                                           "body in this module")
            tape_form = aug is not None and aug.return_type.is_pointer and \
                f.return_type.is_void
            if aug is not None and not (aug.return_type.is_void or tape_form or
                                        aug.return_type == f.return_type):
                raise DifferentiationError(
                    f"@{name}: the augmented function @{aug.name} returns "
                    f"{aug.return_type}; supported: f's result ({f.return_type}), void, or a "
                    "tape pointer when f returns void")
            reg.custom[f.name or ""] = CustomGradient(f, aug, rev, name)
    return reg
