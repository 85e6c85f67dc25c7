"""Math domain errors and division by zero (see `enzyme_py.frontend.domain_checks`).

By default compiled code gives NumPy's IEEE results (nan, inf) without checks; with
`errors="python"`, `math.*` functions and arithmetic on numbers raise what Python raises, with
Python's message and the source line, and gradients are unchanged. NumPy functions and array
arithmetic keep IEEE results in both modes. Integer `//` and `%` by zero raise
`ZeroDivisionError` in every mode, and the minimum integer divided by -1 wraps, never traps.
"""

from __future__ import annotations

import linecache
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import enzyme_py as ez


def m_sqrt(x):
    return math.sqrt(x)


def m_log(x):
    return math.log(x)


def m_log2(x):
    return math.log2(x)


def m_log10(x):
    return math.log10(x)


def m_log1p(x):
    return math.log1p(x)


def m_acos(x):
    return math.acos(x)


def m_asin(x):
    return math.asin(x)


def m_acosh(x):
    return math.acosh(x)


def m_atanh(x):
    return math.atanh(x)


def m_sin(x):
    return math.sin(x)


def m_exp(x):
    return math.exp(x)


def m_cosh(x):
    return math.cosh(x)


def m_log_base(x, base):
    return math.log(x, base)


def m_pow(x, y):
    return math.pow(x, y)


def m_fmod(x, y):
    return math.fmod(x, y)


def divide(x, y):
    return x / y


def floor_divide(x, y):
    return x // y


def modulo(x, y):
    return x % y


def power(x, y):
    return x ** y


def square(x):
    return x ** 2


def divide_in_place(x, y):
    z = x
    z /= y
    return z


def numpy_functions(x):
    return np.sqrt(x) + np.log(x + 1.0) + np.arccos(x)


def array_division(x, y):
    return np.sum(x / y) + np.sum(np.log(x))


def int_array_floor_divide(x, d):
    return x // d


def int_array_modulo(x, d):
    return x % d


def arange(start, stop, step):
    return np.arange(start, stop, step)


def arange_length(start, stop, step):
    return np.arange(start, stop, step).shape[0]


def loss(x, w):
    s = 0.0
    for i in range(w.shape[0]):
        s += math.sqrt(x + w[i]) * math.log(w[i]) / (1.0 + x * x) + math.exp(-x * w[i])
    return s


def loss_jax(x, w):
    import jax.numpy as jnp

    return jnp.sum(jnp.sqrt(x + w) * jnp.log(w) / (1.0 + x * x) + jnp.exp(-x * w))


# (function, arguments): Python raises for each, compiled code by default gives IEEE values
RAISING = [
    (m_sqrt, (-4.0,)), (m_sqrt, (-math.inf,)), (m_log, (0.0,)), (m_log, (-1.0,)),
    (m_log2, (0.0,)), (m_log10, (-2.0,)), (m_log1p, (-1.0,)), (m_log1p, (-3.0,)),
    (m_acos, (1.5,)), (m_asin, (-2.0,)), (m_acosh, (0.5,)), (m_atanh, (1.0,)),
    (m_atanh, (-3.0,)), (m_sin, (math.inf,)), (m_exp, (1000.0,)), (m_cosh, (-1000.0,)),
    (m_log_base, (2.0, 1.0)), (m_log_base, (0.0, 2.0)), (m_log_base, (8.0, -2.0)),
    (m_pow, (0.0, -1.0)), (m_pow, (-8.0, 1.0 / 3.0)), (m_pow, (10.0, 400.0)),
    (m_fmod, (1.0, 0.0)), (m_fmod, (math.inf, 2.0)),
    (divide, (1.0, 0.0)), (divide, (1, 0)), (divide, (2.5, 0)), (divide, (1, -0.0)),
    (floor_divide, (1.0, 0.0)), (modulo, (1.0, 0.0)), (modulo, (3, 0.0)),
    (power, (0.0, -1.0)), (power, (0.0, -2)), (power, (10.0, 400.0)), (square, (1e200,)),
    (divide_in_place, (1.0, 0.0)),
]
# Python returns a value here (a nan argument, an infinite one, signed zeros ...)
NOT_RAISING = [
    (m_sqrt, (math.nan,)), (m_sqrt, (-0.0,)), (m_sqrt, (math.inf,)), (m_log, (math.inf,)),
    (m_log, (math.nan,)), (m_log1p, (-0.5,)), (m_acos, (1.0,)), (m_atanh, (0.5,)),
    (m_exp, (math.inf,)), (m_exp, (-1000.0,)), (m_log_base, (8.0, 2.0)),
    (m_pow, (math.nan, 0.0)), (m_pow, (-8.0, 3.0)), (m_pow, (0.0, 0.0)),
    (m_fmod, (math.nan, 0.0)), (m_fmod, (1.0, math.inf)), (divide, (1.0, math.nan)),
    (divide, (0.0, 2.0)), (modulo, (5.0, math.inf)), (modulo, (-5.0, math.inf)),
    (power, (0.0, -math.inf)), (power, (-2.0, 3)), (square, (-3.0,)),
]


