"""Rules for CUDA device math: the NVVM math intrinsics (`llvm.nvvm.sqrt.rn.d` ...) and
libdevice's `__nv_*` functions.

NVVM intrinsics are keyed by their full name (`.d` is double, `.f` float, `.ftz` flushes
subnormals to zero; `intrinsic_base` keeps these suffixes), except the overloaded ones LLVM 22
mangles (`llvm.nvvm.ex2.approx.f32`, `llvm.nvvm.fabs.f64`), keyed by their base name like
every `llvm.*` intrinsic. One rule serves a family: every rounding mode (`rn`, `rz`, `rm`,
`rp`), `approx` and `ftz` variant has the same derivative; `CALLEES` lists the names each
registry key stands for. Libdevice functions are aliases of the C library's rules
(`__nv_sin` and `__nv_sinf` of `sin`), added when this module loads, after the rule modules
that define those rules.

Invariants: every partial is valid NVPTX code: instructions, `llvm.nvvm.*` intrinsics and
the LLVM intrinsics NVPTX lowers (`mathcalls.NVPTX_INTRINSICS`); the libdevice rules' math goes
through `ctx.math`, which calls libdevice on an NVPTX module. Only `sin.approx`/`cos.approx`
need math beyond arithmetic: their derivative is the other approximation with the same `ftz`
mode (PTX has no exact sine); every other partial is exact IEEE arithmetic on the result or
the operands (`sqrt`: seed / (2 r), `rsqrt`: -seed r^3 / 2, `rcp`: -seed r^2, `ex2`: seed r ln 2,
`lg2`: seed / (x ln 2), `div`: seed / y and -seed r / y), also for an `approx` primal.
(`llvm.nvvm.ex2.approx.f64`, what clang-22 writes for `__nvvm_ex2_approx_d`, has a rule but
no PTX instruction: LLVM 22's NVPTX backend cannot select it.)

Conventions, as for the LLVM intrinsics of the same math (`intrinsics.py`), so that IR
optimized at -O2 (where clang turns `fmin.d` into `llvm.minnum.f64`) and at -O0 differentiate
alike: `fmin`/`fmax` give the seed to the operand equal to the result, half to each on a tie,
nothing to a NaN operand (`fmin.nan` returns NaN when either operand is one: then neither gets
anything); `fabs'(0) = 0`; `floor`, `ceil`, `trunc`, `round` have no derivative.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import enzyme_py.rules.arith
import enzyme_py.rules.intrinsics
import enzyme_py.rules.libm  # noqa: F401  (the rules libdevice's names alias)
from enzyme_py.ir import types as T
from enzyme_py.ir.instructions import Call
from enzyme_py.ir.values import Value
from enzyme_py.rules.common import balanced, divided, identity, operand, scaled, sign_times
from enzyme_py.rules.mathcalls import LIBDEVICE_PREFIX, module_of
from enzyme_py.rules.registry import ALIASES, RULES, PartialSpec, RuleContext, Spec, rule

NVVM = "llvm.nvvm."
_ROUNDINGS = ("rn", "rz", "rm", "rp")
_LN2 = math.log(2.0)


def _family(op: str, modes: Sequence[str], kinds: Sequence[str] = ("d", "f", "ftz.f")
            ) -> list[str]:
    """`llvm.nvvm.<op>.<mode>.<kind>` for every mode and kind."""
    return [f"{NVVM}{op}.{m}.{k}" for m in modes for k in kinds]


# Overloaded intrinsics, keyed by base name: the mangled names each stands for.
_OVERLOADED = {
    f"{NVVM}ex2.approx": ("f64", "f32"), f"{NVVM}ex2.approx.ftz": ("f32",),
    f"{NVVM}fabs": ("f64", "f32"), f"{NVVM}fabs.ftz": ("f32",),
}
_FLOAT_ONLY = (f"{NVVM}div.full", f"{NVVM}div.full.ftz")  # no type suffix: always float


def callee_type(callee: str) -> T.FloatType:
    """The float type of a concrete nvvm intrinsic or libdevice function name."""
    if callee.endswith((".d", ".f64")):
        return T.DOUBLE
    if callee.startswith(NVVM):
        return T.FLOAT
    return LIBDEVICE[callee]


def _exact(name: str) -> tuple[str, ...]:
    if name in _OVERLOADED:
        return tuple(f"{name}.{m}" for m in _OVERLOADED[name])
    return (name,)


_UNIT = Spec(domain=((-2.0, 2.0),))
_POSITIVE = Spec(domain=((0.2, 3.0),))
_BINARY = Spec(domain=((-2.0, 2.0), (-2.0, 2.0)))
_FLOAT_NOTE = ("approx/ftz/directed rounding run as the IEEE round-to-nearest operation on the "
               "host (testing.nvvm_math); the derivative is checked against that")


# --- roots, reciprocals, quotients --------------------------------------------------------


@rule(f"{NVVM}sqrt.rn.d", *_family("sqrt", _ROUNDINGS)[1:], f"{NVVM}sqrt.approx.f",
      f"{NVVM}sqrt.approx.ftz.f", f"{NVVM}sqrt.f",
      spec=Spec(domain=((0.2, 3.0),), note=_FLOAT_NOTE))
def nvvm_sqrt(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [divided(ctx, lambda: ctx.builder.fadd(ctx.result(), ctx.result()))]


@rule(f"{NVVM}rsqrt.approx.d", f"{NVVM}rsqrt.approx.f", f"{NVVM}rsqrt.approx.ftz.f",
      f"{NVVM}rsqrt.approx.ftz.d", f"{LIBDEVICE_PREFIX}rsqrt", f"{LIBDEVICE_PREFIX}rsqrtf",
      spec=Spec(domain=((0.2, 3.0),), note=_FLOAT_NOTE))
def nvvm_rsqrt(ctx: RuleContext) -> Sequence[PartialSpec]:
    """r = 1/sqrt(x): dr/dx = -r^3 / 2."""
    b = ctx.builder

    def slope() -> Value:
        r = ctx.result()
        return b.fmul(ctx.const(-0.5, r), b.fmul(r, b.fmul(r, r)))

    return [scaled(ctx, slope)]


@rule(f"{NVVM}rcp.rn.d", *_family("rcp", _ROUNDINGS)[1:], f"{NVVM}rcp.approx.ftz.d",
      f"{NVVM}rcp.approx.ftz.f", spec=Spec(domain=((0.3, 2.0),), note=_FLOAT_NOTE))
def nvvm_rcp(ctx: RuleContext) -> Sequence[PartialSpec]:
    """r = 1/x: dr/dx = -r^2."""
    b = ctx.builder

    def slope() -> Value:
        r = ctx.result()
        return b.fneg(b.fmul(r, r))

    return [scaled(ctx, slope)]


@rule(f"{NVVM}div.rn.d", *_family("div", _ROUNDINGS)[1:], f"{NVVM}div.approx.f",
      f"{NVVM}div.approx.ftz.f", *_FLOAT_ONLY,
      spec=Spec(domain=((-2.0, 2.0), (0.3, 2.0)), note=_FLOAT_NOTE))
def nvvm_div(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder
    # d/dy (x/y) = -(x/y)/y: the result is reused, as for `fdiv`.
    return [divided(ctx, operand(ctx, 1)),
            lambda s: b.fneg(b.fdiv(b.fmul(s, ctx.result()), ctx.operand(1)))]


# --- fused multiply-add, add, multiply ------------------------------------------------------


@rule(f"{NVVM}fma.rn.d", *_family("fma", _ROUNDINGS)[1:],
      spec=Spec(domain=((-2.0, 2.0),) * 3, note=_FLOAT_NOTE))
def nvvm_fma(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, operand(ctx, 1)), scaled(ctx, operand(ctx, 0)), identity]


@rule(f"{NVVM}add.rn.d", *_family("add", _ROUNDINGS)[1:], spec=Spec(_BINARY.domain,
                                                                        note=_FLOAT_NOTE))
def nvvm_add(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [identity, identity]


@rule(f"{NVVM}mul.rn.d", *_family("mul", _ROUNDINGS)[1:], spec=Spec(_BINARY.domain,
                                                                        note=_FLOAT_NOTE))
def nvvm_mul(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, operand(ctx, 1)), scaled(ctx, operand(ctx, 0))]


# --- exponential, logarithm, sine, cosine -------------------------------------------------


@rule(f"{NVVM}ex2.approx", f"{NVVM}ex2.approx.ftz", *_family("ex2", ("approx",)),
      spec=Spec(_UNIT.domain, note=_FLOAT_NOTE))
def nvvm_ex2(ctx: RuleContext) -> Sequence[PartialSpec]:
    """r = 2^x: dr/dx = r ln 2."""
    b = ctx.builder
    return [lambda s: b.fmul(b.fmul(s, ctx.result()), ctx.const(_LN2, s))]


@rule(f"{NVVM}lg2.approx.d", *_family("lg2", ("approx",))[1:],
      spec=Spec(_POSITIVE.domain, note=_FLOAT_NOTE))
def nvvm_lg2(ctx: RuleContext) -> Sequence[PartialSpec]:
    """r = log2(x): dr/dx = 1 / (x ln 2)."""

    def denominator() -> Value:
        x = ctx.operand(0)
        return ctx.builder.fmul(x, ctx.const(_LN2, x))

    return [divided(ctx, denominator)]


def _approx(ctx: RuleContext, op: str, x: Value) -> Value:
    """`llvm.nvvm.<op>.approx[.ftz].f(x)`, with the `ftz` mode of the instruction's callee."""
    ftz = isinstance(ctx.inst, Call) and ".ftz" in (ctx.inst.callee_name or "")
    fn = module_of(ctx.builder).declare_function(
        f"{NVVM}{op}.approx{'.ftz' if ftz else ''}.f", T.FunctionType(T.FLOAT, (T.FLOAT,)))
    return ctx.builder.call_intrinsic(fn, [x])


