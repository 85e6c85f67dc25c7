"""User declarations in Enzyme's ABI: custom gradients and inactive functions.

- `void *__enzyme_register_gradient_NAME[3] = {(void *)f, (void *)f_aug, (void *)f_rev};`
  makes reverse mode call `f_rev` instead of differentiating `f`. `f_rev` takes `f`'s arguments
  (each `dup` pointer followed by its shadow), then the seed when `f` returns a float, and
  returns the adjoints of `f`'s float arguments (a struct for several). The forward sweep calls
  `f` itself, except in Enzyme's tape form: when `f` returns void and `f_aug` returns a pointer,
  the forward sweep calls `f_aug` (arguments with shadows, as for `f_rev`) instead of `f`, and
  `f_rev` receives that tape pointer as its last argument. As in Enzyme, `f_rev` owns the
  shadows of what `f` overwrites: it reads the adjoint of each output it wrote and zeroes it
  (as every generated gradient does for its stores), since the caller may reuse that memory
  (a local written by the call on every loop iteration, say); an adjoint left in place is
  counted again by the next reverse call.
- `void *__enzyme_register_derivative_NAME[2] = {(void *)f, (void *)f_fwd};` makes forward
  mode call `f_fwd` instead of differentiating `f`. `f_fwd` takes `f`'s arguments, each float
  followed by its tangent and each `dup` pointer by its shadow, and returns `{primal, tangent}`.
- `void *__enzyme_inactivefn[] = {(void *)g, ...};` (any global whose name starts with
  `__enzyme_inactivefn`) marks functions whose calls carry no derivative.
- `void *__enzyme_function_like[2] = {(void *)g, (void *)"log1p"};` (any global whose name
  contains `__enzyme_function_like`, as Enzyme's clang plugin writes for
  `__attribute__((enzyme_function_like("log1p")))`; or the function attribute
  `"enzyme_math"="log1p"`) differentiates calls of `g` as calls of that math function: by its
  rule, whatever `g`'s body computes (the forward sweep still calls `g`).

Registrations made by the Python front end (`custom_vjp`, `custom_jvp`) use the same globals
with names that start with `PYTHON_MARK` after the prefix. Their rule functions take a shadow
(or tangent) after *every* pointer and float argument, whatever its activity: a null pointer
stands for a missing shadow and 0.0 for an inactive float, so one signature serves all calls.

Invariant: reading the registrations never changes the module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir.module import Function, GlobalVariable, Module
from enzyme_py.ir.values import ConstantAggregate, ConstantExpr, ConstantString, Value
from enzyme_py.rules.matrix_kernel import is_matrix_kernel
from enzyme_py.rules.registry import lookup

REGISTER_PREFIX = "__enzyme_register_gradient"
DERIVATIVE_PREFIX = "__enzyme_register_derivative"
INACTIVE_PREFIX = "__enzyme_inactivefn"
FUNCTION_LIKE = "__enzyme_function_like"
PYTHON_MARK = ".enzyme_py."  # `__enzyme_register_gradient.enzyme_py.f`: every shadow passed


@dataclass(frozen=True)
class CustomGradient:
    function: Function
    augmented: Function | None
    reverse: Function
    declared_by: str
    every_shadow: bool = False  # a shadow (null when none) follows every pointer argument


@dataclass(frozen=True)
class CustomDerivative:
    """A forward-mode rule: `derivative` returns `{primal, tangent}` of `function`."""

    function: Function
    derivative: Function
    declared_by: str
    every_shadow: bool = False  # a tangent/shadow follows every float and pointer argument
    # Python rules also name the tangent output alone (same arguments, returns the tangent),
    # which reverse mode differentiates with respect to the tangents (the rule is linear).
    tangent: Function | None = None


@dataclass
class Registrations:
    custom: dict[str, CustomGradient] = field(default_factory=dict)
    forward: dict[str, CustomDerivative] = field(default_factory=dict)
    inactive: set[str] = field(default_factory=set)
    function_like: dict[str, str] = field(default_factory=dict)  # g -> the math it is like
    matrix_kernels: set[str] = field(default_factory=set)  # differentiated by their rule

    @property
    def keep_calls(self) -> set[str]:
        """Functions whose calls must stay calls (never inlined)."""
        return set(self.custom) | set(self.forward) | self.inactive | \
            set(self.function_like) | self.matrix_kernels

    def python_rule(self, name: str) -> str | None:
        """'custom_vjp' / 'custom_jvp' when `name` has a rule from the Python front end for
        one mode only (the other mode must not differentiate its body instead), else None."""
        rev, fwd = self.custom.get(name), self.forward.get(name)
        if rev is not None and rev.every_shadow and fwd is None:
            return "custom_vjp"
        if fwd is not None and fwd.every_shadow and rev is None:
            return "custom_jvp"
        return None


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


def _function_like(g: GlobalVariable) -> tuple[str, str]:
    """(function, math name) of an `__enzyme_function_like` global."""
    init = g.initializer
    elements = init.elements if isinstance(init, ConstantAggregate) else ()
    fns = _functions_in(elements[0]) if elements else []
    text = elements[1] if len(elements) > 1 else None
    while isinstance(text, ConstantExpr):
        text = text.ops[0]
    data = text.initializer if isinstance(text, GlobalVariable) and text.is_constant else None
    math = data.data.split(b"\0")[0].decode("utf-8", "replace") \
        if isinstance(data, ConstantString) else ""
    if len(fns) != 1 or fns[0] is None or not math:
        raise DifferentiationError(f"@{g.name} must hold a function and the name of the math "
                                   'function it is like: {(void *)g, (void *)"log1p"}')
    if lookup(math) is None:
        raise DifferentiationError(f"@{g.name}: @{fns[0].name} is declared like '{math}', "
                                   "which has no derivative rule")
    return fns[0].name or "", math


_ENZYME_MATH = re.compile(r'"enzyme_math"="([^"]+)"')


def _enzyme_math_attributes(module: Module) -> dict[str, str]:
    """Functions with Enzyme's `"enzyme_math"="name"` attribute (its clang plugin's output)."""
    out: dict[str, str] = {}
    for fn in module.functions:
        for word in fn.suffix:
            text = module.attribute_groups.get(word, "") if word.startswith("#") else word
            m = _ENZYME_MATH.search(text)
            if m and lookup(m.group(1)) is not None:
                out[fn.name or ""] = m.group(1)
    return out


def find_registrations(module: Module) -> Registrations:
    reg = Registrations()
    reg.function_like.update(_enzyme_math_attributes(module))
    reg.matrix_kernels = {f.name or "" for f in module.functions if is_matrix_kernel(f.name)}
    for g in module.globals:
        name = g.name or ""
        if g.initializer is None:
            continue
        if FUNCTION_LIKE in name:
            f, math = _function_like(g)
            reg.function_like[f] = math
            continue
        every_shadow = name.startswith((REGISTER_PREFIX + PYTHON_MARK,
                                         DERIVATIVE_PREFIX + PYTHON_MARK))
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
            reg.custom[f.name or ""] = CustomGradient(f, aug, rev, name, every_shadow)
        elif name.startswith(DERIVATIVE_PREFIX):
            fns = _functions_in(g.initializer)
            if len(fns) not in (2, 3) or fns[0] is None or fns[1] is None:
                raise DifferentiationError(
                    f"@{name} must hold two function pointers {{ f, derivative }}")
            f, fwd = fns[0], fns[1]
            tangent = fns[2] if len(fns) == 3 and every_shadow else None
            if fwd.is_declaration:
                raise DifferentiationError(f"@{name}: the derivative function @{fwd.name} has "
                                           "no body in this module")
            reg.forward[f.name or ""] = CustomDerivative(f, fwd, name, every_shadow, tangent)
    return reg


def uncalled_rules(module: Module) -> list[str]:
    """Names of functions with a registered rule that nothing in `module` calls any more.

    clang inlines small functions at -O1 and above before enzyme-py sees the IR; the
    inlined copies are then differentiated as code and the rule is never used, which is worth
    a warning (`__attribute__((noinline))` on the function keeps the call)."""
    reg = find_registrations(module)
    called: set[str] = set()
    for fn in module.functions:
        for inst in fn.instructions():
            name = getattr(inst, "callee_name", None)
            if name:
                called.add(name)
    defined = {f.name for f in module.functions if not f.is_declaration}
    inactive = {n for n in reg.inactive if n in defined}  # (a declared one may be unused)
    return sorted(n for n in reg.keep_calls if n not in called and
                  (n not in reg.inactive or n in inactive))

