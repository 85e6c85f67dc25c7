"""Numeric checks of derivative rules: build `@primal`, `@jvp` and `@vjp` with the Builder for
each test case of a rule, JIT them once, and compare at random points from the rule's `Spec`.

For a case `k`, with x the float operand lanes, t their tangents and s the result lanes' seed:

- `@primal.k(x...)` returns the result lanes as a struct;
- `@jvp.k(x..., t...)` returns sum_i partial_i(t_i) (`Linear.forward` for a `Linear`;
  `JointLinear.forward(t...)` for a structural rule);
- `@vjp.k(x..., s...)` returns every operand's adjoint partial_i(s) (`Linear.reverse`;
  `JointLinear.reverse[i]`; zero for `None`), lanes of all float operands in order.

Vectors and aggregates of floats are packed from scalar arguments inside the functions (native
code only takes scalars).
Checks: jvp against central finite differences of primal, and <vjp(u), v> == <u, jvp(v)>.
Float32 variants use the coarser `FLOAT32_TOL` (finite differences in single precision).
CUDA device math (nvvm intrinsics, libdevice `__nv_*`; their names from `rules.nvvm.CALLEES`)
is lowered to host math by `testing.nvvm_math.map_math` before the module is compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from enzyme_py.backend import JITModule, compile_ir
from enzyme_py.ir import Builder, Module, verify
from enzyme_py.ir import types as T
from enzyme_py.ir.instructions import Call, Instruction
from enzyme_py.ir.module import Function
from enzyme_py.ir.types import carries_float
from enzyme_py.ir.values import (
    ConstantAggregate,
    ConstantInt,
    ConstantKeyword,
    ConstantSplat,
    Value,
    const_float,
    zero,
)
from enzyme_py.rules import nvvm
from enzyme_py.rules.mathcalls import mangle
from enzyme_py.rules.registry import JointLinear, Linear, Rule, Spec
from enzyme_py.testing.nvvm_math import map_math
from tests.rules.context import SimpleContext

F64, F32 = T.DOUBLE, T.FLOAT
V4D, V4F = T.VectorType(4, F64), T.VectorType(4, F32)
V1D = T.VectorType(1, F64)
FLOAT32_TOL = 3e-3
POINTS = 6

Make = Callable[[Builder, Module, list[Value]], Instruction]


@dataclass(frozen=True)
class Case:
    """One way to instantiate a rule: operand types and how to build the instruction.

    Integer operands get their value from `Spec.int_args`; operands in `cond` are built as
    `fcmp olt p, 0.5` from a float argument p of the listed type (the `select` condition).
    """

    label: str
    types: tuple[T.Type, ...]
    make: Make
    cond: frozenset[int] = frozenset()


@dataclass
class Built:
    """What the numeric checker needs to call one built case."""

    label: str
    index: int
    x_dtypes: list[type] = field(default_factory=list)
    x_domain: list[tuple[float, float]] = field(default_factory=list)
    x_frozen: list[bool] = field(default_factory=list)  # lanes with no derivative by design
    out_dtypes: list[type] = field(default_factory=list)


def lanes_of(ty: T.Type) -> tuple[int, T.Type]:
    if isinstance(ty, T.VectorType):
        return ty.count, ty.element
    return 1, ty


def leaves(ty: T.Type) -> list[T.Type]:
    """The scalar floats of a float, float vector or aggregate of them, in order."""
    if isinstance(ty, (T.StructType, T.ArrayType)):
        return [t for e in _members(ty) for t in leaves(e)]
    n, elem = lanes_of(ty)
    return [elem] * n


def _members(ty: T.Type) -> list[T.Type]:
    return list(ty.elements) if isinstance(ty, T.StructType) else [ty.element] * ty.count


def _np(ty: T.Type) -> type:
    return np.float32 if ty == F32 else np.float64


def pack(b: Builder, ty: T.Type, scalars: Sequence[Value]) -> Value:
    if isinstance(ty, (T.StructType, T.ArrayType)):
        agg: Value = ConstantKeyword(ty, "poison")
        pos = 0
        for i, member in enumerate(_members(ty)):
            n = len(leaves(member))
            agg = b.insertvalue(agg, pack(b, member, scalars[pos:pos + n]), [i])
            pos += n
        return agg
    if not isinstance(ty, T.VectorType):
        return scalars[0]
    v: Value = ConstantKeyword(ty, "poison")
    for i, s in enumerate(scalars):
        v = b.insertelement(v, s, ConstantInt(T.I32, i))
    return v


def unpack(b: Builder, v: Value) -> list[Value]:
    if isinstance(v.type, (T.StructType, T.ArrayType)):
        return [x for i in range(len(_members(v.type)))
                for x in unpack(b, b.extractvalue(v, [i]))]
    if not isinstance(v.type, T.VectorType):
        return [v]
    return [b.extractelement(v, ConstantInt(T.I32, i)) for i in range(v.type.count)]


def define(module: Module, name: str, params: Sequence[T.Type],
           body: Callable[[Builder, list[Value]], list[Value]]) -> Function:
    """A function returning the struct of the scalars `body` computes."""
    fn = module.add_function(Function(name, T.FunctionType(T.VOID, tuple(params))))
    b = Builder(fn.append_block("entry"))
    outs = body(b, list(fn.args))
    ret = T.StructType(tuple(o.type for o in outs))
    agg: Value = ConstantKeyword(ret, "poison")
    for i, o in enumerate(outs):
        agg = b.insertvalue(agg, o, [i])
    b.ret(agg)
    fn.function_type = T.FunctionType(ret, tuple(params))
    return fn


def operand_count(inst: Instruction) -> int:
    return len(inst.args) if isinstance(inst, Call) else len(inst.operands)


def partials_of(rule: Rule, b: Builder, inst: Instruction) -> list:
    """Call the rule and check its laziness: no instruction is built before a partial is used.
    A `JointLinear` rule gives its per-operand transposes (`joint_of` its whole form)."""
    block = b.block
    assert block is not None
    before = len(block.instructions)
    ctx = SimpleContext(b, inst)
    got = rule.partials(ctx)
    partials = list(got.reverse if isinstance(got, JointLinear) else got)
    assert len(block.instructions) == before, f"{rule.name}: rule built IR eagerly"
    assert not ctx.fetched, f"{rule.name}: rule fetched primal values eagerly"
    assert len(partials) == operand_count(inst), (
        f"{rule.name}: {len(partials)} partials for {operand_count(inst)} operands")
    return partials


def joint_of(rule: Rule, b: Builder, inst: Instruction) -> JointLinear | None:
    got = rule.partials(SimpleContext(b, inst))
    return got if isinstance(got, JointLinear) else None


def _int_constant(ty: T.Type, value: int) -> Value:
    if isinstance(ty, T.VectorType):
        return ConstantSplat(ty, ConstantInt(ty.element, value))
    return ConstantInt(ty, value)


def _float_slots(case: Case) -> list[int]:
    return [i for i, t in enumerate(case.types) if carries_float(t)]


def build_case(module: Module, k: int, case: Case, rule: Rule, spec: Spec) -> Built:
    slots = _float_slots(case)
    x_types = [t for i in slots for t in leaves(case.types[i])]
    nx = len(x_types)

    def operands(b: Builder, xs: list[Value]) -> list[Value]:
        ops, pos = [], 0
        for i, ty in enumerate(case.types):
            if i in spec.ptr_args:  # an integer output (frexp's exponent): scratch memory
                ops.append(b.alloca(T.I64))
                continue
            if not carries_float(ty):
                ops.append(_int_constant(ty, spec.int_args[i]))
                continue
            n = len(leaves(ty))
            v = pack(b, ty, xs[pos:pos + n])
            pos += n
            if i in case.cond:
                v = b.fcmp("olt", v, const_float(ty, 0.5))
            ops.append(v)
        return ops

    def tangents(b: Builder, ts: list[Value]) -> dict[int, Value]:
        out, pos = {}, 0
        for i in slots:
            n = len(leaves(case.types[i]))
            out[i] = pack(b, case.types[i], ts[pos:pos + n])
            pos += n
        return out

    result_type: list[T.Type] = []

    def primal(b: Builder, args: list[Value]) -> list[Value]:
        inst = case.make(b, module, operands(b, args))
        result_type.append(inst.type)
        return unpack(b, inst)

    def jvp(b: Builder, args: list[Value]) -> list[Value]:
        inst = case.make(b, module, operands(b, args[:nx]))
        partials = partials_of(rule, b, inst)
        ts = tangents(b, args[nx:])
        for i, p in enumerate(partials):
            if i in case.cond or not carries_float(case.types[i]):
                assert p is None, f"{case.label}: operand {i} has no derivative"
        joint = joint_of(rule, b, inst)
        if joint is not None:
            term = joint.forward([None if i in case.cond else ts.get(i)
                                  for i in range(len(partials))])
            assert term.type == inst.type, f"{case.label}: tangent type {term.type}"
            return unpack(b, term)
        total: Value | None = None
        for i, p in enumerate(partials):
            if i in case.cond or not carries_float(case.types[i]):
                continue
            if p is None:
                continue
            term = p.forward(ts[i]) if isinstance(p, Linear) else p(ts[i])
            assert term.type == inst.type, f"{case.label}: tangent type {term.type}"
            total = term if total is None else b.fadd(total, term)
        return unpack(b, total if total is not None else const_float(inst.type, 0.0))

    def vjp(b: Builder, args: list[Value]) -> list[Value]:
        inst = case.make(b, module, operands(b, args[:nx]))
        partials = partials_of(rule, b, inst)
        seed = pack(b, inst.type, args[nx:])
        outs: list[Value] = []
        for i in slots:
            p, ty = partials[i], case.types[i]
            adj = ((const_float(ty, 0.0) if ty.is_fp_or_fp_vector else zero(ty)) if p is None
                   else p.reverse(seed) if isinstance(p, Linear) else p(seed))
            assert adj.type == ty, f"{case.label}: adjoint type {adj.type} for {ty}"
            outs += unpack(b, adj)
        return outs

    define(module, f"primal.{k}", x_types, primal)
    out_types = leaves(result_type[0])
    define(module, f"jvp.{k}", x_types * 2, jvp)
    define(module, f"vjp.{k}", x_types + out_types, vjp)
    built = Built(case.label, k, out_dtypes=[_np(t) for t in out_types])
    for i in slots:
        elems = leaves(case.types[i])
        built.x_dtypes += [_np(e) for e in elems]
        built.x_domain += [spec.domain[i]] * len(elems)
        built.x_frozen += [i in case.cond] * len(elems)
    return built


# --- numeric checks ---------------------------------------------------------------------------


def check(jm: JITModule, built: Built, spec: Spec, rng: np.random.Generator) -> list[str]:
    """Failures of `built` at `POINTS` random points (empty when all checks pass)."""
    primal = jm.function(f"primal.{built.index}")
    jvp = jm.function(f"jvp.{built.index}")
    vjp = jm.function(f"vjp.{built.index}")
    single = np.float32 in built.x_dtypes or np.float32 in built.out_dtypes
    tol = max(spec.tol, FLOAT32_TOL) if single else spec.tol
    h = 4e-3 if single else 1e-5
    adj_tol = 1e-4 if single else 1e-10
    nx = len(built.x_dtypes)
    failures = []

    def rounded(values: np.ndarray) -> list[float]:
        return [float(dt(v)) for dt, v in zip(built.x_dtypes, values, strict=True)]

    for _ in range(POINTS):
        x = np.array(rounded(np.array([rng.uniform(lo, hi) for lo, hi in built.x_domain])))
        v = rng.standard_normal(nx) * ~np.array(built.x_frozen)
        xp, xm = np.array(rounded(x + h * v)), np.array(rounded(x - h * v))
        v_eff = (xp - xm) / (2 * h)  # the direction actually probed after rounding
        f0 = np.array(primal(*x))
        fd = (np.array(primal(*xp)) - np.array(primal(*xm))) / (2 * h)
        jv = np.array(jvp(*x, *v_eff))
        scale = 1.0 + np.max(np.abs(f0))
        if not np.all(np.abs(jv - fd) <= tol * (scale + np.abs(fd))):
            failures.append(f"{built.label}: jvp {jv} != finite differences {fd} at x={x}, "
                            f"v={v_eff}")
        u = rng.standard_normal(len(built.out_dtypes))
        adj = np.array(vjp(*x, *u))
        lhs, rhs = float(adj @ v_eff), float(u @ jv)
        size = float(np.abs(adj * v_eff).sum() + np.abs(u * jv).sum()) + 1e-30
        if not abs(lhs - rhs) <= adj_tol * size:
            failures.append(f"{built.label}: <vjp(u), v> = {lhs} != <u, jvp(v)> = {rhs} "
                            f"at x={x}")
    return failures


# --- which cases test a rule ------------------------------------------------------------------


def _binop(op: str) -> Make:
    return lambda b, m, ops: b.binop(op, *ops)


def cast_make(op: str, to: T.Type) -> Make:
    return lambda b, m, ops: b.cast(op, ops[0], to)


def _elementwise(make: Callable[[T.Type], Make], arity: int, name: str,
                 types: Sequence[T.Type] = (F64, F32, V4D)) -> list[Case]:
    return [Case(f"{name} {t}", (t,) * arity, make(t)) for t in types]


def opcode_cases(name: str) -> list[Case] | None:
    """Cases of an instruction rule whose operands carry derivatives (None: not an opcode)."""
    if name in ("fadd", "fsub", "fmul", "fdiv", "frem"):
        return _elementwise(lambda t: _binop(name), 2, name)
    if name == "fneg":
        return _elementwise(lambda t: lambda b, m, ops: b.fneg(ops[0]), 1, name)
    if name == "freeze":
        return _elementwise(lambda t: lambda b, m, ops: b.freeze(ops[0]), 1, name)
    if name == "select":
        sel: Make = lambda b, m, ops: b.select(*ops)  # noqa: E731
        on = frozenset({0})
        return [Case("select double", (F64,) * 3, sel, on),
                Case("select <4 x double>", (V4D,) * 3, sel, on),
                Case("select i1, <4 x double>", (F64, V4D, V4D), sel, on)]
    structural = structural_cases(name)
    if structural is not None:
        return structural
    casts = {"fpext": [(F32, F64), (V4F, V4D)], "fptrunc": [(F64, F32), (V4D, V4F)],
             "bitcast": [(V1D, F64), (F64, V1D)]}
    if name in casts:
        return [Case(f"{name} {a} to {r}", (a,), cast_make(name, r)) for a, r in casts[name]]
    return None


V2D = T.VectorType(2, F64)
PAIR = T.StructType((F64, F64))
NESTED = T.StructType((F64, T.ArrayType(2, V2D)))  # { double, [2 x <2 x double>] }


def _shuffle(mask: Sequence[int]) -> Make:
    """A shuffle with this constant mask (the mask operand is ignored; poison lanes would
    leave result lanes without a value to check, see tests/ad/test_structural_ops.py)."""
    lanes = tuple(ConstantInt(T.I32, m) for m in mask)
    vec = ConstantAggregate(T.VectorType(len(mask), T.I32), lanes)
    return lambda b, m, ops: b.shufflevector(ops[0], ops[1], vec)


def structural_cases(name: str) -> list[Case] | None:
    """Cases of the vector and aggregate opcodes (None: not one of them)."""
    i32, mask4 = T.I32, T.VectorType(4, T.I32)
    if name == "extractelement":
        make: Make = lambda b, m, ops: b.extractelement(*ops)  # noqa: E731
        return [Case("extractelement <4 x double>", (V4D, i32), make),
                Case("extractelement <4 x float>", (V4F, i32), make)]
    if name == "insertelement":
        make = lambda b, m, ops: b.insertelement(*ops)  # noqa: E731
        return [Case("insertelement <4 x double>", (V4D, F64, i32), make),
                Case("insertelement <4 x float>", (V4F, F32, i32), make)]
    if name == "shufflevector":
        splat: Make = lambda b, m, ops: b.shufflevector(*ops)  # noqa: E731
        return [Case("shufflevector splat of lane 1", (V4D, V4D, mask4), splat),
                Case("shufflevector interleave", (V4D, V4D, mask4), _shuffle([0, 4, 1, 5])),
                Case("shufflevector reverse", (V4D, V4D, mask4), _shuffle([3, 2, 1, 0])),
                Case("shufflevector repeated lanes of both", (V4D, V4D, mask4),
                     _shuffle([6, 0, 6, 2, 0, 7])),
                Case("shufflevector deinterleave <4 x float>", (V4F, V4F, mask4),
                     _shuffle([0, 2, 4, 6]))]
    if name == "extractvalue":
        return [Case("extractvalue { double, double } 1", (PAIR,),
                     lambda b, m, ops: b.extractvalue(ops[0], [1])),
                Case("extractvalue nested 1, 1", (NESTED,),
                     lambda b, m, ops: b.extractvalue(ops[0], [1, 1])),
                Case("extractvalue nested 1", (NESTED,),
                     lambda b, m, ops: b.extractvalue(ops[0], [1]))]
    if name == "insertvalue":
        return [Case("insertvalue { double, double } 0", (PAIR, F64),
                     lambda b, m, ops: b.insertvalue(ops[0], ops[1], [0])),
                Case("insertvalue nested 1, 0", (NESTED, V2D),
                     lambda b, m, ops: b.insertvalue(ops[0], ops[1], [1, 0]))]
    return None


# Instruction rules with no float derivative at all: operand types and how to build them.
NO_DERIVATIVE: dict[str, tuple[tuple[T.Type, ...], Make]] = {
    "sitofp": ((T.I32,), cast_make("sitofp", F64)),
    "uitofp": ((T.I32,), cast_make("uitofp", F64)),
    "fptosi": ((F64,), cast_make("fptosi", T.I32)),
    "fptoui": ((F64,), cast_make("fptoui", T.I32)),
    "fcmp": ((F64, F64), lambda b, m, ops: b.fcmp("olt", *ops)),
}


def call_make(callee: str, ret: T.Type, types: tuple[T.Type, ...]) -> Make:
    def make(b: Builder, m: Module, ops: list[Value]) -> Instruction:
        return b.call(m.declare_function(callee, T.FunctionType(ret, types)), ops)

    return make


def call_cases(names: Sequence[str], spec: Spec) -> list[Case]:
    """Cases of a call rule for each of its names: `llvm.*` at double, float and <4 x double>;
    a C name at double, or float for the `f` twin of another name of the rule."""
    cases: list[Case] = []
    arity = len(spec.domain)
    # libdevice names last: the host names' cases keep their random points whatever is added
    for name in sorted(names, key=lambda n: n in nvvm.LIBDEVICE):
        if name in nvvm.CALLEES:  # one case per concrete name, of its own float type
            for callee in nvvm.CALLEES[name]:
                ft = nvvm.callee_type(callee)
                types = tuple(T.PTR if i in spec.ptr_args else T.I32 if i in spec.int_args
                              else ft for i in range(arity))
                cases.append(Case(f"{callee} {ft}", types, call_make(callee, ft, types)))
        elif name.startswith("llvm.vector.reduce."):
            types = (F64,) * (arity - 1) + (V4D,)
            cases.append(Case(f"{name}.v4f64", types, call_make(f"{name}.v4f64", F64, types)))
        elif name.startswith("llvm."):
            for ft in (F64, F32, V4D):
                vector_int = ft == V4D and name != "llvm.powi"  # powi's exponent is scalar
                ity = T.VectorType(4, T.I32) if vector_int else T.I32
                types = tuple(ity if i in spec.int_args else ft for i in range(arity))
                callee = ".".join([name, *(mangle(t) for t in dict.fromkeys(types))])
                cases.append(Case(callee, types, call_make(callee, ft, types)))
        else:
            ft = F32 if name.endswith("f") and name[:-1] in names else F64
            types = tuple(T.PTR if i in spec.ptr_args else T.I32 if i in spec.int_args else ft
                          for i in range(arity))
            cases.append(Case(f"{name} {ft}", types, call_make(name, ft, types)))
    return cases


def jit_cases(rule: Rule, cases: Sequence[Case]) -> tuple[JITModule, list[Built]]:
    """Build and JIT `cases` of `rule` in one module: (JIT module, built cases)."""
    assert rule.spec is not None
    module = Module(f"rule_{rule.name}")
    built = [build_case(module, k, c, rule, rule.spec) for k, c in enumerate(cases)]
    map_math(module)
    verify(module)
    return compile_ir(str(module), opt_level=0), built
