"""np.linalg stand-ins (`frontend/numpy_prelude_linalg.py`): values as NumPy's (LAPACK's, to
rounding), gradients as JAX's (the same source run with jax.numpy), NumPy's LinAlgError for
singular and indefinite matrices, and the factorization never differentiated."""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.testing import numpy_as_jax
from tests.frontend.against_numpy_and_jax import module_copy

RNG = np.random.default_rng(7)
A = RNG.standard_normal((5, 5)) + 2.0 * np.eye(5)
A[[0, 3]] = A[[3, 0]]  # (a first pivot that is not on the diagonal)
B = RNG.standard_normal((5, 3))
V = RNG.standard_normal(5)
S = A @ A.T + 0.5 * np.eye(5)  # symmetric positive definite
S_LOWER = np.tril(S) + np.triu(RNG.standard_normal((5, 5)), 1)  # cholesky reads the lower half


def solves(a, b, v):
    x = np.linalg.solve(a, v)
    y = np.linalg.solve(a, b)
    return np.sum(x * np.arange(1.0, 6.0)) + np.sum(x * x) + np.sum(np.sin(y)) + np.sum(np.linalg.solve(a.T, v) ** 2)


def inverses(a, b, v):
    m = np.linalg.inv(a)
    return np.sum(m * m) + v @ m @ v + np.sum(np.linalg.inv(a @ a.T) @ b)


def determinants(a, b, v):
    sign, logdet = np.linalg.slogdet(a)
    return np.linalg.det(a) + 2.0 * logdet * sign + np.linalg.slogdet(a * v[0])[1] + \
        np.linalg.det(a[:3, :3] + b[:3, :3])


def choleskys(s, b, v):
    chol = np.linalg.cholesky(s)
    z = np.linalg.solve(chol, v)
    return np.sum(z * z) + 2.0 * np.sum(np.log(np.diag(chol))) + np.sum(chol * b[:, :1])


def powers(a, b, v):
    return (np.sum(np.linalg.matrix_power(a * 0.3, 5) * b[:, :1]) + np.sum(np.linalg.matrix_power(a, 1))
            + np.sum(np.linalg.matrix_power(a, 0)) + np.sum(np.linalg.matrix_power(a, -2) @ v))


def least_squares(a, b, v):
    """The normal equations, as a user writes them."""
    x = np.linalg.solve(a.T @ a + 0.1 * np.eye(5), a.T @ v)
    r = a @ x - v
    return r @ r + 0.1 * x @ x


def in_a_loop(a, b, v):
    """Each step solves a different matrix that the loop rewrites."""
    x = v * 1.0
    for k in range(3):
        m = a + k * np.eye(5)
        x = np.linalg.solve(m, x) + 0.1 * x
    return np.sum(x ** 2)


CASES = {"solve": (solves, A), "inv": (inverses, A), "det": (determinants, A),
         "cholesky": (choleskys, S_LOWER), "matrix_power": (powers, A),
         "least_squares": (least_squares, A), "in_a_loop": (in_a_loop, A)}


def _jax_numpy() -> types.ModuleType:
    """jax.numpy, with NumPy's cholesky (the lower triangle only: JAX symmetrizes)."""
    return module_copy(jnp, linalg=module_copy(jnp.linalg, cholesky=lambda a: jnp.linalg.cholesky(
        jnp.tril(a) + jnp.tril(a, -1).T)))


@pytest.mark.parametrize("name", list(CASES))
def test_values_are_numpy_s_and_gradients_jax_s(name) -> None:
    f, a = CASES[name]
    args = (a, B, V)
    assert ez.jit(f)(*args) == pytest.approx(f(*args), rel=1e-12)
    got = ez.grad(f, argnums=(0, 1, 2))(*args)
    with jax.enable_x64(True):
        want = jax.grad(numpy_as_jax(f, _jax_numpy()), argnums=(0, 1, 2))(*args)
    for x, y in zip(got, want, strict=True):
        np.testing.assert_allclose(x, np.asarray(y), rtol=1e-10, atol=1e-12)


