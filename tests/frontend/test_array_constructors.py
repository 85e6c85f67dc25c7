"""Array constructors and assembly (`enzyme_py.frontend.arrays.constructors`).

Each function runs through `enzyme_py.jit` and through NumPy; results must agree in value,
shape and dtype. Gradients go through `check_grad` against the same source run with `np`
bound to `jax.numpy` (and finite differences). Bad calls give a `FrontendError` at compile
time or a recorded `ValueError` / `ZeroDivisionError` at call time.
"""

from __future__ import annotations

import types
from collections.abc import Callable

import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.testing import check_grad

# --- functions under test (module level: the front end reads their source) -----------------


def zeros_tuple(n):
    return np.zeros((n, 3)) + 1.0


def zeros_int(n):
    return np.zeros(n, dtype=np.int32)


def ones_list_f32(n):
    return np.ones([2, n], dtype=np.float32)


def empty_filled(n):
    y = np.empty((n, 2))
    y[:] = 4.0
    return y


def zeros_shape_keyword(X):
    return np.zeros(shape=X.shape, dtype=X.dtype) + X


def zeros_shape_positional(X):
    return np.zeros(X.shape) + X


def zeros_accumulate(x):
    y = np.zeros(3)
    for i in range(x.shape[0]):
        y[i % 3] += x[i] * x[i]
    return np.sum(y * np.arange(1, 4))


def full_matrix(n, v):
    return np.full((2, n), v)


def full_int_default(n):
    return np.full(n, 7)


def full_scaled(x, v):
    return np.sum(np.full(x.shape[0], v) * x ** 2)


def likes(x):
    return np.zeros_like(x) + np.ones_like(x * 2.0) * 2.0 + np.full_like(x, 3.0)


def likes_dtype(x):
    return np.ones_like(x, dtype=np.int64) + np.full_like(x, 2.5, dtype=int)


def full_like_int(x):
    return np.full_like(x, 2.5)


def empty_like_written(X):
    y = np.empty_like(X.T)
    y[:] = X.T * 2.0
    return y


def arange_stop(n):
    return np.arange(n)


def arange_range(a, b, s):
    return np.arange(a, b, s)


def arange_float_dtype(n):
    return np.arange(n, dtype=np.float32)


def arange_weighted(x):
    return np.sum(x * np.arange(x.shape[0]))


def linspace_default(a, b):
    return np.linspace(a, b)


def linspace_num(a, b, n):
    return np.linspace(a, b, n)


def linspace_open(a, b):
    return np.linspace(a, b, num=4, endpoint=False)


def linspace_int(a, b):
    return np.linspace(a, b, 5, dtype=int)


def linspace_weighted(a, b, x):
    return np.sum(x * np.linspace(a, b, 5))


def eye_square(n):
    return np.eye(n)


def eye_offset(n, m, k):
    return np.eye(n, m, k=k)


def eye_regularized(A):
    return np.sum((A @ A.T + 0.5 * np.identity(A.shape[0])) ** 2)


def array_flat(a, b):
    return np.array([a, b, a * b, 1.0])


def array_ints():
    return np.array([1, 2, 3])


def array_nested(a, b):
    return np.array([[a, 2.0], [3, b]])


def array_stacked(x):
    return np.array([x, 2.0 * x, x ** 2])


def array_dtype(a):
    return np.array([a, 2.0], dtype=np.float32)


def array_copy(x):
    y = np.array(x)
    y[0] = 5.0
    return y + x


def asarray_same(x):
    y = np.asarray(x)
    return np.sum(y * x)


def asarray_strided(x):
    y = np.asarray(x)
    return y.ravel() * 2.0 + y[::-1]


def asarray_alias(x):
    y = np.asarray(x)
    y[0] = 5.0
    return x


def asarray_convert(n):
    return np.asarray(np.arange(n), dtype=float) / 2


def concatenate_roll(x):
    return np.concatenate((x[1:], x[:1]))


def concatenate_axis1(X):
    return np.concatenate([X, 2.0 * X[:, :1], X ** 2], axis=1)


def concatenate_mixed(x, n):
    return np.concatenate((x, np.arange(n)))


def stack_rows(x):
    return np.stack([x, 2.0 * x])


def stack_axis(X):
    return np.stack((X, X * 2.0 - 1.0), axis=-1)


def hstack_1d(x):
    return np.hstack([x, x[:2] * 3.0])


def hstack_2d(X):
    return np.hstack((X, X[:, ::-1]))


def vstack_mixed(X, x):
    return np.vstack([X, x, x * 2.0])


def column_stack(x, X):
    return np.column_stack([x[:4], X[:, 1:3], x[1:5] ** 2])


