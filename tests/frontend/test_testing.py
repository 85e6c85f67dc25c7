"""The checker (`enzyme_py.testing`) itself: the JAX shim runs the same Python function with the
same values, mismatches are reported with a table, and the caller's state is left alone."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from enzyme_py.testing import ShimArray, check_grad, check_value, jax_version_of
from tests.frontend import corpus
from tests.frontend.corpus import CASES, Case


def test_python_control_flow_on_tracers_works_under_grad_not_jit() -> None:
    """The claim the shim relies on: eager `jax.grad` tracers have concrete primal values, so
    `if`/`while`/`int()` on them work; under `jax.jit` they raise."""

    def f(x):
        k = 0
        while x < 10.0 and k < 50:
            x = x * 1.5 if x > 0.0 else x - 1.0
            k += 1
        return x * int(x)

    with jax.enable_x64(True):
        g = jax.grad(f)(1.0)
        assert g == pytest.approx(1.5 ** 6 * int(1.5 ** 6), rel=1e-12)
        with pytest.raises(jax.errors.TracerBoolConversionError):
            jax.jit(jax.grad(f))(1.0)


def test_float_of_a_tracer_fails_in_jax_so_the_shim_maps_float() -> None:
    def f(x):
        return float(x) * x

    with jax.enable_x64(True), pytest.raises(jax.errors.ConcretizationTypeError):
        jax.grad(f)(2.0)
    assert check_grad(f, 2.0) == pytest.approx(4.0)  # float() keeps the derivative


def _same_values(c: Case) -> None:
    py = c.f(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in c.args])
    with jax.enable_x64(True):
        jx = jax_version_of(c.f)(*c.args)
    np.testing.assert_allclose(np.asarray(jx, dtype=np.float64), py, rtol=1e-6 if any(
        getattr(a, "dtype", None) == np.float32 for a in c.args) else 1e-12)


SHIM_SAMPLE = ["int_float_mix", "float_floordiv_mod", "negative_int_divmod", "builtins_zoo",
               "math_zoo", "numpy_scalar_math", "from_imports", "int_array_lookup",
               "float32_local", "matmul_operator", "quadratic_closure", "fib",
               "mixed_int_float_arrays", "while_bisect_array", "uses_tuple_helper"]


@pytest.mark.parametrize("name", SHIM_SAMPLE)
def test_shim_computes_what_python_computes(name: str) -> None:
    """Python semantics survive the JAX shim: integer // and % (ints never become JAX
    values), float // and %, math vs numpy functions, closures, `from math import`."""
    _same_values(next(c for c in CASES if c.id == name))


def test_shim_integer_semantics_with_traced_floats() -> None:
    def f(x, n):
        q = n // -3 + (-n) % 4
        return x // 0.3 + (-x) % 0.7 + q * x

    with jax.enable_x64(True):
        got = float(jax_version_of(f)(jnp.float64(1.1), 7))
    assert got == pytest.approx(f(1.1, 7), rel=1e-14)


def test_shim_array_is_functional_for_jax() -> None:
    a = ShimArray([1.0, 2.0, 3.0, 4.0], (2, 2), np.float64)
    a[1, 0] += 10.0
    a[-1, -1] = 7
    assert a[1, 0] == 13.0 and a[1, 1] == 7.0 and a.shape == (2, 2) and a.size == 4
    assert a.ndim == 2 and len(a) == 2
    with pytest.raises(IndexError):
        a[2, 0]
    np.testing.assert_array_equal(np.asarray(a.value()), [[1.0, 2.0], [13.0, 7.0]])


def test_check_grad_leaves_the_callers_state_alone() -> None:
    before = jax.config.jax_enable_x64
    x = corpus.vec(8, 9)
    saved = x.copy()
    check_grad(corpus.prefix_sum_inplace, x)  # writes into its argument
    assert jax.config.jax_enable_x64 == before
    np.testing.assert_array_equal(x, saved)
    check_value(corpus.prefix_sum_inplace, x)
    np.testing.assert_array_equal(x, saved)


def test_check_grad_reports_a_wrong_gradient_with_a_table() -> None:
    def wrong_reference(x):
        return jnp.sum(x * x * x)  # not the corpus function

    with pytest.raises(AssertionError) as err:
        check_grad(corpus.sum_squares, corpus.vec(7, 4), reference=wrong_reference)
    text = str(err.value)
    assert "sum_squares: enzyme_py.grad differs from JAX" in text
    assert "ours" in text and "JAX" in text and "finite diff" in text and "rel err" in text
    assert "(0,)" in text  # element indices


def ramp(x):
    return x if x >= 0.0 else 0.0


def test_check_grad_compares_with_finite_differences() -> None:
    """At the kink JAX and we agree (1.0) but central differences give 0.5."""
    with pytest.raises(AssertionError, match="differs from central finite differences"):
        check_grad(ramp, 0.0)
    assert check_grad(ramp, 0.0, fd=False) == 1.0


def test_check_grad_with_a_reference() -> None:
    def ref(w, x, n):
        return jnp.sum((w * x[:n] - 1.0) ** 2)

    def loss(w, x, n):
        s = 0.0
        for i in range(n):
            s += (w * x[i] - 1.0) ** 2
        return s

    g = check_grad(loss, 0.5, np.array([1.0, 2.0, 3.0]), 3, argnums=(0, 1), reference=ref)
    assert g[0] == pytest.approx(sum(2 * (0.5 * v - 1.0) * v for v in (1.0, 2.0, 3.0)))


def cube(n):
    return n * n * n


def test_check_value_reports_differences() -> None:
    """Python ints are unbounded, compiled ints are i64: 3e6 ** 3 overflows natively."""
    assert check_value(cube, 1000) == 10 ** 9
    with pytest.raises(AssertionError, match="differs from plain Python"):
        check_value(cube, 3_000_000)