def solved(a, b):
    return np.linalg.solve(a, b)


def test_array_results_and_their_jacobian() -> None:
    x = ez.jit(solved)(A, V)
    np.testing.assert_allclose(x, np.linalg.solve(A, V), rtol=1e-13)
    np.testing.assert_allclose(ez.jit(inverse)(A),
                               np.linalg.inv(A), rtol=1e-12, atol=1e-14)
    jac = ez.jacrev(solved, argnums=1)(A, V)
    np.testing.assert_allclose(jac, np.linalg.inv(A), rtol=1e-12, atol=1e-14)


def inverse(a):
    return np.linalg.inv(a)


def test_float32_stays_float32() -> None:
    a32, v32 = A.astype(np.float32), V.astype(np.float32)
    x = ez.jit(solved)(a32, v32)
    assert x.dtype == np.float32
    np.testing.assert_allclose(x, np.linalg.solve(a32, v32), rtol=1e-4)
    assert ez.jit(solved)(a32, V).dtype == np.float64  # NumPy's promotion
    g = ez.grad(lambda_det)(a32)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-3)


def lambda_det(a):
    return np.linalg.det(a)


def solve_sum(a, b):
    return np.sum(np.linalg.solve(a, b))


def cholesky_sum(a):
    return np.sum(np.linalg.cholesky(a))


