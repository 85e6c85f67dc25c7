"""The semantics of the public API on Python functions: result types, argnums, value_and_grad,
vjp, Enzyme-style autodiff, specialization per signature, argument checks, bounds checks and
`show`."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py import Active, CallError, Const, Duplicated, EnzymePyError, FrontendError
from enzyme_py.testing import check_grad, check_value


def loss(w, x, n):
    s = 0.0
    for i in range(n):
        s += (w * x[i] - 1.0) ** 2 + math.sin(x[i])
    return s


def weighted(x, y, c):
    s = 0.0
    for i in range(len(x)):
        s += c * x[i] * y[i] + x[i] ** 2
    return s


def scale_into(x, out, c):
    for i in range(len(x)):
        out[i] += c * x[i] * x[i]


def two_results(x, y):
    return x * y, x + math.exp(y)


def read_at(a, i):
    return a[i] * 2.0  # read_at: the line an IndexError names


def read_2d(a, i, j):
    return a[i, j] + 1.0


X = np.array([1.0, 2.0, 3.0])
Y = np.array([0.5, -1.0, 2.0])
GRAD_LOSS = ez.grad(loss)
GRAD_WEIGHTED = ez.grad(weighted, argnums=(0, 1, 2))


def _loss_dw(w, x, n):
    return sum(2.0 * (w * x[i] - 1.0) * x[i] for i in range(n))


def test_grad_of_a_float_is_a_float() -> None:
    g = GRAD_LOSS(2.0, X, 3)
    assert type(g) is float
    assert g == pytest.approx(_loss_dw(2.0, X, 3), rel=1e-14)


def test_grad_of_an_array_is_an_array() -> None:
    g = ez.grad(loss, argnums=1)(2.0, X, 3)
    assert isinstance(g, np.ndarray) and g.shape == X.shape and g.dtype == np.float64
    np.testing.assert_allclose(g, 2 * (2.0 * X - 1.0) * 2.0 + np.cos(X), rtol=1e-14)


def test_several_argnums_give_a_tuple() -> None:
    gx, gy, gc = GRAD_WEIGHTED(X, Y, 0.5)
    np.testing.assert_allclose(gx, 0.5 * Y + 2 * X, rtol=1e-14)
    np.testing.assert_allclose(gy, 0.5 * X, rtol=1e-14)
    assert type(gc) is float and gc == pytest.approx(float(X @ Y), rel=1e-14)


def test_single_argnum_in_a_tuple_gives_a_1_tuple() -> None:
    g = ez.grad(loss, argnums=(0,))(2.0, X, 3)
    assert isinstance(g, tuple) and len(g) == 1 and type(g[0]) is float


def test_negative_argnums() -> None:
    gc = ez.grad(weighted, argnums=-1)(X, Y, 0.5)
    assert gc == pytest.approx(float(X @ Y), rel=1e-14)
    gx, gc2 = ez.grad(weighted, argnums=(0, -1))(X, Y, 0.5)
    np.testing.assert_allclose(gx, 0.5 * Y + 2 * X, rtol=1e-14)
    assert gc2 == pytest.approx(gc, rel=1e-15)


def test_argnums_out_of_range() -> None:
    with pytest.raises(CallError, match="argnums 3 is out of range"):
        ez.grad(weighted, argnums=3)(X, Y, 0.5)


def test_value_and_grad() -> None:
    v, g = ez.value_and_grad(loss)(2.0, X, 3)
    assert v == pytest.approx(loss(2.0, X, 3), rel=1e-14)
    assert g == pytest.approx(_loss_dw(2.0, X, 3), rel=1e-14)
    v2, (gw, gx) = ez.value_and_grad(loss, argnums=(0, 1))(2.0, X, 3)
    assert v2 == v and gw == g and gx.shape == X.shape


def test_grad_decorator_forms() -> None:
    @ez.grad
    def cube(x):
        return x * x * x

    @ez.grad(argnums=1)
    def lin(a, b):
        return a * b

    assert cube(2.0) == 12.0
    assert lin(3.0, 5.0) == 3.0


def test_grad_does_not_depend_on_call_order() -> None:
    """The same GradFunction called at other points (cached compiled code) stays right."""
    for w in (0.5, -1.0, 3.0):
        assert GRAD_LOSS(w, X, 3) == pytest.approx(_loss_dw(w, X, 3), rel=1e-14)


def test_autodiff_duplicated_accumulates() -> None:
    dx, dy = np.zeros(3), np.zeros(3)
    (dc,) = ez.autodiff(weighted, Duplicated(X.copy(), dx), Duplicated(Y.copy(), dy),
                        Active(0.5))
    np.testing.assert_allclose(dx, 0.5 * Y + 2 * X, rtol=1e-14)
    np.testing.assert_allclose(dy, 0.5 * X, rtol=1e-14)
    assert dc == pytest.approx(float(X @ Y), rel=1e-14)
    (dc2,) = ez.autodiff(weighted, Duplicated(X.copy(), dx), Duplicated(Y.copy(), dy),
                         Active(0.5))
    np.testing.assert_allclose(dx, 2 * (0.5 * Y + 2 * X), rtol=1e-14)
    np.testing.assert_allclose(dy, 2 * (0.5 * X), rtol=1e-14)
    assert dc2 == pytest.approx(dc, rel=1e-15)  # Active adjoints do not accumulate


def test_autodiff_const_arguments() -> None:
    dx = np.zeros(3)
    out = ez.autodiff(weighted, Duplicated(X.copy(), dx), Const(Y.copy()), Const(0.5))
    assert out == ()
    np.testing.assert_allclose(dx, 0.5 * Y + 2 * X, rtol=1e-14)


def test_autodiff_active_scalars_only() -> None:
    da, db = ez.autodiff(two_scalar, Active(1.5), Active(-0.5))
    assert da == pytest.approx(math.cos(1.5) * -0.5, rel=1e-14)
    assert db == pytest.approx(math.sin(1.5) + 1.0, rel=1e-14)


def two_scalar(a, b):
    return math.sin(a) * b + b


def test_autodiff_seed_scales() -> None:
    (da,) = ez.autodiff(two_scalar, Active(1.5), Const(-0.5), seed=3.0)
    assert da == pytest.approx(3.0 * math.cos(1.5) * -0.5, rel=1e-14)


def test_autodiff_output_written_into_an_array() -> None:
    """`out[i] += c x_i^2`: the shadow of `out` seeds the derivative (Enzyme's convention)."""
    x, dx = X.copy(), np.zeros(3)
    out, dout = np.zeros(3), np.array([1.0, 10.0, 100.0])
    (dc,) = ez.autodiff(scale_into, Duplicated(x, dx), Duplicated(out, dout), Active(2.0))
    np.testing.assert_allclose(dx, np.array([1.0, 10.0, 100.0]) * 2 * 2.0 * X, rtol=1e-14)
    assert dc == pytest.approx(float(np.array([1.0, 10.0, 100.0]) @ (X * X)), rel=1e-14)


def test_autodiff_rejects_unmarked_arguments() -> None:
    with pytest.raises(CallError, match="must be Const"):
        ez.autodiff(two_scalar, 1.5, Active(0.5))


def test_autodiff_shadow_shape_is_checked() -> None:
    with pytest.raises(ez.ArgumentValueError, match="shadow"):  # a ValueError
        ez.autodiff(weighted, Duplicated(X.copy(), np.zeros(2)), Const(Y), Const(0.5))


def test_vjp_of_a_scalar_function() -> None:
    primal, pullback = ez.vjp(weighted, X, Y, 0.5)
    assert primal == pytest.approx(weighted(X, Y, 0.5), rel=1e-14)
    gx, gy, gc = pullback(2.0)
    np.testing.assert_allclose(gx, 2.0 * (0.5 * Y + 2 * X), rtol=1e-14)
    np.testing.assert_allclose(gy, 2.0 * 0.5 * X, rtol=1e-14)
    assert gc == pytest.approx(2.0 * float(X @ Y), rel=1e-14)


def test_vjp_int_arguments_get_none() -> None:
    _, pullback = ez.vjp(loss, 2.0, X, 3)
    gw, gx, gn = pullback(1.0)
    assert gn is None and type(gw) is float and gx.shape == (3,)


def test_vjp_of_a_tuple_function() -> None:
    primal, pullback = ez.vjp(two_results, 2.0, 0.5)
    assert primal == pytest.approx((1.0, 2.0 + math.exp(0.5)))
    gx, gy = pullback((1.0, 2.0))
    assert gx == pytest.approx(0.5 + 2.0)
    assert gy == pytest.approx(2.0 + 2.0 * math.exp(0.5))


def test_grad_of_a_tuple_function_is_refused() -> None:
    with pytest.raises(EnzymePyError, match="use vjp"):
        ez.grad(two_results)(2.0, 0.5)


def test_jit_tuple_result() -> None:
    assert ez.jit(two_results)(2.0, 0.5) == two_results(2.0, 0.5)


# --- specialization -------------------------------------------------------------------------


def test_float64_then_float32_arrays_compile_two_versions() -> None:
    jf = ez.jit(weighted)
    x32, y32 = X.astype(np.float32), Y.astype(np.float32)
    r64 = jf(X, Y, 0.5)
    r32 = jf(x32, y32, 0.5)
    assert r64 == pytest.approx(weighted(X, Y, 0.5), rel=1e-14)
    assert r32 == pytest.approx(weighted(x32, y32, 0.5), rel=1e-6)
    assert "double" in jf.ir(X, Y, 0.5) and "float" in jf.ir(x32, y32, 0.5)
    assert jf(X, Y, 0.5) == r64  # the first version is still there

    g = ez.grad(weighted, argnums=(0, 1))
    g64 = g(X, Y, 0.5)
    g32 = g(x32, y32, 0.5)
    assert g32[0].dtype == np.float32 and g64[0].dtype == np.float64
    np.testing.assert_allclose(g32[0], g64[0], rtol=1e-6)
    np.testing.assert_allclose(g32[1], g64[1], rtol=1e-6)


def test_int_and_float_scalars_specialize() -> None:
    jf = ez.jit(two_scalar)
    assert jf(2, 3) == two_scalar(2, 3)
    assert jf(2.0, 3.0) == two_scalar(2.0, 3.0)


def test_int_argument_in_argnums_is_refused() -> None:
    with pytest.raises(EnzymePyError, match="only float arguments can be differentiated"):
        ez.grad(loss, argnums=2)(2.0, X, 3)


def test_int_array_in_argnums_is_refused() -> None:
    with pytest.raises(EnzymePyError, match="integer array"):
        ez.grad(weighted, argnums=0)(np.arange(3), Y, 0.5)


@pytest.mark.parametrize("bad, what", [
    (np.array([1, 2, 3], dtype=np.complex128), "complex128"),
    (np.array([1, 2, 3], dtype=np.int16), "int16"),
    (np.array([True, False, True]), "bool"),
    (np.array(1.0), "0 dimension"),
    ({1.0, 2.0}, "a set"),
])
def test_wrong_argument_types_raise_before_running(bad, what) -> None:
    with pytest.raises(CallError, match=f"argument 0 \\('x'\\) is .*{what}"):
        ez.jit(weighted)(bad, Y, 0.5)
    with pytest.raises(CallError, match="argument 0"):
        ez.grad(weighted)(bad, Y, 0.5)


def test_a_string_where_numbers_are_needed_is_refused_at_its_use() -> None:
    """A string is a compile-time value (`ftypes.Text`), not an argument of the ABI."""
    with pytest.raises(FrontendError, match="str 'abc'"):
        ez.jit(weighted)("abc", Y, 0.5)


def test_a_list_indexed_at_run_time_says_to_pass_an_array() -> None:
    """A list is a pytree (its items are leaves, indexed with constants only)."""
    with pytest.raises(FrontendError, match="pass a NumPy array instead"):
        ez.jit(weighted)([1.0, 2.0, 3.0], Y, 0.5)


def test_non_contiguous_arrays_are_passed_with_their_strides() -> None:
    base = np.arange(6.0) * 0.5 - 1.0
    for a in (base[::2], base[::-2], base[1::2]):
        want = weighted(np.ascontiguousarray(a), Y, 0.5)
        assert ez.jit(weighted)(a, Y, 0.5) == want
        g = ez.grad(weighted)(a, Y, 0.5)
        np.testing.assert_array_equal(g, ez.grad(weighted)(np.ascontiguousarray(a), Y, 0.5))
        assert g.flags.c_contiguous
    b = np.asfortranarray(np.arange(6.0).reshape(3, 2))
    assert [ez.jit(read_2d)(b, i, j) for i in range(3) for j in range(2)] == \
        [v + 1.0 for v in b.ravel()]
    written = np.zeros(6)[::2]  # results written into a view land in the caller's memory
    ez.jit(scale_into)(Y, written, 2.0)
    np.testing.assert_array_equal(written, 2.0 * Y * Y)


def test_wrong_argument_count_raises() -> None:
    with pytest.raises(TypeError, match="missing a required argument: 'c'"):
        ez.jit(weighted)(X, Y)  # bound like a Python call (defaults and keywords apply)


# --- bounds checks ----------------------------------------------------------------------------


def _line_of(fn, marker: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, t in enumerate(lines) if marker in t)


JIT_READ = ez.jit(read_at)
JIT_READ_2D = ez.jit(read_2d)


@pytest.mark.parametrize("i", [3, 10, -4])
def test_out_of_bounds_raises_index_error_with_file_and_line(i) -> None:
    with pytest.raises(IndexError) as err:
        JIT_READ(X, i)
    text = str(err.value)
    assert f"{__file__}:{_line_of(read_at, 'return a[i]')}" in text
    assert "return a[i] * 2.0" in text and "size 3" in text and "axis 0" in text
    assert JIT_READ(X, -1) == 6.0  # still usable afterwards; negative indices wrap


def test_out_of_bounds_second_axis() -> None:
    a = np.ones((2, 3))
    with pytest.raises(IndexError, match="axis 1 with size 3"):
        JIT_READ_2D(a, 1, 3)
    assert JIT_READ_2D(a, 1, -1) == 2.0


def test_out_of_bounds_in_the_gradient() -> None:
    with pytest.raises(IndexError, match="read_at|return a\\[i\\]"):
        ez.grad(read_at)(X, 5)


def test_bounds_check_false() -> None:
    jf = ez.jit(bounds_check=False)(read_at)
    assert jf(X, 2) == 6.0 and jf(X, -1) == 6.0
    assert "enzyme_py.error" not in jf.ir(X, 1)
    g = ez.grad(loss, bounds_check=False)(2.0, X, 3)
    assert g == pytest.approx(_loss_dw(2.0, X, 3), rel=1e-14)
    check_value(loss, 2.0, X, 3)


def test_bounds_check_ir_has_the_error_record() -> None:
    assert "enzyme_py.error" in JIT_READ.ir(X, 1)


# --- show ----------------------------------------------------------------------------------


@pytest.mark.parametrize("stage", ["python", "preprocessed", "activity", "gradient",
                                   "optimized"])
def test_show_stages(stage) -> None:
    text = ez.show(weighted, X, Y, 0.5, stage=stage, argnums=(0, 2))
    assert isinstance(text, str) and "weighted" in text
    if stage in ("gradient", "optimized"):
        assert "@diffe_weighted" in text
    if stage == "python":
        assert "define" in text and "diffe" not in text


def test_show_accepts_a_jit_function() -> None:
    assert "define" in ez.show(ez.jit(weighted), X, Y, 0.5, stage="python")


def test_show_unknown_stage() -> None:
    with pytest.raises(ValueError, match="unknown stage"):
        ez.show(weighted, X, Y, 0.5, stage="bogus")


# --- the checker itself -------------------------------------------------------------------


def test_check_grad_returns_the_gradient() -> None:
    g = check_grad(weighted, X, Y, 0.5, argnums=(0, 2))
    np.testing.assert_allclose(g[0], 0.5 * Y + 2 * X, rtol=1e-14)


# --- constructs the front end documents as supported ------------------------------------


def unpack_shape(m):
    n, k = m.shape
    return n * 10.0 + k


def all_branches_return(x):
    if x > 0.0:
        return x
    elif x < -1.0:
        return -x
    else:
        return 0.0


def test_shape_unpacking() -> None:
    assert ez.jit(unpack_shape)(np.ones((2, 3))) == 23.0


def test_if_elif_else_all_returning() -> None:
    jf = ez.jit(all_branches_return)
    assert (jf(2.0), jf(-3.0), jf(-0.5)) == (2.0, 3.0, 0.0)


def test_recursion_in_grad() -> None:
    def rpow(x, n):
        if n == 0:
            return 1.0
        return x * rpow(x, n - 1)

    assert ez.grad(rpow)(1.1, 5) == pytest.approx(5 * 1.1 ** 4, rel=1e-14)


def _squares_then_weighted(x, out):
    s = 0.0
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i]
    for i in range(x.shape[0]):
        s += out[i] * x[i]
    return s


