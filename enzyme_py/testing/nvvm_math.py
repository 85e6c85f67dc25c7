"""CUDA device math as CPU code: nvvm math intrinsics and libdevice calls rewritten, in place,
to LLVM intrinsics, instructions and C library calls, so a module that uses them runs on the
host (the simulated grid, `grid_lowering.py`, and the rule tests, `tests/rules`).

- `llvm.nvvm.<op>.<rounding>[.ftz][.sat].{d,f,f32,f64}` and the suffixless float-only
  `llvm.nvvm.div.full[.ftz]` become the LLVM intrinsic of the same math (`sqrt.rn.d` ->
  `llvm.sqrt.f64`, `fma.rn.f` -> `llvm.fma.f32`, `ex2.approx.f32` -> `llvm.exp2.f32`,
  `fmin.nan.f` -> `llvm.minimum.f32`, `round.d` -> `llvm.roundeven.f64` ...), or the instruction
  (`div.*` -> `fdiv`, `rcp.*` -> `fdiv 1.0, x`, `rsqrt.approx.*` -> `1 / llvm.sqrt`,
  `add.*` -> `fadd`, `mul.*` -> `fmul`);
- a *declared* libdevice function `__nv_<name>` becomes libm's `<name>` (`__nv_sinf` ->
  `sinf`; `__nv_fast_expf` -> `expf`), except the few libm lacks: `__nv_powi[f]` ->
  `llvm.powi`, `__nv_rsqrt[f]` -> `1 / llvm.sqrt`.

Invariants: approximate, flush-to-zero and directed-rounding variants all become the
round-to-nearest IEEE operation (the host has no other; results differ from the GPU's in the
last bits); a call this table does not know is left unchanged (the caller reports what stays);
each replacement keeps the call's name and replaces all its uses; a declaration of nvvm math or
libdevice that no instruction refers to any more is removed.
"""

from __future__ import annotations

import re

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Block, Function, Module
from enzyme_py.ir.values import (
    Constant,
    ConstantAggregate,
    ConstantExpr,
    ConstantSplat,
    RawConstant,
    Value,
    const_float,
)

__all__ = ["MATH", "NVVM_PREFIX", "map_call", "map_math"]

NVVM_PREFIX = "llvm.nvvm."
_ROUNDINGS = ("rn", "rz", "rm", "rp")


def _variants(op: str, modes: tuple[str, ...], ftz: bool = True) -> list[str]:
    stems = [f"{op}.{m}" for m in modes]
    return stems + [f"{s}.ftz" for s in stems] if ftz else stems


# nvvm intrinsic stem (without its type suffix) -> LLVM intrinsic stem of the same math
MATH: dict[str, str] = {
    **{s: "sqrt" for s in ["sqrt", *_variants("sqrt", (*_ROUNDINGS, "approx"))]},
    **{s: "fma" for s in _variants("fma", _ROUNDINGS)},
    **{s: "exp2" for s in _variants("ex2", ("approx",))},
    **{s: "log2" for s in _variants("lg2", ("approx",))},
    **{s: "sin" for s in _variants("sin", ("approx",))},
    **{s: "cos" for s in _variants("cos", ("approx",))},
    "fmin": "minnum", "fmin.ftz": "minnum", "fmax": "maxnum", "fmax.ftz": "maxnum",
    "fmin.nan": "minimum", "fmin.ftz.nan": "minimum",
    "fmax.nan": "maximum", "fmax.ftz.nan": "maximum",
    "fabs": "fabs", "fabs.ftz": "fabs",
    **{f"{op}{z}": op for op in ("floor", "ceil", "trunc") for z in ("", ".ftz")},
    "round": "roundeven", "round.ftz": "roundeven",
}
_RECIPROCAL = frozenset(_variants("rcp", (*_ROUNDINGS, "approx")))
_RSQRT = frozenset(_variants("rsqrt", ("approx",)))
_DIVIDE = frozenset([*_variants("div", (*_ROUNDINGS, "approx")), "div.full", "div.full.ftz"])
_BINARY = {**{s: "fadd" for s in _variants("add", _ROUNDINGS)},
           **{s: "fmul" for s in _variants("mul", _ROUNDINGS)}}
_FLOAT_ONLY = frozenset({"div.full", "div.full.ftz"})  # no type suffix: always float
_SUFFIX = {"d": "f64", "f": "f32", "f64": "f64", "f32": "f32"}
_LIBDEVICE = re.compile(r"__nv_(\w+)$")


def map_math(module: Module) -> None:
    """Rewrite every nvvm math call and libdevice call of `module` in place (module docstring).

    Example::

        map_math(m)   # `call float @llvm.nvvm.sin.approx.f(float %x)` -> `@llvm.sin.f32`
    """
    replaced: set[Function] = set()
    for fn in list(module.functions):
        for block in fn.blocks:
            for inst in list(block.instructions):
                callee = inst.callee if isinstance(inst, I.Call) else None
                if isinstance(callee, Function) and map_call(module, fn, block, inst):
                    replaced.add(callee)
    _drop_unused(module, replaced)


