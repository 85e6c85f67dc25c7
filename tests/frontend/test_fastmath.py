"""The `fastmath` option: which operations get LLVM's fast-math flags, the option's values,
and results that stay close to the IEEE-exact ones (jit and grad)."""

import math

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.fastmath import add_fast_math, fast_math_flags
from enzyme_py.ir import parse

IR = """
define double @f(double %x, i64 %n, ptr %p, i1 %c) {
entry:
  %a = fadd double %x, 1.0
  %m = fmul <2 x double> <double 1.0, double 2.0>, <double 3.0, double 4.0>
  %k = add i64 %n, 1
  %q = fcmp olt double %a, 0.0
  %i = icmp slt i64 %k, 3
  %s = select i1 %c, double %a, double %x
  %t = select i1 %c, i64 %k, i64 %n
  %r = call double @llvm.sqrt.f64(double %s)
  call void @g(double %r)
  %z = fneg double %r
  br label %exit
exit:
  %ph = phi double [ %z, %entry ]
  ret double %ph
}
declare double @llvm.sqrt.f64(double)
declare void @g(double)
"""


def test_flags_go_on_floating_point_operations_only():
    module = add_fast_math(parse(IR), ("reassoc", "contract"))
    flagged = {inst.name or inst.opcode: tuple(inst.flags)
               for inst in module.get_function("f").instructions()}
    for name in ("a", "m", "q", "s", "r", "z", "ph"):
        assert flagged[name] == ("reassoc", "contract"), name
    for name in ("k", "i", "t", "call", "br", "ret"):
        assert "reassoc" not in flagged.get(name, ()), name
    text = str(module)
    assert "fadd reassoc contract double" in text and "call reassoc contract double" in text
    assert "call void @g" in text and "add i64" in text


@pytest.mark.parametrize("value, flags", [
    (False, ()), (None, ()), (True, ("fast",)), ("fast", ("fast",)),
    ({"contract", "reassoc"}, ("reassoc", "contract")), ("nsz", ("nsz",)),
])
def test_option_values(value, flags):
    assert fast_math_flags(value) == flags


def test_unknown_flag_is_a_value_error():
    with pytest.raises(ValueError, match="unknown flag"):
        ez.jit(lambda x: x, fastmath={"reassoc", "fastest"})


def test_python_errors_and_nnan_do_not_mix():
    with pytest.raises(ValueError, match="nnan"):
        ez.jit(lambda x: x, errors="python", fastmath=True)
    ez.jit(lambda x: x, errors="python", fastmath={"reassoc", "contract"})  # allowed


def dot(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i]
    return s


def loss(w, x):
    return np.sum(np.tanh(x * w) ** 2) + math.sqrt(np.sum(w * w))


def test_default_code_has_no_fast_math_flags():
    x = np.ones(4)
    assert "reassoc" not in ez.jit(dot).ir(x, x)
    assert "fadd reassoc contract double" in ez.jit(dot, fastmath={"reassoc", "contract"}).ir(
        x, x)


@pytest.mark.parametrize("fastmath", [True, {"reassoc", "contract"}])
def test_results_stay_close_to_the_exact_ones(fastmath):
    rng = np.random.default_rng(3)
    x, y = rng.random(10_001), rng.random(10_001)
    assert ez.jit(dot, fastmath=fastmath)(x, y) == pytest.approx(dot(x, y), rel=1e-12)
    w = rng.random(10_001)
    exact = ez.grad(loss)(w, x)
    fast = ez.grad(loss, fastmath=fastmath)(w, x)
    np.testing.assert_allclose(fast, exact, rtol=1e-10, atol=1e-14)
    v, g = ez.value_and_grad(loss, fastmath=fastmath)(w, x)
    assert v == pytest.approx(ez.jit(loss)(w, x), rel=1e-12)
    np.testing.assert_allclose(g, exact, rtol=1e-10, atol=1e-14)