def grad_stack(x):
    return np.sum(np.stack([x, 2.0 * x]) ** 2)


def grad_roll(x):
    return np.sum((np.concatenate((x[1:], x[:1])) - x) ** 2)


def grad_array(a, x):
    v = np.array([a, a * x[0], np.sin(a)])
    return np.sum(v * v * x[:3])


def grad_nested(a, b):
    M = np.array([[a, b], [b * b, a * 3.0]])
    return np.sum(M @ M)


def grad_assembly(X, x):
    A = np.vstack([X, x[:5]])
    B = np.hstack([A, np.column_stack([x[:5], x[1:6]])])
    return np.sum(np.tanh(B) * np.arange(B.shape[1]))


def arange_int32(n):
    return np.arange(2, n, dtype=np.int32)


def full_dtype(n):
    return np.full((n, 2), 2, dtype=float)


def linspace_f32_dtype(n):
    return np.linspace(-1.0, 1.0, n, dtype=np.float32)


def array_empty():
    return np.array([])


def stack_matrices(X):
    return np.stack([X, X[::-1]], axis=1)


def vstack_rows(x):
    return np.vstack([x, x * 0.5])


def zeros_in_loop(x, n):
    total = 0.0
    for i in range(n):
        y = np.zeros(i + 1)
        y[i] = x[i]
        total += np.sum(y * np.arange(i + 1))
    return total


def bad_negative(n):
    return np.zeros((2, n))


def bad_negative_arange(a, b, s):
    return np.sum(np.arange(a, b, s))


def bad_linspace(n):
    return np.linspace(0.0, 1.0, n)


def bad_concatenate(X, Y):
    return np.concatenate((X, Y))


def bad_stack(x, y):
    return np.stack([x, y])


def bad_rank(x, X):
    return np.concatenate((x, X))


def bad_axis(x):
    return np.stack([x, x], axis=2)


def bad_dtype(n):
    return np.zeros(n, dtype=complex)


def bad_concatenate_array(X):
    return np.concatenate(X)


def bad_zero_d(a):
    return np.array(a)


def bad_ragged(a):
    return np.array([[a, 1.0], [2.0]])


def bad_full_array(x):
    return np.full((2, 3), x)


def bad_arange_dtype(a):
    return np.arange(a, 3, dtype=int)


def bad_linspace_arrays(x):
    return np.linspace(x, 1.0)


def bad_axis_none(x):
    return np.concatenate([x, x], axis=None)


def bad_num(a):
    return np.linspace(0.0, 1.0, a)


def bad_endpoint(x):
    return np.linspace(0.0, 1.0, 3, endpoint=x[0] > 0.0)


def bad_column_stack(x):
    return np.column_stack([x[None, :], x[None, :, None]])


def bad_float_shape(x):
    return np.ones(x)


# --- helpers ----------------------------------------------------------------------------------