def slogdet_of(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * 10.0 + logdet


def test_numpy_s_errors() -> None:
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        ez.jit(solve_sum)(singular, np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="Singular matrix"):
        ez.grad(solve_sum)(singular, np.ones(2))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        ez.jit(solve_sum)(np.ones((2, 3)), np.ones(2))
    with pytest.raises(ValueError, match="mismatch in its core dimension 0"):
        ez.jit(solve_sum)(A, np.ones(4))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        ez.jit(cholesky_sum)(-np.eye(3))
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        ez.grad(cholesky_sum)(np.array([[1.0, 2.0], [2.0, 1.0]]))
    # det and slogdet answer as NumPy at a singular matrix; their gradient there is refused
    assert ez.jit(lambda_det)(singular) == 0.0
    assert ez.jit(slogdet_of)(singular) == -np.inf
    with pytest.raises(np.linalg.LinAlgError, match="gradient of det or slogdet at a singular"):
        ez.grad(lambda_det)(singular)


def solve_stack(a, b):
    return np.sum(np.linalg.solve(a, b))


def test_other_ranks_are_refused_at_the_call() -> None:
    with pytest.raises(FrontendError, match="np.linalg.det of a 4-D array is not supported"):
        ez.jit(lambda_det)(np.ones((2, 2, 3, 3)))  # (a 3-D stack: test_numpy_stacks.py)
    with pytest.raises(FrontendError, match="right-hand side of 3 dimensions"):
        ez.jit(solve_stack)(A, np.ones((5, 2, 2)))


@pytest.mark.parametrize("name", list(CASES))
def test_forward_mode_matches_jax_s_jvp(name) -> None:
    f, a = CASES[name]
    args = (a, B, V)
    tangents = (RNG.standard_normal(a.shape), RNG.standard_normal(B.shape),
                RNG.standard_normal(V.shape))
    value, tangent = ez.jvp(f, args, tangents)
    with jax.enable_x64(True):
        want_value, want_tangent = jax.jvp(numpy_as_jax(f, _jax_numpy()), args, tangents)
    assert value == pytest.approx(float(want_value), rel=1e-12)
    assert tangent == pytest.approx(float(want_tangent), rel=1e-10)


def test_jacfwd_of_an_array_result() -> None:
    np.testing.assert_allclose(ez.jacfwd(solved, argnums=1)(A, V), np.linalg.inv(A),
                               rtol=1e-12, atol=1e-14)
    chol = np.linalg.cholesky(S)
    np.testing.assert_allclose(ez.jacfwd(cholesky_of)(S), ez.jacrev(cholesky_of)(S),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(ez.jit(cholesky_of)(S), chol, rtol=1e-13, atol=1e-15)


def cholesky_of(a):
    return np.linalg.cholesky(a)


def test_the_gradient_tape_holds_the_factors_not_the_elimination() -> None:
    """The LU runs inside the rule: the gradient's IR has no reverse loop over k, i, j."""
    n = 60
    a = RNG.standard_normal((n, n)) + n * np.eye(n)
    v = RNG.standard_normal(n)
    g = ez.grad(solve_sum, argnums=(0, 1))(a, v)
    y = np.linalg.solve(a.T, np.ones(n))
    np.testing.assert_allclose(g[1], y, rtol=1e-10)
    np.testing.assert_allclose(g[0], -np.outer(y, np.linalg.solve(a, v)), rtol=1e-9, atol=1e-13)


def test_the_compiled_lu_is_the_stand_in_s_to_the_bit() -> None:
    """70 x 70 spans three panels of the blocked LU: compiled, it gives the bits that the
    same stand-in gives run by NumPy (and NumPy's det to rounding)."""
    from enzyme_py.frontend import numpy_prelude_linalg as stand_ins

    a = RNG.standard_normal((70, 70))
    assert ez.jit(lambda_det)(a) == stand_ins.det(a)
    assert ez.jit(lambda_det)(a) == pytest.approx(np.linalg.det(a), rel=1e-11)


def recursive_solve(a, n):
    if n <= 0:
        return np.sum(np.linalg.solve(a, a[0]))
    return recursive_solve(a * 1.0, n - 1) + 1.0


def calls_recursive_solve(a):
    return recursive_solve(a, 2)


def test_a_rule_called_in_a_recursive_function() -> None:
    """The recursion stays a call (an augmented/reverse pair), whose tape holds the slot the
    rule writes its result into."""
    a = A[:3, :3] + 2.0 * np.eye(3)
    got = ez.grad(calls_recursive_solve)(a)
    with jax.enable_x64(True):
        want = jax.grad(lambda m: jnp.sum(jnp.linalg.solve(m, m[0])))(a)
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-12, atol=1e-14)


def solve_squares(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


def test_the_lu_s_trailing_update_is_a_call_of_the_matrix_kernel() -> None:
    """A22 -= L21 @ U12 by the kernel (c += (-a) @ b): with 70 rows, two panels update a
    trailing matrix; the bits are still the elimination's (the test above)."""
    from enzyme_py.api.show import show

    a = RNG.standard_normal((70, 70)) + 70.0 * np.eye(70)
    ir = show(solve_squares, a, a[0], stage="python")
    assert "call void @enzyme_py.gemm.f64(" in ir
    got = ez.jit(solve_squares)(a, a[0])
    assert got == pytest.approx(np.sum(np.linalg.solve(a, a[0]) ** 2), rel=1e-12)


def integer_linalg(a, b):
    return (np.linalg.inv(a), np.linalg.solve(a, b), np.linalg.matrix_power(a, 3),
            np.linalg.det(a))


def negative_power(a):
    return np.linalg.matrix_power(a, -2)


def test_integer_matrices_solve_and_invert_as_numpy_does() -> None:
    a, b = np.array([[2, 1], [1, 1]]), np.array([3, 4])
    got, want = ez.jit(integer_linalg)(a, b), integer_linalg(a, b)
    for g, w in zip(got, want, strict=True):
        assert np.asarray(g).dtype == np.asarray(w).dtype  # (float64, but the power: int64)
        np.testing.assert_allclose(g, w, rtol=1e-14)
    with pytest.raises(TypeError, match="integer matrix to a negative power"):
        ez.jit(negative_power)(a)
    np.testing.assert_allclose(ez.jit(negative_power)(a.astype(float)),
                               negative_power(a.astype(float)), rtol=1e-14)
