"""Emit calls to math functions for any float or float-vector type.

`emit_math(builder, module, "cos", [x])` calls the LLVM 22 intrinsic when one exists
(`llvm.cos.f64`, `llvm.cos.v4f64`, `llvm.powi.f32.i32` ...), else the C library function
(`erf` for double, `erff` for float, `erfl` for x86_fp80; `half` and `bfloat` go through
`float`); a vector given to a libm-only function is scalarized lane by lane. The vector
reductions are reachable as `vector.reduce.fadd` (start, vector) ... `vector.reduce.fmax`.

Invariants: the callee is declared in `module` once (`Module.declare_function` returns the
existing declaration); the result has the type of the first argument (the element type for
reductions); nothing is folded.

On an NVPTX module (target triple `nvptx...`), where the C library and most float intrinsics do
not exist, only the intrinsics in `NVPTX_INTRINSICS` are emitted (they lower to PTX
instructions); every other function calls libdevice's `__nv_<name>` (`__nv_cos` for double,
`__nv_cosf` for float, `half` and `bfloat` through float), declared in the module for the linker
to resolve; `fmod` stays `frem`. Code for any other triple is unchanged by this.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import Module
from enzyme_py.ir.values import (
    Constant,
    ConstantInt,
    ConstantKeyword,
    ConstantSplat,
    Value,
    const_float,
)

# Float intrinsics of LLVM 22 whose operands all have the overloaded float type.
INTRINSICS = frozenset({
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "exp", "exp2", "exp10", "log", "log2", "log10", "pow", "sqrt", "fabs", "copysign",
    "floor", "ceil", "trunc", "round", "rint", "nearbyint", "roundeven", "canonicalize",
    "fma", "fmuladd", "minnum", "maxnum", "minimum", "maximum", "minimumnum", "maximumnum",
})
# Intrinsics whose last operand is an integer, mangled too (`llvm.powi.f64.i32`).
INT_LAST_INTRINSICS = frozenset({"powi", "ldexp"})
# C names that are LLVM intrinsics under another name.
LIBM_TO_INTRINSIC = {"fmax": "maxnum", "fmin": "minnum"}

# The float intrinsics NVPTX lowers to instructions for float and double (no library call, no
# approximation: `llvm.exp2.f32` would become `ex2.approx`, so it is not listed).
NVPTX_INTRINSICS = frozenset({
    "sqrt", "fabs", "copysign", "floor", "ceil", "trunc", "round", "rint", "nearbyint",
    "roundeven", "canonicalize", "fma", "fmuladd", "minnum", "maxnum", "minimum", "maximum",
    "minimumnum", "maximumnum", "ldexp",
})
LIBDEVICE_PREFIX = "__nv_"

_MANGLE = {"half": "f16", "bfloat": "bf16", "float": "f32", "double": "f64",
           "x86_fp80": "f80", "fp128": "f128", "ppc_fp128": "ppcf128"}
_LIBM_SUFFIX = {"float": "f", "double": "", "x86_fp80": "l", "fp128": "l"}


def mangle(ty: T.Type) -> str:
    """LLVM's overload suffix of `ty`: `f64`, `f32`, `v4f64`, `nxv2f32`, `i32`, `v4i32`."""
    if isinstance(ty, T.VectorType):
        return f"{'nx' if ty.scalable else ''}v{ty.count}{mangle(ty.element)}"
    if isinstance(ty, T.FloatType):
        return _MANGLE[ty.kind]
    if isinstance(ty, T.IntType):
        return f"i{ty.bits}"
    raise TypeError(f"no intrinsic mangling for type {ty}")


def intrinsic_name(name: str, args: Sequence[Value]) -> str | None:
    """`llvm.<name>.<suffixes>` when `name` is a float intrinsic of LLVM 22, else None."""
    name = LIBM_TO_INTRINSIC.get(name, name)
    if name in INTRINSICS:
        return f"llvm.{name}.{mangle(args[0].type)}"
    if name in INT_LAST_INTRINSICS:
        return f"llvm.{name}.{mangle(args[0].type)}.{mangle(args[-1].type)}"
    return None


def emit_math(builder: Builder, module: Module, name: str, args: Sequence[Value]) -> Value:
    """Call math function `name` (`cos`, `pow`, `erf` ...) on `args`; returns the result.

    Example::

        y = emit_math(b, m, "cos", [x])   # x: <4 x double> -> call @llvm.cos.v4f64
        # the same in an NVPTX module: four `call double @__nv_cos(double ...)`
    """
    if not args:
        raise ValueError(f"math function {name!r} needs arguments")
    ty = args[0].type
    if not ty.is_fp_or_fp_vector and not name.startswith("vector.reduce."):
        raise TypeError(f"math function {name!r} called on non-float type {ty}")
    if name.startswith("vector.reduce."):
        return _reduction(builder, module, name, args)
    nvptx = is_nvptx(module)
    intrinsic = intrinsic_name(name, args)
    if nvptx and LIBM_TO_INTRINSIC.get(name, name) not in NVPTX_INTRINSICS:
        intrinsic = None
    if intrinsic is not None:
        fn = module.declare_function(intrinsic, T.FunctionType(ty, tuple(a.type for a in args)))
        return builder.call_intrinsic(fn, args)
    if name == "fmod":
        return builder.frem(args[0], args[1])
    call = _libdevice_call if nvptx else _libm_call
    if isinstance(ty, T.VectorType):
        return _scalarized(builder, module, name, args, ty, call)
    return call(builder, module, name, args, ty)