_TRIG = Spec(_UNIT.domain, note="sin/cos.approx run as llvm.sin/llvm.cos on the host; the "
             "derivative, the other approximation, runs as the other exact function")


@rule(f"{NVVM}sin.approx.f", f"{NVVM}sin.approx.ftz.f", spec=_TRIG)
def nvvm_sin(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [scaled(ctx, lambda: _approx(ctx, "cos", ctx.operand(0)))]


@rule(f"{NVVM}cos.approx.f", f"{NVVM}cos.approx.ftz.f", spec=_TRIG)
def nvvm_cos(ctx: RuleContext) -> Sequence[PartialSpec]:
    b = ctx.builder
    return [lambda s: b.fneg(b.fmul(s, _approx(ctx, "sin", ctx.operand(0))))]


# --- min/max, absolute value, rounding ----------------------------------------------------

_MIN_MAX_KINDS = ("d", "f", "ftz.f", "nan.f", "ftz.nan.f")


@rule(f"{NVVM}fmin.d", *(f"{NVVM}fmin.{k}" for k in _MIN_MAX_KINDS[1:]), spec=_BINARY)
def nvvm_fmin(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [balanced(ctx, 0, 1), balanced(ctx, 1, 0)]


@rule(f"{NVVM}fmax.d", *(f"{NVVM}fmax.{k}" for k in _MIN_MAX_KINDS[1:]), spec=_BINARY)
def nvvm_fmax(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [balanced(ctx, 0, 1), balanced(ctx, 1, 0)]


@rule(f"{NVVM}fabs", f"{NVVM}fabs.ftz", f"{NVVM}fabs.d", f"{NVVM}fabs.f", f"{NVVM}fabs.ftz.f",
      spec=_UNIT)
def nvvm_fabs(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [lambda s: sign_times(ctx, ctx.operand(0), s)]


_ROUNDING_OPS = [f"{NVVM}{op}.{k}" for op in ("floor", "ceil", "trunc", "round")
                 for k in ("d", "f", "ftz.f")]


@rule(_ROUNDING_OPS[0], *_ROUNDING_OPS[1:],
      spec=Spec(domain=((0.05, 0.45),), note="away from every rounding jump"))
def nvvm_rounding(ctx: RuleContext) -> Sequence[PartialSpec]:
    return [None]


# --- libdevice ----------------------------------------------------------------------------

# libdevice's functions that are C library math under `__nv_` (each with its `f` float twin);
# the fast float versions `__nv_fast_<name>f`; and libdevice names with no C twin.
LIBDEVICE_MATH = (
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "pow",
    "sqrt", "cbrt", "hypot", "erf", "erfc", "fabs", "copysign", "fmin", "fmax", "fma", "fmod",
    "floor", "ceil", "trunc", "round", "rint", "nearbyint", "ldexp", "frexp", "remquo",
)
LIBDEVICE_FAST = ("sin", "cos", "tan", "exp", "exp10", "log", "log2", "log10", "pow")
_LIBDEVICE_OTHER = {"powi": "llvm.powi"}

LIBDEVICE: dict[str, T.FloatType] = {  # every `__nv_*` name with a rule -> its float type
    f"{LIBDEVICE_PREFIX}rsqrt": T.DOUBLE, f"{LIBDEVICE_PREFIX}rsqrtf": T.FLOAT}


def _alias(target: str, name: str, ty: T.FloatType) -> None:
    """Register `name` as another name of rule `target` (the check of `registry.rule`)."""
    if name in RULES or name in ALIASES:
        raise ValueError(f"rule {name!r} registered twice")
    if target not in RULES:
        raise ValueError(f"no rule {target!r} for {name!r} to alias")
    ALIASES[name] = target
    LIBDEVICE[name] = ty


def _rule_of(name: str) -> str:
    return ALIASES.get(name, name)


def _register_libdevice() -> None:
    for c_name in LIBDEVICE_MATH:
        for suffix, ty in (("", T.DOUBLE), ("f", T.FLOAT)):
            _alias(_rule_of(c_name + suffix), f"{LIBDEVICE_PREFIX}{c_name}{suffix}", ty)
    for c_name in LIBDEVICE_FAST:
        _alias(_rule_of(c_name + "f"), f"{LIBDEVICE_PREFIX}fast_{c_name}f", T.FLOAT)
    for name, target in _LIBDEVICE_OTHER.items():
        _alias(target, f"{LIBDEVICE_PREFIX}{name}", T.DOUBLE)
        _alias(target, f"{LIBDEVICE_PREFIX}{name}f", T.FLOAT)


_register_libdevice()


def _nvvm_callees() -> dict[str, tuple[str, ...]]:
    """The nvvm names of the rules defined here (not other modules' `llvm.nvvm.*` rules)."""
    mine = [k for k, r in RULES.items() if r.where.startswith(f"{__name__}:")]
    names = [*mine, *(a for a, k in ALIASES.items() if k in mine and a.startswith(NVVM))]
    return {n: _exact(n) for n in names}


# registry key -> the concrete callee names it stands for (`llvm.nvvm.fabs` -> `.f64`, `.f32`)
CALLEES: dict[str, tuple[str, ...]] = {**_nvvm_callees(), **{n: (n,) for n in LIBDEVICE}}
