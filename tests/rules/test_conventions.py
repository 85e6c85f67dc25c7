"""Derivatives at kinks, poles and ties follow the documented conventions (mostly JAX's)."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from enzyme_py.backend import compile_ir
from enzyme_py.ir import Builder, Module
from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function
from enzyme_py.ir.values import ConstantInt
from enzyme_py.rules.registry import lookup
from tests.rules import harness as H

F64, V4D = H.F64, H.V4D
NAN, INF = math.nan, math.inf


def jitted(name: str, case: H.Case) -> tuple[Callable, Callable]:
    """(jvp, vjp) native functions of one case of rule `name`."""
    rule = lookup(name)
    assert rule is not None
    jm, _ = H.jit_cases(rule, [case])
    return jm.function("jvp.0"), jm.function("vjp.0")


def call_case(callee: str, types: tuple[T.Type, ...], ret: T.Type = F64) -> H.Case:
    return H.Case(callee, types, H.call_make(callee, ret, types))


def test_fabs_at_zero_is_zero() -> None:
    jvp, vjp = jitted("fabs", call_case("fabs", (F64,)))
    assert jvp(0.0, 1.0) == (0.0,) and vjp(0.0, 1.0) == (0.0,) and vjp(-0.0, 1.0) == (0.0,)
    assert vjp(-2.0, 1.0) == (-1.0,) and vjp(2.0, 1.0) == (1.0,)


@pytest.mark.parametrize("callee", ["llvm.maxnum.f64", "llvm.minimum.f64", "fmin"])
def test_min_max_ties_split_the_seed(callee: str) -> None:
    jvp, vjp = jitted(callee, call_case(callee, (F64, F64)))
    assert vjp(1.0, 1.0, 1.0) == (0.5, 0.5)
    assert jvp(1.0, 1.0, 1.0, 0.0) == (0.5,)


def test_maxnum_ignores_nan_operand() -> None:
    _, vjp = jitted("fmax", call_case("fmax", (F64, F64)))
    assert vjp(NAN, 2.0, 1.0) == (0.0, 1.0)


def test_sqrt_at_zero_is_infinite() -> None:
    jvp, _ = jitted("sqrt", call_case("sqrt", (F64,)))
    assert jvp(0.0, 1.0) == (INF,)


def test_pow_at_zero_base_and_zero_exponent() -> None:
    _, vjp = jitted("pow", call_case("pow", (F64, F64)))
    assert vjp(0.0, 2.0, 1.0) == (0.0, 0.0)  # d/dy would be 0 * log(0) = NaN without the guard
    assert vjp(2.0, 0.0, 1.0) == pytest.approx((0.0, math.log(2.0)))


def test_reduce_fmul_is_exact_at_a_zero_lane() -> None:
    name = "llvm.vector.reduce.fmul.v4f64"
    jvp, vjp = jitted(name, call_case(name, (F64, V4D)))
    assert vjp(1.5, 2.0, 0.0, 3.0, 4.0, 1.0) == (0.0, 0.0, 36.0, 0.0, 0.0)
    assert jvp(1.5, 2.0, 0.0, 3.0, 4.0, 1.0, 1.0, 1.0, 1.0, 1.0) == (36.0,)


def test_reduce_fmax_ties_send_the_seed_to_every_tied_lane() -> None:
    name = "llvm.vector.reduce.fmax.v4f64"
    jvp, vjp = jitted(name, call_case(name, (V4D,)))
    assert vjp(1.0, 3.0, 3.0, 2.0, 1.0) == (0.0, 1.0, 1.0, 0.0)
    assert jvp(1.0, 3.0, 3.0, 2.0, 1.0, 1.0, 1.0, 1.0) == (2.0,)


def _partials(name: str, types: tuple[T.Type, ...], build: H.Make) -> list:
    m = Module()
    fn = m.add_function(Function("f", T.FunctionType(T.VOID, types)))
    b = Builder(fn.append_block("entry"))
    rule = lookup(name)
    assert rule is not None
    return H.partials_of(rule, b, build(b, m, list(fn.args)))


def test_powi_with_constant_zero_exponent_has_no_derivative() -> None:
    def build(b: Builder, m: Module, args: list) -> object:
        powi = H.call_make("llvm.powi.f64.i32", F64, (F64, T.I32))
        return powi(b, m, [args[0], ConstantInt(T.I32, 0)])

    assert _partials("llvm.powi", (F64,), build) == [None, None]


def test_powi_with_dynamic_exponent() -> None:
    rule = lookup("llvm.powi")
    assert rule is not None
    m = Module()
    fn = m.add_function(Function("f", T.FunctionType(F64, (F64, T.I32))))
    b = Builder(fn.append_block("entry"))
    call = H.call_make("llvm.powi.f64.i32", F64, (F64, T.I32))(b, m, list(fn.args))
    partials = H.partials_of(rule, b, call)
    assert partials[1] is None
    b.ret(partials[0](fn.args[0]))  # seed = x: x * n * x^(n-1) = n x^n
    f = compile_ir(str(m), opt_level=0).function("f")
    assert f(2.0, 3) == 24.0 and f(2.0, -1) == pytest.approx(-0.5)


@pytest.mark.parametrize(("name", "types", "build"), [
    ("bitcast", (T.I64,), H.cast_make("bitcast", F64)),
    ("bitcast", (F64,), H.cast_make("bitcast", T.I64)),
    ("llvm.floor", (F64,), H.call_make("llvm.floor.f64", F64, (F64,))),
    ("roundf", (T.FLOAT,), H.call_make("roundf", T.FLOAT, (T.FLOAT,))),
])
def test_no_derivative_builds_nothing(name: str, types: tuple, build: H.Make) -> None:
    assert _partials(name, types, build) == [None]


def test_copysign_sign_operand_has_no_derivative() -> None:
    partials = _partials("copysign", (F64, F64), H.call_make("copysign", F64, (F64, F64)))
    assert partials[0] is not None and partials[1] is None