def is_nvptx(module: Module) -> bool:
    """Whether `module` is CUDA device code (its target triple is NVPTX's)."""
    return (module.triple or "").startswith("nvptx")


def _reduction(builder: Builder, module: Module, name: str, args: Sequence[Value]) -> Value:
    # `vector.reduce.fadd(start, v)`, `vector.reduce.fmax(v)`: overloaded on the vector only.
    vec = args[-1].type
    if not (isinstance(vec, T.VectorType) and vec.is_fp_or_fp_vector):
        raise TypeError(f"{name!r} needs a float vector as its last operand, not {vec}")
    fty = T.FunctionType(vec.element, tuple(a.type for a in args))
    return builder.call_intrinsic(module.declare_function(f"llvm.{name}.{mangle(vec)}", fty),
                                  args)


def _libm_call(builder: Builder, module: Module, name: str, args: Sequence[Value],
               ty: T.Type) -> Value:
    assert isinstance(ty, T.FloatType)
    if ty.kind not in _LIBM_SUFFIX:  # half, bfloat, ppc_fp128: compute in float
        wide = [builder.fpext(a, T.FLOAT) if a.type == ty else a for a in args]
        return builder.fptrunc(_libm_call(builder, module, name, wide, T.FLOAT), ty)
    fn = module.declare_function(name + _LIBM_SUFFIX[ty.kind],
                                 T.FunctionType(ty, tuple(a.type for a in args)))
    return builder.call_intrinsic(fn, args)


_LIBDEVICE_SUFFIX = {"float": "f", "double": ""}
_ScalarCall = Callable[[Builder, Module, str, Sequence[Value], T.Type], Value]


def _libdevice_call(builder: Builder, module: Module, name: str, args: Sequence[Value],
                    ty: T.Type) -> Value:
    assert isinstance(ty, T.FloatType)
    if ty.kind in ("half", "bfloat"):  # libdevice has no half functions: compute in float
        wide = [builder.fpext(a, T.FLOAT) if a.type == ty else a for a in args]
        return builder.fptrunc(_libdevice_call(builder, module, name, wide, T.FLOAT), ty)
    if ty.kind not in _LIBDEVICE_SUFFIX:
        raise TypeError(f"libdevice has no {name!r} for {ty} (NVPTX has float and double)")
    callee = f"{LIBDEVICE_PREFIX}{name}{_LIBDEVICE_SUFFIX[ty.kind]}"
    fn = module.declare_function(callee, T.FunctionType(ty, tuple(a.type for a in args)))
    return builder.call_intrinsic(fn, args)


def _scalarized(builder: Builder, module: Module, name: str, args: Sequence[Value],
                ty: T.VectorType, call: _ScalarCall = _libm_call) -> Value:
    if ty.scalable:
        raise TypeError(f"cannot scalarize {name!r} over scalable vector {ty}")
    out: Value = ConstantKeyword(ty, "poison")
    for lane in range(ty.count):
        idx = ConstantInt(T.I32, lane)
        scalars = [lane_of(builder, a, idx) for a in args]
        out = builder.insertelement(out, call(builder, module, name, scalars, ty.element), idx)
    return out


def lane_of(builder: Builder, v: Value, idx: ConstantInt) -> Value:
    """Lane `idx` of vector `v` (a scalar `v` is returned unchanged)."""
    if not isinstance(v.type, T.VectorType):
        return v
    if isinstance(v, ConstantSplat):
        return v.element
    return builder.extractelement(v, idx)


def splat(builder: Builder, scalar: Value, ty: T.Type) -> Value:
    """`scalar` broadcast to vector type `ty` (`scalar` itself when `ty` is not a vector)."""
    if not isinstance(ty, T.VectorType):
        return scalar
    if isinstance(scalar, Constant):
        return ConstantSplat(ty, scalar)
    one = builder.insertelement(ConstantKeyword(ty, "poison"), scalar, ConstantInt(T.I32, 0))
    mask = ConstantKeyword(T.VectorType(ty.count, T.I32, ty.scalable), "zeroinitializer")
    return builder.shufflevector(one, ConstantKeyword(ty, "poison"), mask)


def module_of(builder: Builder) -> Module:
    """The module the builder inserts into."""
    block = builder.block
    fn = block.parent if block is not None else None
    module = fn.parent if fn is not None else None
    if module is None:
        raise ValueError("the builder's block is not inside a function of a module")
    return module


class MathContextMixin:
    """`RuleContext.math` and `RuleContext.const` for any context that has a `builder`."""

    builder: Builder

    def math(self, name: str, *args: Value) -> Value:
        return emit_math(self.builder, module_of(self.builder), name, args)

    def const(self, x: float, like: Value) -> Value:
        return float_constant(like.type, x)


def float_constant(ty: T.Type, x: float) -> Value:
    """`x` rounded to the precision of `ty`'s element, as a scalar or a vector splat."""
    return const_float(ty, x)