def _ids(cases):
    return [f"{f.__name__}{args}" for f, args in cases]


def _python_error(f, args) -> Exception:
    try:
        f(*args)
    except Exception as err:  # noqa: BLE001 - the exception is what the test compares
        return err
    raise AssertionError(f"{f.__name__}{args} does not raise in Python")


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) ==
                                                 math.copysign(1, b))


@pytest.mark.parametrize("f, args", RAISING, ids=_ids(RAISING))
def test_default_gives_ieee_results(f, args) -> None:
    """The value NumPy gives for the same operation on float64 (nan, inf), no exception."""
    got = ez.jit(f)(*args)
    with np.errstate(all="ignore"):
        want = f(*[np.float64(a) for a in args]) if f in (divide, floor_divide, modulo,
                                                          divide_in_place) else \
            _numpy_value(f, args)
    assert _same(got, float(want)), (got, want)


def _numpy_value(f, args) -> float:
    """What the NumPy counterpart of `f` gives (IEEE semantics)."""
    x = [np.float64(a) for a in args]
    table = {
        m_sqrt: np.sqrt, m_log: np.log, m_log2: np.log2, m_log10: np.log10,
        m_log1p: np.log1p, m_acos: np.arccos, m_asin: np.arcsin, m_acosh: np.arccosh,
        m_atanh: np.arctanh, m_sin: np.sin, m_exp: np.exp, m_cosh: np.cosh,
        m_pow: np.power, m_fmod: np.fmod, power: np.power,
    }
    if f is m_log_base:
        return np.log(x[0]) / np.log(x[1])
    if f is square:
        return x[0] * x[0]
    return table[f](*x)


@pytest.mark.parametrize("f, args", RAISING, ids=_ids(RAISING))
def test_python_errors_raise_as_python(f, args) -> None:
    """The class and message Python raises, then the file, line and source line."""
    want = _python_error(f, args)
    jf = ez.jit(f, errors="python")
    for _ in range(2):  # the first call compiles, the second takes the fast path
        with pytest.raises(type(want)) as info:
            jf(*args)
        message, where = str(info.value).split("\n", 1)
        assert message == str(want)
        assert where.startswith("  at ")
        path, line, source = where[5:].split(":", 2)
        assert path == __file__
        assert f.__code__.co_firstlineno < int(line) <= f.__code__.co_firstlineno + 3
        assert source.strip() == linecache.getline(__file__, int(line)).strip()


@pytest.mark.parametrize("f, args", NOT_RAISING, ids=_ids(NOT_RAISING))
def test_python_errors_keep_python_values(f, args) -> None:
    want = f(*args)
    assert _same(ez.jit(f, errors="python")(*args), float(want))


def test_the_kinds_of_python_errors() -> None:
    with pytest.raises(ValueError, match="math domain error"):
        ez.jit(m_sqrt, errors="python")(-1.0)
    with pytest.raises(OverflowError, match="math range error"):
        ez.jit(m_exp, errors="python")(800.0)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        ez.jit(divide, errors="python")(1.0, 0.0)
    with pytest.raises(ZeroDivisionError, match="0.0 cannot be raised to a negative power"):
        ez.jit(power, errors="python")(0.0, -0.5)


def test_numpy_functions_keep_ieee_results_in_both_modes() -> None:
    x = np.array([-1.0, 0.0, 2.0])
    with np.errstate(all="ignore"):
        want_scalar = numpy_functions(np.float64(-2.0))
        want_array = array_division(x, np.zeros(3))
    for mode in ("numpy", "python"):
        assert math.isnan(ez.jit(numpy_functions, errors=mode)(-2.0)) and \
            math.isnan(want_scalar)
        assert _same(ez.jit(array_division, errors=mode)(x, np.zeros(3)), float(want_array))


@pytest.mark.parametrize("f, args", [(m_sqrt, (1.0,)), (m_log_base, (2.0, 3.0)),
                                     (m_pow, (2.0, 3.0)), (divide, (1.0, 2.0)),
                                     (modulo, (1.0, 2.0)), (power, (2.0, 0.5)),
                                     (square, (2.0,))])