def _jax(f: Callable) -> Callable:
    """`f` with `np` bound to `jax.numpy` (the same source, run by JAX)."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": jnp}, f.__name__,
                              f.__defaults__, f.__closure__)


def _same(f: Callable, *args: object) -> None:
    want = f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    got = enzyme_py.jit(f)(*args)
    assert isinstance(got, np.ndarray)
    assert got.shape == np.shape(want) and got.dtype == np.asarray(want).dtype, \
        (got.shape, got.dtype, np.shape(want), np.asarray(want).dtype)
    np.testing.assert_array_equal(got, want)


_rng = np.random.default_rng(7)
_x = _rng.normal(size=6)
_X = _rng.normal(size=(4, 5))

VALUES = [
    (zeros_tuple, (3,)), (zeros_tuple, (0,)), (zeros_int, (4,)), (ones_list_f32, (3,)),
    (empty_filled, (3,)), (zeros_shape_keyword, (_X,)), (full_matrix, (3, 1.5)),
    (full_matrix, (2, 4)), (full_int_default, (3,)), (likes, (_X,)), (likes_dtype, (_x,)),
    (full_like_int, (np.arange(4),)), (empty_like_written, (_X,)), (arange_stop, (5,)),
    (arange_stop, (0,)), (arange_stop, (-3,)), (arange_range, (1.0, 2.0, 0.3)),
    (arange_range, (0.1, 1.0, 0.1)), (arange_range, (5, -3, -2)), (arange_range, (2, 9, 3)),
    (arange_range, (3, 1, 1)), (arange_range, (1.0, -1.0, -0.25)),
    (arange_range, (0.0, 1e-320, 1e300)), (arange_range, (0.0, -1e-320, 1e300)),
    (arange_float_dtype, (4,)),
    (linspace_default, (0.0, 1.0)), (linspace_num, (-1.0, 3.0, 7)), (linspace_num, (2, 5, 1)),
    (linspace_num, (0.0, 1.0, 0)), (linspace_num, (2.0, 2.0, 3)), (linspace_num, (0.0, 1e-320, 3)),
    (linspace_num, (np.float32(0.0), np.float32(1.0), 4)), (linspace_open, (1, 2)),
    (linspace_int, (-1.0, 1.0)), (eye_square, (3,)), (eye_offset, (3, 5, 1)),
    (eye_offset, (4, 2, -1)), (eye_offset, (2, 2, 5)), (array_flat, (2.0, 3.0)),
    (array_ints, ()), (array_nested, (4.0, 5.0)), (array_stacked, (_x,)), (array_dtype, (1.5,)),
    (array_copy, (_x,)), (asarray_convert, (5,)),
    (asarray_strided, (_X[:, 1],)), (asarray_strided, (_x,)), (concatenate_roll, (_x,)),
    (concatenate_axis1, (_X,)), (concatenate_mixed, (_x, 3)), (stack_rows, (_x,)),
    (stack_axis, (_X,)), (hstack_1d, (_x,)), (hstack_2d, (_X,)), (vstack_mixed, (_X, _x[:5])),
    (column_stack, (_x, _X)), (arange_int32, (7,)), (full_dtype, (3,)),
    (linspace_f32_dtype, (5,)), (array_empty, ()), (stack_matrices, (_X,)), (vstack_rows, (_x,)),
    (zeros_shape_keyword, (_X.astype(np.float32),)),
]


@pytest.mark.parametrize(("f", "args"), VALUES,
                         ids=[f"{f.__name__}-{k}" for k, (f, _) in enumerate(VALUES)])
def test_value(f: Callable, args: tuple) -> None:
    _same(f, *args)


def test_scalar_results() -> None:
    for f, args in ((zeros_accumulate, (_x,)), (arange_weighted, (_x,)),
                    (full_scaled, (_x, 1.5)), (asarray_same, (_x,)), (zeros_in_loop, (_x, 4))):
        assert enzyme_py.jit(f)(*args) == pytest.approx(f(*args), rel=1e-14)


def test_arange_fuses_into_its_consumer() -> None:
    """np.sum(x * np.arange(n)) is one loop and allocates nothing."""
    text = enzyme_py.jit(arange_weighted).ir(_x)
    assert "malloc" not in text
    assert text.count("loop.body:") == 1, text


def test_zeros_of_shape_positional() -> None:
    _same(zeros_shape_positional, _X)


def test_asarray_aliases_its_argument() -> None:
    _same(asarray_alias, _x.copy())


GRADS = [
    (grad_stack, (_x,), 0), (grad_roll, (_x,), 0), (grad_array, (0.7, _x), (0, 1)),
    (grad_nested, (0.3, -1.2), (0, 1)), (grad_assembly, (_X, _x), (0, 1)),
    (arange_weighted, (_x,), 0), (full_scaled, (_x, 1.5), (0, 1)),
    (linspace_weighted, (0.5, 2.0, _x[:5]), (0, 1, 2)), (eye_regularized, (_X,), 0),
    (asarray_same, (_x,), 0),
]


@pytest.mark.parametrize(("f", "args", "argnums"), GRADS,
                         ids=[f.__name__ for f, _, _ in GRADS])
def test_grad(f: Callable, args: tuple, argnums: int | tuple[int, ...]) -> None:
    check_grad(f, *args, argnums=argnums, reference=_jax(f))


def test_grad_through_written_zeros() -> None:
    """np.zeros as an accumulator written element by element (JAX: the same with .at[])."""

    def reference(x: jnp.ndarray) -> jnp.ndarray:
        y = jnp.zeros(3)
        for i in range(x.shape[0]):
            y = y.at[i % 3].add(x[i] * x[i])
        return jnp.sum(y * jnp.arange(1, 4))

    check_grad(zeros_accumulate, _x, reference=reference)


@pytest.mark.parametrize(("f", "args"), [(grad_assembly, (_X, _x)), (grad_array, (0.7, _x)),
                                         (linspace_weighted, (0.5, 2.0, _x[:5]))],
                         ids=["grad_assembly", "grad_array", "linspace_weighted"])
def test_jvp(f: Callable, args: tuple) -> None:
    """Forward mode through the same constructors, against jax.jvp."""
    import jax

    rng = np.random.default_rng(3)
    tangents = [rng.normal(size=np.shape(a)) if np.ndim(a) else float(rng.normal())
                for a in args]
    value, slope = enzyme_py.jvp(f, args, tangents)
    with jax.enable_x64(True):
        want_v, want_s = jax.jvp(_jax(f), [jnp.asarray(a) for a in args],
                                 [jnp.asarray(t) for t in tangents])
    assert value == pytest.approx(float(want_v), rel=1e-12)
    assert slope == pytest.approx(float(want_s), rel=1e-9, abs=1e-12)


def test_jacrev_of_assembly() -> None:
    """An array-valued assembly: its Jacobian against JAX's."""
    import jax

    got = enzyme_py.jacrev(stack_rows)(_x)
    with jax.enable_x64(True):
        want = jax.jacrev(_jax(stack_rows))(jnp.asarray(_x))
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12, atol=1e-15)