def test_grad_with_a_written_array_that_is_not_differentiated() -> None:
    """`out` is written and read back but not differentiated: it still needs a shadow."""
    x, out = np.array([1.0, 2.0, -0.5]), np.zeros(3)
    np.testing.assert_allclose(ez.grad(_squares_then_weighted)(x, out), 3 * x * x,
                               rtol=1e-14)
    np.testing.assert_allclose(out, x * x)  # the primal's writes reach the caller (like jit)


def _sin_layer(x, out):
    for i in range(x.shape[0]):
        out[i] = math.exp(math.sin(x[i])) * x[i]


def test_duplicated_no_need_skips_the_primal_output() -> None:
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    dx, out, dout = np.zeros(5), np.zeros(5), np.ones(5)
    ez.autodiff(_sin_layer, Duplicated(x, dx), ez.DuplicatedNoNeed(out, dout))
    np.testing.assert_allclose(dx, np.exp(np.sin(x)) * (np.cos(x) * x + 1.0), rtol=1e-14)
    assert not out.any()  # not needed, so not written
    dx2, out2 = np.zeros(5), np.zeros(5)
    ez.autodiff(_sin_layer, Duplicated(x, dx2), Duplicated(out2, np.ones(5)))
    np.testing.assert_allclose(dx2, dx, rtol=1e-15)
    np.testing.assert_allclose(out2, np.exp(np.sin(x)) * x, rtol=1e-15)  # Duplicated: written


