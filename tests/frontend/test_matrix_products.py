"""Matrix products through the matrix kernel and its BLAS-level rule (`ad/matrix_calls.py`):
`@`, np.dot/np.matmul of matrices and stacks, and two-operand einsum contractions are calls
of `@enzyme_py.gemm.<t>`; their gradients and tangents are more calls (never the kernel's
own instructions differentiated), checked against JAX in reverse and forward mode, with
operands that are views, transposes, float32, the same array twice, rewritten after the
product (the rule's copy) and products in a loop."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.api.show import show
from enzyme_py.frontend.arrays.contractions import matrix_labels
from enzyme_py.testing import numpy_as_jax
from tests.frontend.against_numpy_and_jax import check


def _jvp_check(f, args, rtol=1e-12):
    """ez.jvp against jax.jvp of the same source, every argument given a tangent."""
    rng = np.random.default_rng(7)
    tangents = tuple(rng.standard_normal(np.shape(a)).astype(np.asarray(a).dtype)
                     for a in args)
    _, ours = ez.jvp(f, tuple(np.array(a) for a in args), tangents)
    with jax.enable_x64(True):
        _, want = jax.jvp(numpy_as_jax(f), tuple(jnp.asarray(a) for a in args),
                          tuple(jnp.asarray(t) for t in tangents))
    np.testing.assert_allclose(ours, np.asarray(want), rtol=rtol, atol=1e-12)


def sin_of_product(a, b):
    return np.sum(np.sin(a @ b))


def transposed_operands(a, b):
    return np.sum(np.tanh(a.T @ b.T))


def gram(x):
    return np.sum((x @ x.T) ** 2)


def dot_of_matrices(a, b):
    return np.sum(np.dot(a, b) ** 2)


def recurrence(w, h):
    for _ in range(3):
        h = np.tanh(w @ h)
    return np.sum(h)


def batched(a, b):
    return np.sum(np.cos(np.matmul(a, b)))


def gmm_like(ls, x, mu):
    xc = x[:, None, :] - mu[None, :, :]
    return np.sum(np.exp(-0.1 * np.einsum("kji,nki->nkj", ls, xc) ** 2))


def einsum_product(a, b):
    return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)


def einsum_rows_dot_rows(a, b):
    return np.sum(np.sin(np.einsum("ik,jk->ij", a, b)))


def einsum_outer_batch(a, b):
    return np.sum(np.einsum("bi,bj->bij", a, b) ** 2)


RNG = np.random.default_rng(0)
CASES = [
    (sin_of_product, (RNG.standard_normal((6, 5)), RNG.standard_normal((5, 9))), (0, 1)),
    (transposed_operands, (RNG.standard_normal((5, 6)), RNG.standard_normal((9, 5))), (0, 1)),
    (gram, (RNG.standard_normal((7, 4)),), 0),
    (dot_of_matrices, (RNG.standard_normal((3, 8)), RNG.standard_normal((8, 10))), (0, 1)),
    (recurrence, (0.5 * RNG.standard_normal((4, 4)), RNG.standard_normal((4, 3))), (0, 1)),
    (batched, (RNG.standard_normal((2, 6, 5)), RNG.standard_normal((5, 3))), (0, 1)),
    (gmm_like, (RNG.standard_normal((3, 4, 4)), RNG.standard_normal((10, 4)),
                RNG.standard_normal((3, 4))), (0, 2)),
    (einsum_product, (RNG.standard_normal((5, 7)), RNG.standard_normal((7, 3))), (0, 1)),
    (einsum_rows_dot_rows, (RNG.standard_normal((5, 7)), RNG.standard_normal((4, 7))), (0, 1)),
    (einsum_outer_batch, (RNG.standard_normal((3, 5)), RNG.standard_normal((3, 4))), (0, 1)),
]


@pytest.mark.parametrize("f,args,argnums", CASES, ids=[c[0].__name__ for c in CASES])
def test_products_by_the_kernel_match_jax(f, args, argnums):
    check(f, *args, argnums=argnums, rtol=1e-11)
    _jvp_check(f, args, rtol=1e-11)


@pytest.mark.parametrize("f,args,argnums", CASES[:2] + CASES[6:7],
                         ids=[c[0].__name__ for c in CASES[:2] + CASES[6:7]])
def test_the_gradient_calls_the_kernel_and_never_differentiates_it(f, args, argnums):
    ir = show(f, *args, stage="gradient", argnums=argnums, preoptimize=True)
    calls = [ln for ln in ir.splitlines() if "call void @enzyme_py.gemm.f64(" in ln]
    assert len(calls) >= 2  # the product, and at least one adjoint product
    assert "@diffe_enzyme_py.gemm" not in ir and "augmented_enzyme_py.gemm" not in ir
    assert "masked.scatter" not in ir.split("define internal void @enzyme_py.gemm.f64")[0]


def test_products_in_float32_stay_float32():
    a = RNG.standard_normal((6, 5)).astype(np.float32)
    b = RNG.standard_normal((5, 9)).astype(np.float32)
    got = ez.jit(lambda_free_product)(a, b)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, a @ b, rtol=1e-5)
    ga, gb = ez.grad(sin_of_product, argnums=(0, 1))(a, b)
    assert ga.dtype == gb.dtype == np.float32
    with jax.enable_x64(True):
        ja, jb = jax.grad(numpy_as_jax(sin_of_product), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, ja, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gb, jb, rtol=1e-4, atol=1e-5)


def lambda_free_product(a, b):
    return a @ b


def rewritten_after(a, b):
    c = a @ b
    a[:, :] = 0.0
    b[:, :] = 0.0
    return np.sum(c * c)


def test_operands_rewritten_after_the_product_are_copied_for_the_reverse():
    a, b = RNG.standard_normal((6, 5)), RNG.standard_normal((5, 9))
    ga, gb = ez.grad(rewritten_after, argnums=(0, 1))(a.copy(), b.copy())
    with jax.enable_x64(True):
        ja, jb = jax.grad(lambda a, b: jnp.sum((a @ b) ** 2), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, ja, rtol=1e-12)
    np.testing.assert_allclose(gb, jb, rtol=1e-12)
    ir = show(rewritten_after, a, b, stage="gradient", argnums=(0, 1), preoptimize=True)
    assert "@enzyme_py.gemm.save.f64(" in ir


def test_a_product_of_views_reads_them_in_place():
    """Strided and reversed views go to the kernel with their strides (no copy), and the
    values are NumPy's; the product's bits are the loop nest's (sums in order of k)."""
    base = RNG.standard_normal((12, 10))
    a, b = base[::2, 1:7], base[1:7, ::-1]
    got = ez.jit(lambda_free_product)(a, b)
    want = np.zeros((a.shape[0], b.shape[1]))
    for p in range(a.shape[1]):
        want = want + a[:, p, None] * b[None, p, :]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("inputs,output,want", [
    (["ij", "jk"], "ik", ("", "i", "k", "j")),
    (["kji", "nki"], "nkj", ("k", "j", "n", "i")),
    (["bi", "bj"], "bij", ("b", "i", "j", "")),
    (["bik", "bkj"], "bij", ("b", "i", "j", "k")),
    (["ij", "j"], "i", None),  # matrix-vector: the loop nest's dot products
    (["ij", "ij"], "ij", None),  # element-wise
    (["ii", "ij"], "j", None),  # a diagonal
    (["ijk", "kl"], "il", None),  # j summed within one operand
    (["ijk", "jkl"], "il", None),  # two summed labels
    (["ij", "jk"], "", None),
])
def test_which_einsums_are_matrix_products(inputs, output, want):
    assert matrix_labels(inputs, output) == want