RUNTIME_ERRORS = [
    (bad_negative, (-2,), ValueError, "negative array size -2"),
    (zeros_tuple, (-1,), ValueError, "negative array size -1"),
    (eye_square, (-3,), ValueError, "negative array size -3"),
    (bad_linspace, (-1,), ValueError, "negative array size -1"),
    (bad_negative_arange, (0, 4, 0), ZeroDivisionError, "division"),
    (bad_negative_arange, (0.0, 4.0, 0.0), ZeroDivisionError, "division"),
    (bad_negative_arange, (0.0, np.inf, 1.0), MemoryError, "too large"),
    (bad_concatenate, (np.ones((2, 3)), np.ones((2, 4))), ValueError,
     "shapes do not match: extents 4 and 3 on axis 1"),
    (bad_stack, (np.ones(3), np.ones(4)), ValueError, "shapes do not match"),
]


@pytest.mark.parametrize(("f", "args", "error", "match"), RUNTIME_ERRORS,
                         ids=[f"{f.__name__}-{k}" for k, (f, *_) in enumerate(RUNTIME_ERRORS)])
def test_runtime_error(f: Callable, args: tuple, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        enzyme_py.jit(f)(*args)
    with pytest.raises(Exception):  # noqa: B017 - NumPy rejects the same call
        f(*args)


COMPILE_ERRORS = [
    (bad_rank, (_x, _X), "same number of dimensions"),
    (bad_axis, (_x,), "axis 2 is out of bounds"),
    (bad_dtype, (3,), "unsupported dtype"),
    (bad_concatenate_array, (_X,), "list or tuple literal of arrays"),
    (bad_zero_d, (1.0,), "0-d arrays"),
    (bad_ragged, (1.0,), "ragged"),
    (bad_full_array, (_x,), "fill value is not supported"),
    (bad_float_shape, (2.0,), "the shape must be an integer"),
    (bad_arange_dtype, (0.5,), "np.arange of floats with dtype int"),
    (bad_linspace_arrays, (_x,), "np.linspace between arrays"),
    (bad_axis_none, (_x,), "axis=None"),
    (bad_num, (2.0,), "num must be an integer"),
    (bad_endpoint, (_x,), "compile-time constant"),
    (bad_column_stack, (_x,), "np.column_stack of arrays of ranks"),
]


@pytest.mark.parametrize(("f", "args", "match"), COMPILE_ERRORS,
                         ids=[f.__name__ for f, _, _ in COMPILE_ERRORS])
def test_compile_error(f: Callable, args: tuple, match: str) -> None:
    with pytest.raises(FrontendError, match=match):
        enzyme_py.jit(f)(*args)


def cast_like(x, y):
    return (x * 2.0).astype(y.dtype), np.zeros(2, y.dtype)


def cast_like_loss(x, y):
    return np.sum(cast_like(x, y)[0] ** 2)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64])
def test_astype_and_a_positional_dtype_take_another_array_s_dtype(dt) -> None:
    x, y = np.linspace(-2.0, 2.0, 5), np.ones(3, dtype=dt)
    (got, z), (want, wz) = enzyme_py.jit(cast_like)(x, y), cast_like(x, y)
    assert got.dtype == want.dtype == dt and z.dtype == wz.dtype == dt
    np.testing.assert_array_equal(got, want)
    g = enzyme_py.grad(cast_like_loss)(x, np.ones(3, np.float32))
    np.testing.assert_allclose(g, 8.0 * x, rtol=1e-6)  # (through float32 and back)


def dtype_of_an_expression(x):
    return x.astype((x * 1.0).dtype)


def test_the_dtype_of_an_expression_is_a_clear_error() -> None:
    with pytest.raises(FrontendError, match="a.dtype is read only as a dtype argument"):
        enzyme_py.jit(dtype_of_an_expression)(np.ones(3))
