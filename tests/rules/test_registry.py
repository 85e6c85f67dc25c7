"""The registry's lookups and keys, the inactive-callee table, and `emit_math`."""

from __future__ import annotations

import math

import pytest

from enzyme_py.backend import compile_ir, normalize
from enzyme_py.ir import Builder, Module, verify
from enzyme_py.ir import types as T
from enzyme_py.ir.instructions import Call
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import ConstantKeyword, Value
from enzyme_py.rules import registry
from enzyme_py.rules.inactive import is_known_inactive
from enzyme_py.rules.mathcalls import emit_math, float_constant
from enzyme_py.rules.registry import Spec, lookup, rule, rule_key
from tests.rules.harness import pack, unpack

V4D = T.VectorType(4, T.DOUBLE)


def test_one_rule_many_names() -> None:
    sin = lookup("llvm.sin")
    assert sin is not None
    assert lookup("llvm.sin.v4f64") is sin
    assert lookup("llvm.sin.f32") is sin
    assert lookup("sinf") is sin
    assert lookup("sin") is sin
    assert lookup("fmax") is lookup("llvm.maxnum.f64")
    assert lookup("fmod") is lookup("frem")
    assert lookup("llvm.powi.f64.i32") is not None
    assert lookup("no_such_function") is None


def test_rule_key() -> None:
    m = Module()
    fn = m.add_function(Function("f", T.FunctionType(T.DOUBLE, (T.DOUBLE,))))
    b = Builder(fn.append_block("entry"))
    cos = m.declare_function("llvm.cos.f64", T.FunctionType(T.DOUBLE, (T.DOUBLE,)))
    call = b.call(cos, [fn.args[0]])
    add = b.fadd(call, fn.args[0])
    b.ret(add)
    assert rule_key(call) == "llvm.cos"
    assert rule_key(add) == "fadd"
    indirect = Call(T.FunctionType(T.DOUBLE, (T.DOUBLE,)), fn.args[0], [fn.args[0]])
    assert rule_key(indirect) is None


def test_registering_twice_raises() -> None:
    before = dict(registry.RULES), dict(registry.ALIASES)
    with pytest.raises(ValueError, match="registered twice"):
        rule("fadd", spec=Spec(domain=((0.0, 1.0),)))(lambda ctx: [None])
    with pytest.raises(ValueError, match="registered twice"):
        rule("my.new.rule", "sinf", spec=Spec(domain=((0.0, 1.0),)))(lambda ctx: [None])
    assert (registry.RULES, registry.ALIASES) == before


@pytest.mark.parametrize("name", [
    "llvm.lifetime.start.p0", "llvm.lifetime.end.p0", "printf", "puts", "llvm.dbg.value",
    "llvm.smax.v4i32", "llvm.sadd.with.overflow.i32", "llvm.is.fpclass.f64", "__cxa_throw",
    "_ZSt20__throw_length_errorPKc", "llvm.objectsize.i64.p0", "llvm.expect.i1", "abort",
])
def test_known_inactive(name: str) -> None:
    assert is_known_inactive(name)


@pytest.mark.parametrize("name", ["sin", "llvm.sin.f64", "malloc", "memcpy", "_ZSt4sqrtf",
                                  "llvm.memcpy.p0.p0.i64", "my_function"])
def test_not_inactive(name: str) -> None:
    assert not is_known_inactive(name)


def test_no_rule_is_inactive() -> None:
    names = [*registry.all_rules(), *registry.ALIASES]
    assert not [n for n in names if is_known_inactive(n)]


# --- emit_math --------------------------------------------------------------------------------


def _math_module(ty: T.Type, name: str, nargs: int = 1) -> tuple[Module, str]:
    m = Module()
    fn = m.add_function(Function("f", T.FunctionType(ty, (ty,) * nargs)))
    b = Builder(fn.append_block("entry"))
    out = emit_math(b, m, name, list(fn.args))
    emit_math(b, m, name, list(fn.args))
    b.ret(out)
    verify(m)
    return m, str(m)


@pytest.mark.parametrize(("ty", "name", "callee"), [
    (T.DOUBLE, "cos", "llvm.cos.f64"), (T.FLOAT, "tanh", "llvm.tanh.f32"),
    (T.HALF, "exp", "llvm.exp.f16"), (V4D, "atan", "llvm.atan.v4f64"),
    (T.DOUBLE, "fmax", "llvm.maxnum.f64"), (T.FLOAT, "erf", "erff"),
    (T.DOUBLE, "erf", "erf"), (T.FloatType("x86_fp80"), "cbrt", "cbrtl"),
])
def test_emit_math_callee(ty: T.Type, name: str, callee: str) -> None:
    m, text = _math_module(ty, name)
    assert [f.name for f in m.functions if f.is_declaration] == [callee]
    assert f"@{callee}(" in text


def test_emit_math_powi_and_ldexp_mangle_the_exponent() -> None:
    m = Module()
    fn = m.add_function(Function("f", T.FunctionType(V4D, (V4D, T.I32))))
    b = Builder(fn.append_block("entry"))
    y = emit_math(b, m, "powi", list(fn.args))
    b.ret(y)
    assert m.functions[-1].name == "llvm.powi.v4f64.i32"


def test_emit_math_half_libm_goes_through_float() -> None:
    _, text = _math_module(T.HALF, "erf")
    assert "fpext half" in text and "call float @erff" in text and "fptrunc float" in text


def test_emit_math_scalarizes_libm_vectors() -> None:
    m = Module()
    fn = m.add_function(Function("f", T.FunctionType(T.VOID, (T.DOUBLE,) * 8)))
    b = Builder(fn.append_block("entry"))
    x, y = pack(b, V4D, fn.args[:4]), pack(b, V4D, fn.args[4:])
    outs = [*unpack(b, emit_math(b, m, "erf", [x])), *unpack(b, emit_math(b, m, "hypot", [x, y]))]
    ret = T.StructType((T.DOUBLE,) * 8)
    agg: Value = ConstantKeyword(ret, "poison")
    for i, o in enumerate(outs):
        agg = b.insertvalue(agg, o, [i])
    b.ret(agg)
    fn.function_type = T.FunctionType(ret, fn.function_type.params)
    verify(m)
    xs, ys = [0.1, -0.5, 1.0, 2.0], [1.0, 2.0, -3.0, 0.5]
    got = compile_ir(str(m), opt_level=0).function("f")(*xs, *ys)
    want = [math.erf(v) for v in xs] + [math.hypot(a, c) for a, c in zip(xs, ys, strict=True)]
    assert got == pytest.approx(want, rel=1e-15)


@pytest.mark.parametrize(("ty", "x"), [(T.FLOAT, 0.1), (T.HALF, 1 / 3), (T.FloatType("bfloat"),
                                                                           math.pi)])
def test_float_constant_is_exact_in_its_type(ty: T.Type, x: float) -> None:
    m = Module()
    fn = m.add_function(Function("f", T.FunctionType(ty, (ty,))))
    b = Builder(fn.append_block("entry"))
    b.ret(b.fmul(fn.args[0], float_constant(ty, x)))
    normalize(str(m))  # LLVM's parser rejects a constant that is inexact in its type