def matrix_vector_einsum(a, x):
    return np.sum(np.einsum("ij,j->i", a, x) ** 2)


def test_an_einsum_the_kernel_does_not_take_still_differentiates():
    check(matrix_vector_einsum, RNG.standard_normal((5, 7)), RNG.standard_normal(7),
          argnums=(0, 1), rtol=1e-11)


def tanh_layer(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def test_hessians_differentiate_the_rule_again():
    """Forward over reverse: the tangent of the gradient's own kernel calls (dA += dC B^T
    differentiated in dC and B) is the rule applied again."""
    w, x = RNG.standard_normal((4, 3)), RNG.standard_normal((5, 4))
    ours = ez.hessian(tanh_layer)(w, x)
    with jax.enable_x64(True):
        want = jax.hessian(numpy_as_jax(tanh_layer))(jnp.asarray(w), jnp.asarray(x))
    np.testing.assert_allclose(ours, np.asarray(want), rtol=1e-11, atol=1e-12)


def test_a_product_inside_a_jax_primitive():
    import enzyme_py.jax as ezjax

    op = ezjax.primitive(tanh_layer)
    w, x = RNG.standard_normal((4, 3)), RNG.standard_normal((5, 4))
    with jax.enable_x64(True):
        ref = numpy_as_jax(tanh_layer)
        got = jax.jit(jax.grad(op, argnums=(0, 1)))(jnp.asarray(w), jnp.asarray(x))
        want = jax.grad(ref, argnums=(0, 1))(jnp.asarray(w), jnp.asarray(x))
        xs = jnp.asarray(RNG.standard_normal((3, 5, 4)))
        batched_ = jax.vmap(op, in_axes=(None, 0))(jnp.asarray(w), xs)
        batched_want = jax.vmap(ref, in_axes=(None, 0))(jnp.asarray(w), xs)
    for g, r in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(batched_), np.asarray(batched_want), rtol=1e-12)


def sin_of_matmul(a, b):
    return np.sum(np.sin(np.matmul(a, b)))


@pytest.mark.parametrize("sa,sb", [((3, 4, 5), (1, 5, 2)), ((1, 4, 5), (3, 5, 2)),
                                   ((2, 1, 4, 5), (3, 5, 6)), ((0, 5), (5, 3)),
                                   ((4, 0), (0, 3))],
                         ids=["b-broadcast", "a-broadcast", "4-d", "no-rows", "no-depth"])
def test_broadcast_stacks_and_empty_products(sa, sb):
    """A stack broadcast over another (stride 0 on its batch axis) gets the sum of the
    batch's adjoint products; empty extents give empty or zero gradients."""
    a, b = RNG.standard_normal(sa), RNG.standard_normal(sb)
    assert ez.jit(sin_of_matmul)(a, b) == pytest.approx(sin_of_matmul(a, b), rel=1e-13,
                                                         abs=1e-13)
    ga, gb = ez.grad(sin_of_matmul, argnums=(0, 1))(a, b)
    with jax.enable_x64(True):
        ja, jb = jax.grad(numpy_as_jax(sin_of_matmul), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, np.asarray(ja), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gb, np.asarray(jb), rtol=1e-12, atol=1e-14)