def test_only_export_removes_what_the_exported_function_cannot_reach():
    """The exported function keeps its callees (through a call and through a function
    pointer it stores) and what a global refers to; other definitions are removed."""
    from enzyme_py.api.compile import only_export
    from enzyme_py.ir import parse

    module = parse("""
@table = global ptr @listed
define double @listed(double %x) {
  ret double %x
}
define double @leaf(double %x) {
  ret double %x
}
define void @stored(ptr %p) {
  ret void
}
define double @mid(double %x, ptr %slot) {
  store ptr @stored, ptr %slot
  %y = call double @leaf(double %x)
  ret double %y
}
define double @unused(double %x) {
  %y = call double @leaf(double %x)
  ret double %y
}
define double @primal(double %x) {
  ret double %x
}
define double @main(double %x, ptr %slot) {
  %y = call double @mid(double %x, ptr %slot)
  ret double %y
}
""")
    only_export(module, "main")
    kept = {fn.name for fn in module.functions if not fn.is_declaration}
    assert kept == {"main", "mid", "leaf", "stored", "listed"}
    text = str(module)
    assert "@unused" not in text and "@primal" not in text
    assert "define internal double @mid" in text and "define double @main" in text
    from enzyme_py.backend import compile_ir
    assert compile_ir(text).address("main")  # (what it calls is still defined)
