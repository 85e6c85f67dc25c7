"""Functions returning arrays (and tuples of arrays and floats) through the API: `jit`, `vjp`,
`jvp`, `jacrev`, `jacfwd`, checked against JAX on the same Python functions (with `np` bound to
`jax.numpy`); strided arguments give what their contiguous copies give; float32 stays float32;
the result blocks of `jit` are freed."""

from __future__ import annotations

import time
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.api import grad_cache_of
from enzyme_py.api.arrays import _forward_call

RNG = np.random.default_rng(7)


def layer(W, x, b):
    return np.tanh(W @ x + b)


def differences(x):
    return x[1:] - x[:-1]


def softmax(x):
    return np.exp(x) / np.sum(np.exp(x))


def fit_and_penalty(X, w):
    return (X @ w, np.sum(w ** 2))


def outer(x, y):
    return x[:, None] * y[None, :]


def wave(X, s):
    return np.sin(X) * s + X * X


def gram(X):
    return X.T @ X


def scaled(x, a):
    return np.exp(x) * a


def one_tuple(x):
    return (np.sin(x) * x,)


def twice_and_count(x):
    return (x * 2.0, x.shape[0])


def squashed_total(X, w):
    return np.sum(np.tanh(X @ w))


def jax_of(f):
    """The same function with `np` bound to `jax.numpy`."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": jnp}, f.__name__,
                              f.__defaults__, f.__closure__)


def _normal(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


CASES = [
    (layer, (_normal(3, 5), _normal(5), _normal(3))),
    (differences, (_normal(6),)),
    (softmax, (_normal(5),)),
    (fit_and_penalty, (_normal(4, 3), _normal(3))),
    (outer, (_normal(4), _normal(3))),
    (wave, (_normal(3, 4), _normal(4))),
    (gram, (_normal(5, 3),)),
    (scaled, (_normal(4), 1.5)),
    (one_tuple, (_normal(2, 3),)),
]
IDS = [f.__name__ for f, _ in CASES]


def _leaves(v):
    return [np.asarray(x) for x in jax.tree.leaves(v)]


def _assert_close(got, want, rtol: float = 1e-10) -> None:
    got_leaves, want_leaves = _leaves(got), _leaves(want)
    assert len(got_leaves) == len(want_leaves)
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol)


def _like(value):
    """A random cotangent / tangent with the structure of `value`."""
    return jax.tree.map(lambda v: RNG.normal(size=np.shape(v)) if np.ndim(v) else
                        float(RNG.normal()), value)


@pytest.mark.parametrize(("f", "args"), CASES, ids=IDS)
def test_jit_matches_numpy(f, args) -> None:
    _assert_close(ez.jit(f)(*args), f(*args), rtol=1e-12)


@pytest.mark.parametrize(("f", "args"), CASES, ids=IDS)
def test_vjp_matches_jax(f, args) -> None:
    with jax.enable_x64(True):
        value, pullback = ez.vjp(f, *args)
        ref_value, ref_pullback = jax.vjp(jax_of(f), *args)
        _assert_close(value, ref_value)
        ct = _like(value)
        _assert_close(pullback(ct), ref_pullback(ct))
        ct = _like(value)  # a second pullback with another cotangent
        _assert_close(pullback(ct), ref_pullback(ct))


@pytest.mark.parametrize(("f", "args"), CASES, ids=IDS)
def test_jvp_matches_jax(f, args) -> None:
    with jax.enable_x64(True):
        tangents = tuple(_like(a) for a in args)
        _assert_close(ez.jvp(f, args, tangents), jax.jvp(jax_of(f), args, tangents))


JACOBIANS = [(f, args, k) for f, args in CASES for k in sorted({0, len(args) - 1})]


@pytest.mark.parametrize(("f", "args", "argnum"), JACOBIANS,
                         ids=[f"{f.__name__}-{k}" for f, _, k in JACOBIANS])
def test_jacobians_match_jax(f, args, argnum) -> None:
    with jax.enable_x64(True):
        ref = jax.jacrev(jax_of(f), argnums=argnum)(*args)
        _assert_close(ez.jacrev(f, argnum)(*args), ref)
        _assert_close(ez.jacfwd(f, argnum)(*args), ref)


STRIDED = [
    (layer, lambda X: (X[:3, ::2], X[:4, 1], X[4, 1:4])),
    (gram, lambda X: (X.T,)),
    (wave, lambda X: (X[:, ::2], X[1, ::-2])),
    (fit_and_penalty, lambda X: (X.T[::2], X[:, 3])),
]


@pytest.mark.parametrize(("f", "make"), STRIDED, ids=[f.__name__ for f, _ in STRIDED])
def test_strided_arguments_give_what_contiguous_copies_give(f, make) -> None:
    args = make(_normal(6, 7))
    assert any(not a.flags.c_contiguous for a in args)
    copies = tuple(np.ascontiguousarray(a) for a in args)
    before = [a.copy() for a in args]
    # a contiguous loop may vectorize and call the vector math library, whose sin differs
    # from libm's in the last bit: equal to rounding, not bit for bit
    _assert_close(ez.jit(f)(*args), ez.jit(f)(*copies), rtol=1e-15)
    value, pullback = ez.vjp(f, *args)
    value_c, pullback_c = ez.vjp(f, *copies)
    _assert_close(value, value_c, rtol=1e-15)
    ct = _like(value)
    _assert_close(pullback(ct), pullback_c(ct), rtol=1e-13)
    tangents = tuple(_like(a) for a in args)
    _assert_close(ez.jvp(f, args, tangents), ez.jvp(f, copies, tangents), rtol=1e-13)
    for a, b in zip(args, before, strict=True):
        np.testing.assert_array_equal(a, b)  # never modified


def test_grad_with_strided_arguments() -> None:
    X = _normal(6, 8)
    w = _normal(8)
    for A, v in ((X[:, ::2], w[::2]), (X.T, X[0, ::-1][:6])):
        got = ez.grad(squashed_total, argnums=(0, 1))(A, v)
        want = ez.grad(squashed_total, argnums=(0, 1))(np.ascontiguousarray(A),
                                                        np.ascontiguousarray(v))
        _assert_close(got, want, rtol=1e-13)
        with jax.enable_x64(True):
            _assert_close(got, jax.grad(jax_of(squashed_total), argnums=(0, 1))(A, v))


def test_float32_results_stay_float32() -> None:
    x = _normal(5).astype(np.float32)
    W = _normal(3, 5).astype(np.float32)
    b = _normal(3).astype(np.float32)
    y = ez.jit(softmax)(x)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, softmax(x.astype(np.float64)), rtol=1e-5)
    value, pullback = ez.vjp(layer, W, x, b)
    ct = np.linspace(-1.0, 1.0, 3).astype(np.float32)
    cts = pullback(ct)
    assert value.dtype == np.float32 and all(c.dtype == np.float32 for c in cts)
    with jax.enable_x64(True):
        f64 = [a.astype(np.float64) for a in (W, x, b)]
        _, ref_pullback = jax.vjp(jax_of(layer), *f64)
        _assert_close(cts, ref_pullback(ct.astype(np.float64)), rtol=1e-4)
        primal, tangent = ez.jvp(softmax, (x,), (np.ones(5, np.float32) - x,))
        assert primal.dtype == tangent.dtype == np.float32
        _, ref_tangent = jax.jvp(jax_of(softmax), (f64[1],), (1.0 - f64[1],))
        np.testing.assert_allclose(tangent, ref_tangent, rtol=1e-4, atol=1e-6)
        jac = ez.jacrev(softmax)(x)
        assert jac.dtype == np.float32
        np.testing.assert_allclose(jac, jax.jacrev(jax_of(softmax))(f64[1]), rtol=1e-4,
                                   atol=1e-6)


def test_tuple_with_an_integer_item() -> None:
    x = _normal(4)
    (twice, count), pullback = ez.vjp(twice_and_count, x)
    assert count == 4 and isinstance(count, int)
    np.testing.assert_array_equal(twice, 2.0 * x)
    ct = _normal(4)
    (dx,) = pullback((ct, None))
    np.testing.assert_allclose(dx, 2.0 * ct, rtol=1e-15)
    (value, n), (tangent, dn) = ez.jvp(twice_and_count, (x,), (ct,))
    assert n == 4 and dn is None
    np.testing.assert_allclose(tangent, 2.0 * ct, rtol=1e-15)
    with pytest.raises(ez.CallError, match="result 1 is int; only float results"):
        ez.jacrev(twice_and_count)(x)
    with pytest.raises(ez.CallError, match="result 1 is int; only float results"):
        ez.jacfwd(twice_and_count)(x)


def test_empty_result() -> None:
    x = np.array([0.5])
    value, pullback = ez.vjp(differences, x)
    assert value.shape == (0,)
    np.testing.assert_array_equal(pullback(np.zeros(0))[0], np.zeros(1))
    assert ez.jacrev(differences)(x).shape == (0, 1)
    assert ez.jacfwd(differences)(x).shape == (0, 1)


def test_grad_of_an_array_function_is_a_clear_error() -> None:
    with pytest.raises(ez.EnzymePyError, match="needs a function returning one float"):
        ez.grad(softmax)(_normal(3))
    with pytest.raises(ez.EnzymePyError, match="differentiate it with vjp"):
        ez.autodiff(softmax, ez.Duplicated(_normal(3), np.zeros(3)))


def test_cotangent_structure_is_checked() -> None:
    _, pullback = ez.vjp(fit_and_penalty, _normal(4, 3), _normal(3))
    with pytest.raises(ez.ArgumentValueError, match="cotangent 0 has shape"):  # ValueError
        pullback((np.ones(3), 1.0))
    with pytest.raises(ez.ArgumentValueError, match="tuple of 2 items"):
        pullback(np.ones(4))


def test_errors_inside_the_function_are_raised() -> None:
    W, x, b = _normal(3, 5), _normal(4), _normal(3)
    with pytest.raises(ValueError, match="matrix dimensions do not match"):
        ez.vjp(layer, W, x, b)
    with pytest.raises(ValueError, match="matrix dimensions do not match"):
        ez.jvp(layer, (W, x, b), (W, x, b))


def test_the_wrapper_checks_output_extents() -> None:
    """Output slots of the wrong shape are refused by the compiled wrapper, not overrun."""
    x = _normal(5)
    with pytest.raises(ValueError, match="shapes do not match: extents 4 and 3 on axis 0"):
        _forward_call(differences, (x,), (x,), [(3,)])
    # the right shapes work after the failure (the error record was cleared)
    _, tangent = _forward_call(differences, (x,), (x,), [(4,)])
    np.testing.assert_allclose(tangent, x[1:] - x[:-1], rtol=1e-15)


def test_vjp_compiles_once_per_signature() -> None:
    args = (_normal(3, 5), _normal(5), _normal(3))
    ez.vjp(layer, *args)[1](np.ones(3))
    cache = grad_cache_of(layer)
    compiled = len(cache.cache)
    ez.vjp(layer, *(a + 1.0 for a in args))[1](np.ones(3))
    assert len(cache.cache) == compiled


def _resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def test_jit_of_an_array_function_frees_its_results() -> None:
    f = ez.jit(outer)
    x = _normal(100)
    y = _normal(50)
    want = outer(x, y)
    for _ in range(200):  # warm up the allocator
        f(x, y)
    start, before = time.perf_counter(), _resident_bytes()
    for _ in range(10_000):
        got = f(x, y)
    grown = _resident_bytes() - before
    np.testing.assert_array_equal(got, want)
    # 10,000 results of 40 kB: 400 MB if none were freed
    assert grown < 20 * 2**20, f"resident memory grew by {grown / 2**20:.1f} MiB"
    assert time.perf_counter() - start < 20.0


def test_vjp_and_jvp_free_their_buffers() -> None:
    x, y = _normal(100), _normal(50)
    _, pullback = ez.vjp(outer, x, y)
    ct = _normal(100, 50)
    want = pullback(ct)
    for _ in range(50):
        pullback(ct)
        ez.jvp(outer, (x, y), (y[:1] * x, y))
    before = _resident_bytes()
    for _ in range(2000):
        got = pullback(ct)
        ez.jvp(outer, (x, y), (y[:1] * x, y))
    grown = _resident_bytes() - before
    _assert_close(got, want, rtol=0.0)
    # each round allocates a 40 kB result in the primal and its tangent: 160 MB if kept
    assert grown < 20 * 2**20, f"resident memory grew by {grown / 2**20:.1f} MiB"