def _constants_within(c: Value | None, found: set[int]) -> bool:
    """Add the ids of the constants within `c` to `found`; False if one is opaque text."""
    if c is None:
        return True
    found.add(id(c))
    if isinstance(c, RawConstant) or not isinstance(c, Constant):
        return False
    if isinstance(c, ConstantAggregate):
        return all(_constants_within(e, found) for e in c.elements)
    if isinstance(c, ConstantExpr):
        return all(_constants_within(o, found) for o in c.ops)
    if isinstance(c, ConstantSplat):
        return _constants_within(c.element, found)
    return True


def _drop_unused(module: Module, declarations: set[Function]) -> None:
    """Remove the declarations no instruction refers to any more (the host has no such
    symbols to resolve them with)."""
    used = {id(op) for fn in module.functions for inst in fn.instructions()
            for op in inst.operands}
    roots = [*(g.initializer for g in module.globals), *(a.aliasee for a in module.aliases)]
    for root in roots:
        if not _constants_within(root, used):
            return  # a constant this walk cannot see into may name them: keep them all
    for decl in declarations:
        if decl.is_declaration and id(decl) not in used:
            module.functions.remove(decl)
            module.symbols.pop(decl.name or "", None)


def _stem(name: str) -> tuple[str, str] | None:
    """`llvm.nvvm.sqrt.rn.d` -> (`sqrt.rn`, `f64`); None when `name` has no float type."""
    rest = name[len(NVVM_PREFIX):]
    if rest in _FLOAT_ONLY:
        return rest, "f32"
    stem, _, suffix = rest.rpartition(".")
    return (stem, _SUFFIX[suffix]) if suffix in _SUFFIX else None


def map_call(module: Module, fn: Function, block: Block, call: I.Call) -> bool:
    """Rewrite one call when it is nvvm math or libdevice; True if it was rewritten."""
    name = call.callee_name or ""
    m = _LIBDEVICE.match(name)
    if m and isinstance(call.callee, Function) and call.callee.is_declaration:
        return _map_libdevice(module, fn, block, call, m.group(1))
    if not name.startswith(NVVM_PREFIX):
        return False
    parts = _stem(name)
    if parts is None:
        return False
    stem, mangled = parts
    b = Builder().position_before(call)
    one = const_float(call.type, 1.0)
    if stem in MATH:
        target = module.declare_function(f"llvm.{MATH[stem]}.{mangled}", call.function_type)
        new: Value = b.call(target, list(call.args), name=call.name)
    elif stem in _RECIPROCAL:
        new = b.fdiv(one, call.args[0], name=call.name)
    elif stem in _RSQRT:
        new = _reciprocal_sqrt(module, b, call, mangled)
    elif stem in _DIVIDE:
        new = b.fdiv(call.args[0], call.args[1], name=call.name)
    elif stem in _BINARY:
        new = b.binop(_BINARY[stem], call.args[0], call.args[1], name=call.name)
    else:
        return False
    _replace(fn, block, call, new)
    return True


def _map_libdevice(module: Module, fn: Function, block: Block, call: I.Call, name: str) -> bool:
    if name.startswith("fast_"):  # `__nv_fast_sinf`: the fast float version of `sinf`
        name = name[len("fast_"):]
    if name in ("powi", "powif"):
        base, exponent = call.args[0].type, call.args[1].type
        powi = f"llvm.powi.{_SUFFIX['f' if name == 'powif' else 'd']}.i{exponent.bits}"
        assert isinstance(exponent, T.IntType) and base.is_fp_or_fp_vector
        target = module.declare_function(powi, call.function_type)
        new: Value = Builder().position_before(call).call(target, list(call.args),
                                                          name=call.name)
    elif name in ("rsqrt", "rsqrtf"):
        b = Builder().position_before(call)
        new = _reciprocal_sqrt(module, b, call, _SUFFIX["f" if name == "rsqrtf" else "d"])
    else:
        call.operands[-1] = module.declare_function(name, call.function_type)
        return True
    _replace(fn, block, call, new)
    return True


def _reciprocal_sqrt(module: Module, b: Builder, call: I.Call, mangled: str) -> Value:
    sqrt = module.declare_function(f"llvm.sqrt.{mangled}", call.function_type)
    return b.fdiv(const_float(call.type, 1.0), b.call(sqrt, [call.args[0]]), name=call.name)


def _replace(fn: Function, block: Block, call: I.Call, new: Value) -> None:
    fn.replace_all_uses(call, new)
    block.remove(call)