def test_no_checks_are_emitted_by_default(f, args) -> None:
    assert "check.fail" not in ez.jit(f).ir(*args)
    assert "check.fail" in ez.jit(f, errors="python").ir(*args)


# --- integers: always checked, never a trap ---------------------------------------------------


@pytest.mark.parametrize("mode", ["numpy", "python"])
@pytest.mark.parametrize("f", [floor_divide, modulo])
def test_int_division_by_zero_raises_in_both_modes(mode, f) -> None:
    want = _python_error(f, (7, 0))
    for bounds_check in (True, False):
        with pytest.raises(ZeroDivisionError) as info:
            ez.jit(f, errors=mode, bounds_check=bounds_check)(7, 0)
        assert str(info.value).startswith(str(want))  # Python's own message
        assert f"return x {'//' if f is floor_divide else '%'} y" in str(info.value)


def test_int_array_division_by_zero_raises() -> None:
    x = np.array([4, -7, 9])
    with pytest.raises(ZeroDivisionError):
        ez.jit(int_array_floor_divide)(x, 0)
    with pytest.raises(ZeroDivisionError):
        ez.jit(int_array_modulo)(x, 0)


@pytest.mark.parametrize("x, y", [(7, 2), (-7, 2), (7, -2), (-7, -2), (7, -1), (-7, -1),
                                  (0, -1), (2**62, -1), (-(2**63) + 1, -1)])
def test_int_floor_division_follows_python(x, y) -> None:
    assert ez.jit(floor_divide)(x, y) == x // y
    assert ez.jit(modulo)(x, y) == x % y


@pytest.mark.parametrize("start, stop", [(10, 0), (0, 10), (5, -5), (3, 3), (-2, -9)])
def test_arange_with_step_minus_one(start, stop) -> None:
    """Its length divides by the step: never by -1 (see the next test)."""
    np.testing.assert_array_equal(ez.jit(arange)(start, stop, -1), np.arange(start, stop, -1))
    assert ez.jit(arange_length)(start, stop, -1) == len(range(start, stop, -1))


def test_the_minimum_int_divided_by_minus_one_wraps_without_a_trap() -> None:
    """`sdiv` of the minimum by -1 traps on x86 (SIGFPE): run it in a child process so that a
    regression fails this test instead of killing the run."""
    code = ("import numpy as np, enzyme_py as ez\n"
            "from tests.frontend.test_domain_errors import floor_divide, modulo, "
            "int_array_floor_divide, int_array_modulo, arange_length\n"
            "m = -2**63\n"
            "print(ez.jit(floor_divide)(m, -1), ez.jit(modulo)(m, -1))\n"
            "x = np.array([m, 5, -6])\n"
            "print(*ez.jit(int_array_floor_divide)(x, -1), *ez.jit(int_array_modulo)(x, -1))\n"
            "assert ez.jit(arange_length)(0, m, -1) > 0\n")  # a length that never allocates
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    m = -2**63
    with np.errstate(all="ignore"):
        want = [int(v) for v in np.array([m, 5, -6]) // -1] + [0, 0, 0]
    assert done.stdout.split() == [str(m), "0", *map(str, want)]


# --- gradients with the checks ------------------------------------------------------------------


def test_gradients_with_python_errors_match_jax() -> None:
    import jax
    w = np.array([0.5, 1.5, 2.5])
    with jax.enable_x64(True):
        want = jax.grad(loss_jax, argnums=(0, 1))(0.75, w)
    got = ez.grad(loss, argnums=(0, 1), errors="python")(0.75, w)
    assert got[0] == pytest.approx(float(want[0]), rel=1e-12)
    np.testing.assert_allclose(got[1], np.asarray(want[1]), rtol=1e-12)
    value, gx = ez.value_and_grad(loss, errors="python")(0.75, w)
    assert value == pytest.approx(loss(0.75, w), rel=1e-14)
    assert gx == pytest.approx(got[0], rel=1e-14)
    assert ez.grad(loss)(0.75, w) == pytest.approx(got[0], rel=1e-14)  # as without checks


def test_gradients_with_python_errors_raise_as_python() -> None:
    w = np.array([0.5, 1.5, 2.5])
    g = ez.grad(loss, errors="python")
    for _ in range(2):
        with pytest.raises(ValueError, match=r"math domain error\n  at .*test_domain_errors"
                           r"\.py:\d+: s \+= math\.sqrt"):
            g(-1.0, w)  # sqrt(-1.0 + 0.5)
    with pytest.raises(ValueError, match="math domain error"):
        ez.value_and_grad(loss, errors="python")(0.75, -w)  # log of a negative
    assert math.isnan(ez.grad(loss)(-1.0, w))  # the default: IEEE results
