"""np.linalg.qr, np.linalg.eigh and np.linalg.eigvalsh (`frontend/numpy_prelude_decompositions.py`):
values as NumPy's (eigenvectors up to their sign), gradients and tangents as JAX's, the
lower triangle as the only one eigh reads, and clear errors where a derivative is not defined."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError

RNG = np.random.default_rng(11)


def factors(a):
    return np.linalg.qr(a), np.linalg.qr(a, mode="complete"), np.linalg.qr(a, mode="r")


FACTORS = ez.jit(factors)


@pytest.mark.parametrize("shape", [(5, 3), (4, 4), (3, 5), (1, 1), (6, 1), (1, 4)])
def test_qr_is_numpy_s_in_every_mode(shape) -> None:
    a = RNG.standard_normal(shape)
    (q, r), (qc, rc), ro = FACTORS(a)
    (nq, nr), (nqc, nrc), nro = factors(a)
    for got, want in ((q, nq), (r, nr), (qc, nqc), (rc, nrc), (ro, nro)):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, atol=1e-14)  # (LAPACK's signs too)


def test_qr_of_a_rank_deficient_column_keeps_lapack_s_identity_reflection() -> None:
    a = np.array([[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])  # (the first column needs no reflection)
    (q, r), _, _ = FACTORS(a)
    (nq, nr), _, _ = factors(a)
    np.testing.assert_allclose(q, nq, atol=1e-15)
    np.testing.assert_allclose(r, nr, atol=1e-15)


def qr_loss(a, w1, w2):
    q, r = np.linalg.qr(a)
    return np.sum(q * w1) + np.sum(r * w2)


def jax_qr_loss(a, w1, w2):
    q, r = jnp.linalg.qr(a)
    return jnp.sum(q * w1) + jnp.sum(r * w2)


@pytest.mark.parametrize("shape", [(6, 3), (4, 4)])
def test_qr_gradient_and_tangent_are_jax_s(shape) -> None:
    a = RNG.standard_normal(shape)
    k = min(shape)
    w1, w2 = RNG.standard_normal((shape[0], k)), RNG.standard_normal((k, shape[1]))
    got = ez.grad(qr_loss)(a, w1, w2)
    da = RNG.standard_normal(shape)
    with jax.enable_x64(True):
        want = jax.grad(jax_qr_loss)(a, w1, w2)
        _, want_t = jax.jvp(jax_qr_loss, (a, w1, w2), (da, 0 * w1, 0 * w2))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-13)
    _, got_t = ez.jvp(qr_loss, (a, w1, w2), (da, 0 * w1, 0 * w2))
    np.testing.assert_allclose(got_t, want_t, rtol=1e-10)


def spectrum(a):
    return np.linalg.eigh(a), np.linalg.eigvalsh(a)


SPECTRUM = ez.jit(spectrum)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 20])
def test_eigh_is_numpy_s_up_to_the_eigenvectors_signs(n) -> None:
    b = RNG.standard_normal((n, n))
    a = b + b.T
    (w, v), vals = SPECTRUM(a)
    nw, nv = np.linalg.eigh(a)
    scale = np.abs(nw).max()
    np.testing.assert_allclose(w, nw, atol=1e-14 * n * scale)
    np.testing.assert_allclose(vals, nw, atol=1e-14 * n * scale)
    np.testing.assert_allclose(np.abs(v.T @ nv), np.eye(n), atol=1e-12)  # (same columns, +-)
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, a, atol=1e-13 * n * scale)


def test_eigh_reads_the_lower_triangle_only_as_numpy_does() -> None:
    b = RNG.standard_normal((4, 4))
    a = np.tril(b) + np.triu(RNG.standard_normal((4, 4)), 1) * 100.0  # (upper: ignored)
    (w, _), _ = SPECTRUM(a)
    np.testing.assert_allclose(w, np.linalg.eigh(a)[0], atol=1e-13)
    g = ez.grad(lambda_sum)(a)
    np.testing.assert_array_equal(np.triu(g, 1), 0.0)


def test_eigh_of_integers_and_of_a_repeated_eigenvalue() -> None:
    ints = np.array([[2, 1, 0], [1, 2, 0], [0, 0, 3]])
    (w, v), _ = SPECTRUM(ints)
    np.testing.assert_allclose(w, [1.0, 3.0, 3.0], atol=1e-15)
    np.testing.assert_allclose(v @ np.diag(w) @ v.T, ints, atol=1e-14)


def lambda_sum(a):
    return np.sum(np.linalg.eigvalsh(a) * np.arange(1.0, a.shape[0] + 1.0))


def spectral_loss(b, c, d):
    w, v = np.linalg.eigh(b + b.T)
    return np.sum(w * c) + np.sum((v * v) @ d) + np.sum(np.linalg.eigvalsh(b @ b.T) ** 2)


def jax_spectral_loss(b, c, d):
    w, v = jnp.linalg.eigh(b + b.T)
    return jnp.sum(w * c) + jnp.sum((v * v) @ d) + jnp.sum(jnp.linalg.eigvalsh(b @ b.T) ** 2)


SPECTRAL_GRAD = ez.grad(spectral_loss, argnums=(0, 1, 2))


@pytest.mark.parametrize("n", [2, 4, 7])
def test_eigh_gradient_and_tangent_are_jax_s(n) -> None:
    b, c, d = RNG.standard_normal((n, n)), RNG.standard_normal(n), RNG.standard_normal(n)
    db = RNG.standard_normal((n, n))
    with jax.enable_x64(True):
        want = jax.grad(jax_spectral_loss, argnums=(0, 1, 2))(b, c, d)
        _, want_t = jax.jvp(jax_spectral_loss, (b, c, d), (db, 0 * c, 0 * d))
    got = SPECTRAL_GRAD(b, c, d)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11)
    _, got_t = ez.jvp(spectral_loss, (b, c, d), (db, 0 * c, 0 * d))
    np.testing.assert_allclose(got_t, want_t, rtol=1e-9)
    assert np.isfinite(ez.grad(lambda_sum)(np.eye(n)))[0, 0]  # (eigenvalues only: defined)


def eigenvector_loss(a):
    _, v = np.linalg.eigh(a)
    return np.sum(v[:, 0] ** 3)


def test_an_eigenvector_s_derivative_at_a_repeated_eigenvalue_is_an_error_not_nan() -> None:
    with pytest.raises(np.linalg.LinAlgError, match="repeated eigenvalue"):
        ez.grad(eigenvector_loss)(np.eye(3))


def eigh_of_a_cube(a):
    return np.linalg.eigh(a)


def qr_of_a_vector(a):
    return np.linalg.qr(a)


def test_other_ranks_and_non_square_matrices_are_refused() -> None:
    with pytest.raises(FrontendError, match="np.linalg.eigh of a 4-D array"):
        ez.jit(eigh_of_a_cube)(np.zeros((2, 2, 3, 3)))  # (3-D stacks: test_numpy_stacks.py)
    with pytest.raises(FrontendError, match="np.linalg.qr of a 1-D array"):
        ez.jit(qr_of_a_vector)(np.zeros(3))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        ez.jit(eigh_of_a_cube)(np.zeros((2, 3)))
    with pytest.raises(np.linalg.LinAlgError, match="must be square"):
        ez.jit(eigh_of_a_cube)(np.zeros((4, 2, 3)))  # (each matrix of a stack too)


def copy_between_products(A, B):
    x = (A @ B).copy()  # (typed only by the matrix kernel's calls at both ends)
    return np.sum(x @ B)


def solve_of_a_converted_argument(A, c):
    return np.sum(np.linalg.solve(A.astype(np.float64), c))  # (typed only by the rule's body)


def test_a_copy_typed_only_by_a_kernel_or_a_custom_rule_is_differentiated() -> None:
    A, B, c = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3)), RNG.standard_normal(3)
    with jax.enable_x64(True):
        want_ab = jax.grad(lambda A, B: jnp.sum((A @ B) @ B), argnums=(0, 1))(A, B)
        want_ac = jax.grad(lambda A, c: jnp.sum(jnp.linalg.solve(A, c)), argnums=(0, 1))(A, c)
    for got, want in ((ez.grad(copy_between_products, argnums=(0, 1))(A, B), want_ab),
                      (ez.grad(solve_of_a_converted_argument, argnums=(0, 1))(A, c), want_ac)):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def singular(a):
    return (np.linalg.svd(a, full_matrices=False), np.linalg.svd(a),
            np.linalg.svd(a, compute_uv=False))


SINGULAR = ez.jit(singular)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (1, 3), (6, 1), (12, 7)])
def test_svd_is_numpy_s_up_to_the_singular_vectors_signs(shape) -> None:
    a = RNG.standard_normal(shape)
    (u, s, vt), (uf, sf, vtf), values = SINGULAR(a)
    (nu, ns, nvt), (nuf, _, nvtf), _ = singular(a)
    k = min(shape)
    for got, want in ((u, nu), (vt, nvt), (uf, nuf), (vtf, nvtf)):
        assert got.shape == want.shape
    for got in (s, sf, values):
        np.testing.assert_allclose(got, ns, atol=1e-14 * ns[0])
    np.testing.assert_allclose(np.abs(u.T @ nu), np.eye(k), atol=1e-12)  # (same vectors, +-)
    np.testing.assert_allclose(u * s @ vt, a, atol=1e-13)
    np.testing.assert_allclose(uf[:, :k] * sf @ vtf[:k], a, atol=1e-13)
    np.testing.assert_allclose(uf.T @ uf, np.eye(shape[0]), atol=1e-14)  # (completed bases)
    np.testing.assert_allclose(vtf @ vtf.T, np.eye(shape[1]), atol=1e-14)


def test_svd_of_a_rank_deficient_matrix_completes_u_s_basis() -> None:
    a = np.outer(RNG.standard_normal(5), RNG.standard_normal(3))
    (u, s, vt), _, _ = SINGULAR(a)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), atol=1e-14)
    np.testing.assert_allclose(u.T @ u, np.eye(3), atol=1e-14)
    np.testing.assert_allclose(u * s @ vt, a, atol=1e-14)


def least_squares(a, b, c):
    return np.linalg.pinv(a), np.linalg.lstsq(a, b), np.linalg.lstsq(a, c, rcond=1e-3)


LEAST_SQUARES = ez.jit(least_squares)


@pytest.mark.parametrize("shape", [(6, 3), (3, 5), (4, 4)])
def test_pinv_and_lstsq_are_numpy_s(shape) -> None:
    a, b = RNG.standard_normal(shape), RNG.standard_normal(shape[0])
    c = RNG.standard_normal((shape[0], 2))
    got, want = LEAST_SQUARES(a, b, c), least_squares(a, b, c)
    np.testing.assert_allclose(got[0], want[0], atol=1e-13)
    for g, w in zip(got[1:], want[1:], strict=True):  # (x, residuals, rank, s)
        np.testing.assert_allclose(g[0], w[0], atol=1e-13)
        assert g[1].shape == w[1].shape
        np.testing.assert_allclose(g[1], w[1], rtol=1e-12)
        assert g[2] == w[2]
        np.testing.assert_allclose(g[3], w[3], atol=1e-14)


def test_lstsq_and_pinv_of_a_rank_deficient_matrix_cut_as_numpy_does() -> None:
    a = np.outer(RNG.standard_normal(5), RNG.standard_normal(3))
    b, c = RNG.standard_normal(5), RNG.standard_normal((5, 2))
    got, want = LEAST_SQUARES(a, b, c), least_squares(a, b, c)
    np.testing.assert_allclose(got[0], want[0], atol=1e-13)
    assert got[1][2] == want[1][2] == 1 and got[1][1].shape == (0,)
    np.testing.assert_allclose(got[1][0], want[1][0], atol=1e-13)


def singular_loss(a, w1, w2, w3):
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    return np.sum(s * w2) + np.sum((u * u) @ w1) + np.sum((vt * vt) @ w3)


def jax_singular_loss(a, w1, w2, w3):
    u, s, vt = jnp.linalg.svd(a, full_matrices=False)
    return jnp.sum(s * w2) + jnp.sum((u * u) @ w1) + jnp.sum((vt * vt) @ w3)


def inverse_loss(a, b):
    return np.sum(np.linalg.pinv(a) * b) + np.sum(np.linalg.lstsq(a, b[0])[0] ** 2)


def jax_inverse_loss(a, b):
    return jnp.sum(jnp.linalg.pinv(a) * b) + jnp.sum(jnp.linalg.lstsq(a, b[0])[0] ** 2)


# (compiled once for all the shapes below: float64 matrices)
SINGULAR_GRAD, INVERSE_GRAD = ez.grad(singular_loss), ez.grad(inverse_loss)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_svd_pinv_and_lstsq_gradients_and_tangents_are_jax_s(shape) -> None:
    a, k = RNG.standard_normal(shape), min(shape)
    w1, w2, w3 = RNG.standard_normal(k), RNG.standard_normal(k), RNG.standard_normal(shape[1])
    b, da = RNG.standard_normal(shape[::-1]), RNG.standard_normal(shape)
    zeros = (0 * w1, 0 * w2, 0 * w3)
    with jax.enable_x64(True):
        want = jax.grad(jax_singular_loss)(a, w1, w2, w3)
        _, want_t = jax.jvp(jax_singular_loss, (a, w1, w2, w3), (da, *zeros))
        want_inv = jax.grad(jax_inverse_loss)(a, b)
    np.testing.assert_allclose(SINGULAR_GRAD(a, w1, w2, w3), want, rtol=1e-9, atol=1e-12)
    _, got_t = ez.jvp(singular_loss, (a, w1, w2, w3), (da, *zeros))
    np.testing.assert_allclose(got_t, want_t, rtol=1e-9)
    np.testing.assert_allclose(INVERSE_GRAD(a, b), want_inv, rtol=1e-9, atol=1e-12)


def singular_vector_loss(a):
    u, _, _ = np.linalg.svd(a, full_matrices=False)  # (`_` of two types: dropped)
    return np.sum(u[:, 0] ** 3)


def uv_by_a_variable(a, flag):
    return np.linalg.svd(a, compute_uv=flag)


def test_svd_of_a_nan_is_numpy_s_error() -> None:
    with pytest.raises(np.linalg.LinAlgError, match="SVD did not converge"):
        SINGULAR(np.array([[1.0, np.nan], [0.0, 1.0]]))


def test_singular_vectors_at_a_repeated_singular_value_are_an_error_and_flags_literal() -> None:
    with pytest.raises(np.linalg.LinAlgError, match="repeated singular value"):
        ez.grad(singular_vector_loss)(np.eye(3))
    with pytest.raises(FrontendError, match="compute_uv written as True or False"):
        ez.jit(uv_by_a_variable)(np.eye(3), False)


def decompositions(a, sq, b):
    return (np.linalg.eigh(sq), np.linalg.eigvalsh(sq), np.linalg.svd(a),
            np.linalg.svd(a, full_matrices=False), np.linalg.svd(a, compute_uv=False),
            np.linalg.pinv(a), np.linalg.lstsq(a, b))


def _leaves(x):
    if isinstance(x, tuple):
        return [y for item in x for y in _leaves(item)]
    return [x]


@pytest.mark.parametrize("dtypes", [(np.float32, np.float32), (np.float32, np.float64),
                                    (np.int64, np.float32), (np.float64, np.float64)])
def test_results_have_numpy_s_dtype(dtypes) -> None:
    a = (RNG.standard_normal((5, 3)) * 4).astype(dtypes[0])
    sq = (a.T @ a).astype(dtypes[0])
    b = RNG.standard_normal(5).astype(dtypes[1])
    got, want = _leaves(ez.jit(decompositions)(a, sq, b)), _leaves(decompositions(a, sq, b))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if isinstance(w, np.ndarray):
            assert g.dtype == w.dtype  # (float32 in, float32 out; integers give float64)
            assert g.shape == w.shape
        else:
            assert int(g) == int(w)  # lstsq's rank
    ws, gs = np.linalg.eigvalsh(sq), got[2]  # (the values too, to float32's precision)
    np.testing.assert_allclose(gs, ws, rtol=1e-5 if dtypes[0] == np.float32 else 1e-12,
                               atol=1e-5 * float(np.max(np.abs(ws))))


def svals32_loss(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) * np.arange(1.0, 4.0))


def test_a_float32_gradient_through_the_svd_is_float32_and_jax_s() -> None:
    a = RNG.standard_normal((5, 3)).astype(np.float32)
    got = ez.grad(svals32_loss)(a)
    assert got.dtype == np.float32
    want = jax.grad(lambda x: jnp.sum(jnp.linalg.svd(x, compute_uv=False)
                                      * jnp.arange(1.0, 4.0)))(jnp.asarray(a))
    np.testing.assert_allclose(got, np.asarray(want), rtol=1e-4, atol=1e-5)
