"""Reductions, scans and contractions of the array layer: values against NumPy running the same
function, gradients against JAX running the same source with `np` bound to `jax.numpy`
(and finite differences), and clean errors for axes, norm orders and einsum subscripts
outside the subset.

A template such as `red_sum` reads its axis and keepdims from module constants (`AXIS`,
`KEEP`; `A0, A1` in its `_pair` form, as a module tuple is not a compile-time constant);
`_bind` makes a copy of it with those globals set, so one source line serves every
combination.
"""

from __future__ import annotations

import math
import types

import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py
from enzyme_py.frontend.arrays.contractions import loop_order, parse_subscripts
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.testing import check_grad

AXIS = None
KEEP = False
A0, A1 = 0, 1


def _bind(f, **names):
    """A copy of `f` with module globals replaced (fresh compile caches: a new function)."""
    g = types.FunctionType(f.__code__, {**f.__globals__, **names}, f.__name__, f.__defaults__,
                           f.__closure__)
    g.__qualname__ = f.__qualname__
    return g


def _jax(f):
    return _bind(f, np=jnp)


def _values(f, *args):
    ours = enzyme_py.jit(f)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    ref = f(*args)
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)
    assert np.shape(ours) == np.shape(ref)
    got, want = np.asarray(ours).dtype, np.asarray(ref).dtype
    if isinstance(ref, np.ndarray):
        assert got == want, (got, want)
    else:  # a scalar result is a Python number: compare the kind
        assert got.kind == want.kind, (got, want)
    return ours


def _grad(f, *args, argnums=0, fd=True):
    return check_grad(f, *args, argnums=argnums, reference=_jax(f), fd=fd)


RNG = np.random.default_rng(7)
X2 = RNG.normal(size=(3, 4))
X3 = RNG.normal(size=(2, 3, 4))
V5 = RNG.normal(size=5)
SQ = RNG.normal(size=(4, 4))
TIES = np.array([[1.0, 5.0, 5.0, -2.0], [7.0, 7.0, 2.0, 7.0], [0.0, 0.0, 0.0, 0.0]])


# --- the existing reductions over several axes ----------------------------------------------


def red_sum(x):
    return np.sum(x, axis=AXIS, keepdims=KEEP)


def red_sum_pair(x):
    return np.sum(x, axis=(A0, A1), keepdims=KEEP)


def red_mean(x):
    return x.mean(axis=AXIS, keepdims=KEEP)


def red_mean_pair(x):
    return x.mean(axis=(A0, A1), keepdims=KEEP)


def red_prod(x):
    return np.prod(x, axis=AXIS, keepdims=KEEP)


def red_prod_pair(x):
    return np.prod(x, axis=(A0, A1), keepdims=KEEP)


def red_max(x):
    return np.max(x, axis=AXIS, keepdims=KEEP)


def red_max_pair(x):
    return np.max(x, axis=(A0, A1), keepdims=KEEP)


def red_min(x):
    return x.min(axis=AXIS, keepdims=KEEP)


def red_min_pair(x):
    return x.min(axis=(A0, A1), keepdims=KEEP)


def loss_sum(x):
    return np.sum(np.sin(np.sum(x * x, axis=AXIS, keepdims=KEEP)))


def loss_sum_pair(x):
    return np.sum(np.sin(np.sum(x * x, axis=(A0, A1), keepdims=KEEP)))


def loss_mean(x):
    return np.sum(np.sin(np.mean(x * x, axis=AXIS, keepdims=KEEP)))


def loss_mean_pair(x):
    return np.sum(np.sin(np.mean(x * x, axis=(A0, A1), keepdims=KEEP)))


def loss_prod(x):
    return np.sum(np.sin(np.prod(x, axis=AXIS, keepdims=KEEP)))


def loss_prod_pair(x):
    return np.sum(np.sin(np.prod(x, axis=(A0, A1), keepdims=KEEP)))


def loss_max(x):
    return np.sum(np.sin(np.max(x, axis=AXIS, keepdims=KEEP)))


def loss_max_pair(x):
    return np.sum(np.sin(np.max(x, axis=(A0, A1), keepdims=KEEP)))


def loss_min(x):
    return np.sum(np.sin(x.min(axis=AXIS, keepdims=KEEP)))


def loss_min_pair(x):
    return np.sum(np.sin(x.min(axis=(A0, A1), keepdims=KEEP)))


def red_sum_all3(x):
    return np.sum(np.sin(np.sum(x, axis=(0, 1, 2), keepdims=KEEP)))


def _at(f, axis, keep):
    """`f` (or its `_pair` form for a pair of axes) with AXIS/KEEP (or A0, A1) bound."""
    if isinstance(axis, tuple):
        return _bind(globals()[f.__name__ + "_pair"], A0=axis[0], A1=axis[1], KEEP=keep)
    return _bind(f, AXIS=axis, KEEP=keep)


AXES_2D = [0, 1, -1, (0, 1), None]
AXES_3D = [0, 1, -1, (0, 2), (1, -1), None]
CASES = [(x, a, k) for x, axes in ((X2, AXES_2D), (X3, AXES_3D)) for a in axes
         for k in (False, True)]
REDUCTIONS = [red_sum, red_mean, red_prod, red_max, red_min]
LOSSES = [loss_sum, loss_mean, loss_prod, loss_max, loss_min]


@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x,axis,keep", CASES,
                         ids=[f"{x.ndim}d-axis{a}-keep{k}" for x, a, k in CASES])
def test_reduction_values(f, x, axis, keep):
    _values(_at(f, axis, keep), x)


GRAD_CASES = [(X2, -1, True), (X2, None, False), (X3, 1, False), (X3, (0, 2), True)]


@pytest.mark.parametrize("f", LOSSES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x,axis,keep", GRAD_CASES,
                         ids=[f"{x.ndim}d-axis{a}-keep{k}" for x, a, k in GRAD_CASES])
def test_reduction_grads(f, x, axis, keep):
    _grad(_at(f, axis, keep), x, fd=False)


def test_reduction_over_every_axis_listed():
    for keep in (False, True):
        f = _bind(red_sum_all3, KEEP=keep)
        _values(f, X3)
        _grad(f, X3)


def test_reductions_of_transposed_views():
    for f in REDUCTIONS:
        _values(_at(f, 0, True), X2.T)
        _values(_at(f, (0, 2), False), X3.transpose(2, 0, 1))


def test_max_min_int32_all_negative_or_positive():
    """The identity of max/min is the extreme of the element type (int32 here)."""
    neg = np.array([[-3, -7], [-9, -4]], dtype=np.int32)
    pos = np.array([[3, 7], [9, 4]], dtype=np.int32)
    for x in (neg, pos):
        for axis in (None, 0, 1):
            for f in (red_max, red_min):
                _values(_bind(f, AXIS=axis), x)


def max_rows_sum(X):
    return np.max(X, axis=1).sum()


def test_max_rows_grad():
    _grad(max_rows_sum, X2)


# --- np.argmax / np.argmin ------------------------------------------------------------------


def amax_flat(x):
    return np.argmax(x)


def amin_flat(x):
    return np.argmin(x)


def amax_axis0(x):
    return np.argmax(x, axis=0)


def amin_last_keep(x):
    return x.argmin(axis=-1, keepdims=True)


def amax_keep(x):
    return np.argmax(x, keepdims=True)


def amax_method(x):
    return x.argmax(1)


@pytest.mark.parametrize("f", [amax_flat, amin_flat, amax_axis0, amin_last_keep, amax_keep,
                               amax_method], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [X2, X2.T, TIES, -TIES, X3[:, ::2, 1:]],
                         ids=["2d", "transposed", "ties", "neg-ties", "strided3d"])
def test_arg_reductions(f, x):
    _values(f, x)


def test_arg_reductions_nan_and_ints():
    x = np.array([1.0, np.nan, 3.0, np.nan])
    assert enzyme_py.jit(amax_flat)(x) == 1 and enzyme_py.jit(amin_flat)(x) == 1
    n = np.array([[4, 9, 9], [-1, -5, -5]], dtype=np.int32)
    for f in (amax_flat, amin_flat, amax_axis0, amin_last_keep, amax_method):
        _values(f, n)
    _values(amax_axis0, np.array([-np.inf, -np.inf]))


def pick_max(x):
    return x[np.argmax(x)] * 2.0 + x[np.argmin(x, axis=0)] ** 2


def pick_rows(X, w):
    i = np.argmax(X @ w)
    return np.sum(X[i] * w)


def test_argmax_index_differentiates_the_load():
    g = _grad(pick_max, V5)
    assert np.count_nonzero(g) == 2
    _grad(pick_rows, X2, RNG.normal(size=4), argnums=(0, 1))


def test_argmax_of_empty_is_value_error():
    with pytest.raises(ValueError):
        enzyme_py.jit(amax_flat)(np.zeros(0))


# --- np.cumsum / np.cumprod -----------------------------------------------------------------


def cumsum_flat(x):
    return np.cumsum(x)


def cumsum_axis0(x):
    return np.cumsum(x, axis=0)


def cumprod_last(x):
    return x.cumprod(axis=-1)


def cumprod_flat(x):
    return x.cumprod()


def cumsum_mid(x):
    return x.cumsum(1)


@pytest.mark.parametrize("f", [cumsum_flat, cumsum_axis0, cumprod_last, cumprod_flat,
                               cumsum_mid], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [X2, X2.T, X3, X3[:, ::-1, ::2]],
                         ids=["2d", "transposed", "3d", "strided3d"])
def test_scans(f, x):
    _values(f, x)


def test_scans_of_ints_and_vectors():
    _values(cumsum_flat, np.arange(6, dtype=np.int32))
    _values(cumprod_flat, np.array([3, -2, 5], dtype=np.int64))
    _values(cumsum_axis0, V5)
    _values(cumsum_axis0, np.zeros((0, 3)))


def cumsum_loss(x):
    return np.sum(np.cumsum(x) ** 2)


def cumprod_loss(X):
    return np.sum(np.cumprod(X, axis=1) * X)


def cumsum_axis_loss(X):
    return np.sum(np.sin(np.cumsum(X, axis=0)))


def test_scan_grads():
    _grad(cumsum_loss, V5)
    _grad(cumsum_loss, X2)
    _grad(cumprod_loss, X2)
    _grad(cumprod_loss, X3[0].T)
    _grad(cumsum_axis_loss, X3)


# --- np.var / np.std ------------------------------------------------------------------------


def var_all(x):
    return np.var(x)


def std_all(x):
    return np.std(x)


def std_rows_ddof(x):
    return np.std(x, axis=1, ddof=1)


def var_keep(x):
    return x.var(axis=(0, 2), keepdims=True)


def std_method(x):
    return x.std(0)


def var_lazy(x):
    return np.var(np.exp(x) * 0.5, axis=-1)


@pytest.mark.parametrize("f", [var_all, std_all, std_rows_ddof, var_lazy],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [X2, X2.T, X3], ids=["2d", "transposed", "3d"])
def test_moments(f, x):
    _values(f, x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy warns on n - ddof <= 0
def test_moments_more():
    _values(var_keep, X3)
    _values(std_method, X2)
    _values(var_all, np.arange(10))
    _values(std_all, np.arange(10, dtype=np.int32))
    _values(std_rows_ddof, np.ones((3, 1)))  # n - ddof == 0: NaN, as NumPy (which warns)


def std_loss(x):
    return np.std(x)


def var_axis_loss(X, w):
    return np.sum(np.var(X, axis=0, ddof=1) * w)


def std_keep_loss(X):
    return np.sum(X / np.std(X, axis=1, keepdims=True))


def test_moment_grads():
    _grad(std_loss, V5)
    _grad(std_loss, X3)
    _grad(var_axis_loss, X2, RNG.normal(size=4), argnums=(0, 1))
    _grad(std_keep_loss, X2)


# --- np.linalg.norm -------------------------------------------------------------------------


def norm_plain(x):
    return np.linalg.norm(x)


def norm_1(x):
    return np.linalg.norm(x, ord=1)


def norm_inf(x):
    return np.linalg.norm(x, ord=np.inf)


def norm_minus_inf(x):
    return np.linalg.norm(x, -np.inf)


def norm_2(x):
    return np.linalg.norm(x, 2)


def norm_3(x):
    return np.linalg.norm(x, ord=3)


def norm_0(x):
    return np.linalg.norm(x, ord=0)


def norm_fro(x):
    return np.linalg.norm(x, ord="fro")


def norm_rows(x):
    return np.linalg.norm(x, axis=1)


def norm_cols_1_keep(x):
    return np.linalg.norm(x, ord=1, axis=0, keepdims=True)


def norm_matrix_axes(x):
    return np.linalg.norm(x, ord=np.inf, axis=(2, 0))


def norm_keep(x):
    return np.linalg.norm(x, keepdims=True)


VECTOR_NORMS = [norm_plain, norm_1, norm_inf, norm_minus_inf, norm_2, norm_3, norm_0]
MATRIX_NORMS = [norm_plain, norm_1, norm_inf, norm_minus_inf, norm_fro, norm_rows,
                norm_cols_1_keep, norm_keep]


@pytest.mark.parametrize("f", VECTOR_NORMS, ids=lambda f: f.__name__)
def test_vector_norms(f):
    _values(f, V5)
    _values(f, X2[:, 1])


@pytest.mark.parametrize("f", MATRIX_NORMS, ids=lambda f: f.__name__)
def test_matrix_norms(f):
    _values(f, X2)
    _values(f, X2.T)


def test_norms_of_3d_and_ints():
    _values(norm_plain, X3)
    _values(norm_rows, X3)
    _values(norm_matrix_axes, X3)
    _values(norm_keep, X3)
    _values(norm_plain, np.arange(6, dtype=np.int32))


def residual_norm(X, w, y):
    return np.linalg.norm(X @ w - y)


def norm_mix_loss(X):
    return np.linalg.norm(X, ord=1) + np.linalg.norm(X, ord=np.inf) + \
        np.sum(np.linalg.norm(X, axis=0) * np.linalg.norm(X, ord=3, axis=0))


def test_norm_grads():
    _grad(residual_norm, X2, RNG.normal(size=4), RNG.normal(size=3), argnums=(0, 1, 2))
    _grad(norm_mix_loss, X2)
    _grad(norm_1, V5)
    _grad(norm_inf, V5)


# --- np.outer, np.inner, np.vdot, np.trace --------------------------------------------------


def outer_of(a, b):
    return np.outer(a, b)


def inner_of(a, b):
    return np.inner(a, b)


def vdot_of(a, b):
    return np.vdot(a, b)


def trace_of(A):
    return np.trace(A)


def trace_up(A):
    return A.trace(offset=1)


def trace_down(A):
    return np.trace(A, -2)


@pytest.mark.parametrize("a,b", [(V5, V5[::-1]), (X2, X2[0]), (X2.T, X3)],
                         ids=["vectors", "matrix-vector", "views"])
def test_outer(a, b):
    _values(outer_of, a, b)


@pytest.mark.parametrize("a,b", [(V5, V5[::-1]), (X2, X2[0]), (X2, X2), (X3, X2.T.T),
                                 (X2[0], X3)],
                         ids=["1d", "2d-1d", "2d-2d", "3d-2d", "1d-3d"])
def test_inner(a, b):
    _values(inner_of, a, b)


def test_vdot_and_trace():
    _values(vdot_of, X2, X2.T.copy())
    _values(vdot_of, X3, X3[:, ::-1])
    for f in (trace_of, trace_up, trace_down):
        for A in (SQ, X2, X2.T, np.arange(12, dtype=np.int32).reshape(3, 4)):
            _values(f, A)


def trace_gram(A):
    return np.trace(A @ A.T)


def contraction_loss(a, b, A):
    return np.sum(np.outer(a, b) * A) + np.inner(a, a) * np.vdot(A, A) + \
        np.sum(np.inner(A, A) ** 2) + np.trace(A, 1)


def test_contraction_grads():
    _grad(trace_gram, X2)
    _grad(contraction_loss, RNG.normal(size=3), RNG.normal(size=4), X2, argnums=(0, 1, 2))


def test_inner_extent_mismatch_is_value_error():
    with pytest.raises(ValueError, match="extents 5 and 4"):
        enzyme_py.jit(inner_of)(V5, X2[0])


# --- np.einsum ------------------------------------------------------------------------------


def ein_dot(a, b):
    return np.einsum("i,i->", a, b)


def ein_matvec(A, b):
    return np.einsum("ij,j->i", A, b)


def ein_matmul(A, B):
    return np.einsum("ij,jk->ik", A, B)


def ein_frobenius(A, B):
    return np.einsum("ij,ij->", A, B)


def ein_transpose(A):
    return np.einsum("ij->ji", A)


def ein_trace(A):
    return np.einsum("ii->", A)


def ein_outer(a, b):
    return np.einsum("i,j->ij", a, b)


def ein_batched(A, B):
    return np.einsum("bij,bjk->bik", A, B)


def ein_gram(A, B):
    return np.einsum("ij,kj->ik", A, B)


def ein_implicit(A, B):
    return np.einsum("ij,jk", A, B)


def ein_chain(A, B, C):
    return np.einsum("ij,jk,kl->il", A, B, C)


def ein_loss(A, B):
    return np.einsum("ij,jk->ik", A, B).sum()


EINSUMS = [(ein_dot, (V5, V5)), (ein_matvec, (X2, X2[0])), (ein_matmul, (X2, X3[0].T)),
           (ein_frobenius, (X2, X2)), (ein_transpose, (X2,)), (ein_trace, (SQ,)),
           (ein_outer, (V5, X2[0])), (ein_batched, (X3, X3.transpose(0, 2, 1))),
           (ein_gram, (X2, X2)), (ein_implicit, (X2, X3[0].T)),
           (ein_chain, (X2, X3[0].T, X2))]


@pytest.mark.parametrize("f,args", EINSUMS, ids=[f.__name__ for f, _ in EINSUMS])
def test_einsum_values(f, args):
    _values(f, *args)


def test_einsum_grad():
    _grad(ein_loss, X2, X3[0].T, argnums=(0, 1))


def test_einsum_subscripts_parse():
    assert parse_subscripts("ij,jk->ik", 2) == (["ij", "jk"], "ik")
    assert parse_subscripts("ij,jk", 2) == (["ij", "jk"], "ik")
    assert parse_subscripts("ba,ca", 2) == (["ba", "ca"], "bc")
    assert parse_subscripts("ii", 1) == (["ii"], "")
    for bad, n, msg in [("...ij,jk->ik", 2, "ellipsis"), ("ij->ii", 1, "repeats"),
                        ("ij->k", 1, "not in any"), ("ij,jk->ik", 3, "2 operand"),
                        ("i1->", 1, "invalid subscript")]:
        with pytest.raises(ValueError, match=msg):
            parse_subscripts(bad, n)


def test_einsum_loop_order_reads_row_major():
    assert loop_order(["ij", "jk"], "ik") == ["i", "j", "k"]  # C[i, :] += A[i, j] * B[j, :]
    assert loop_order(["ij", "kj"], "ik") == ["i", "k", "j"]  # row dots
    assert loop_order(["ij", "j"], "i") == ["i", "j"]
    assert loop_order(["bij", "bjk"], "bik") == ["b", "i", "j", "k"]
    assert loop_order(["ij"], "ji") == ["i", "j"]  # the operand is read row by row


def ein_gmm(L, X):
    return np.einsum("kji,nki->nkj", L, X)


def ein_gmm_loss(L, X):
    return np.sum(np.einsum("kji,nki->nkj", L, X) ** 2)


def _in_order(inputs, output, *operands):
    """einsum by Python loops, each output element summed over the other labels in
    `loop_order`'s order: the order the compiled code must keep."""
    labels = loop_order(inputs, output)
    ext = {ch: d for s, v in zip(inputs, operands, strict=True)
           for ch, d in zip(s, v.shape, strict=True)}
    out = np.zeros([ext[ch] for ch in output])
    for idx in np.ndindex(*[ext[ch] for ch in labels]):
        at = dict(zip(labels, idx, strict=True))
        term = 1.0
        for s, v in zip(inputs, operands, strict=True):
            term *= v[tuple(at[ch] for ch in s)]
        out[tuple(at[ch] for ch in output)] += term
    return out


@pytest.mark.parametrize("f,inputs,output,args", [
    (ein_gmm, ["kji", "nki"], "nkj", (RNG.normal(size=(3, 5, 5)), RNG.normal(size=(7, 3, 5)))),
    (ein_gram, ["ij", "kj"], "ik", (RNG.normal(size=(6, 9)), RNG.normal(size=(5, 9)))),
    (ein_gram, ["ij", "kj"], "ik", (X2, X3[1][:, ::-1])),  # a reversed view: copied too
], ids=["gmm", "gram", "gram-view"])
def test_einsum_copied_operand_keeps_each_sum_in_order(f, inputs, output, args):
    """An operand read across the output's rows is copied with the output's last axis last
    (so the inner loop updates a contiguous row); every sum keeps its order: bit for bit."""
    got = enzyme_py.jit(f)(*args)
    assert np.array_equal(got, _in_order(inputs, output, *args))


def test_einsum_copied_operand_grad():
    L, X = RNG.normal(size=(3, 5, 5)), RNG.normal(size=(7, 3, 5))
    _grad(ein_gmm_loss, L, X, argnums=(0, 1))
    # the primal allocates the result (7 x 3 x 5) once: the matrix kernel reads L with its
    # strides, so L is not copied (the loop nest copied it, 3 x 5 x 5)
    heap = enzyme_py.profile(ein_gmm_loss, L, X, argnums=(0, 1), repeat=1).primal_heap
    assert sorted((s.calls, s.bytes) for s in heap) == [(1, 105 * 8)]
    _grad(ein_gmm_loss, L.transpose(0, 2, 1), X[:, ::-1], argnums=(0, 1))


def mm_loss(x, W):
    return np.sum(np.tanh(x @ W))


def mm_t_loss(x, W):
    return np.sum(np.tanh(x @ W.T))


def mm_layers(x, W, steps):
    for _ in range(steps):
        x = np.tanh(x @ W.T)  # a copy of W.T per product (made contiguous)
    return np.sum(x)


def mm_product(x, W):
    return x @ W


@pytest.mark.parametrize("w", [RNG.normal(size=(6, 5)), np.asfortranarray(RNG.normal(size=(6, 5))),
                               RNG.normal(size=(6, 10))[:, ::2], RNG.normal(size=(5, 6)).T],
                         ids=["C", "Fortran", "step-2", "transposed"])
def test_matmul_reads_the_right_operand_by_rows(w):
    """x @ W with W's rows not contiguous at run time: the matrix kernel reads W with its
    strides (it gathers a panel at a time into its own stack buffer), with the same sums in
    the same order as for a C-contiguous W (bit for bit), and the gradient; no heap copy."""
    x = RNG.normal(size=(4, 6))
    assert np.array_equal(enzyme_py.jit(mm_product)(x, w),
                          enzyme_py.jit(mm_product)(x, np.ascontiguousarray(w)))
    np.testing.assert_allclose(enzyme_py.jit(mm_product)(x, w), x @ w, rtol=1e-13)
    _grad(mm_loss, x, w, argnums=(0, 1))
    # (the profile runs on np.copy of the arguments, which keeps a transposed layout and
    # compacts a step-2 view)
    heap = enzyme_py.profile(mm_loss, x, w, argnums=(0, 1), repeat=1).primal_heap
    copies = sum(s.calls for s in heap) - 1  # (the product's own block)
    assert copies == 0, heap


def test_matmul_with_transposed_weights_in_a_loop():
    x, W = RNG.normal(size=(3, 4)), RNG.normal(size=(4, 4))
    assert enzyme_py.jit(mm_layers)(x, W, 3) == pytest.approx(mm_layers(x, W, 3), rel=1e-13)
    _grad(mm_layers, x, W, 3, argnums=(0, 1))
    _grad(mm_t_loss, x, W, argnums=(0, 1))


def mv_product(A, x):
    return A @ x


def vm_product(x, A):
    return x @ A


def mv_loss(A, x, y):
    return np.sum(np.tanh(A @ x)) + np.sum(np.tanh(y @ A))


def _in_order_matvec(A, x):
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        s = 0.0
        for k in range(A.shape[1]):
            s += A[i, k] * x[k]
        out[i] = s
    return out


@pytest.mark.parametrize("layout", ["C", "transposed", "Fortran", "step-2"])
@pytest.mark.parametrize("n", [0, 3, 5])  # (no row, a group of four short, one past)
def test_matvec_sums_each_row_in_order(layout, n):
    """A @ x sums rows four at a time (or, for A read by columns, updates the result column
    by column); x @ A likewise: every element is the in-order sum, bit for bit."""
    k = 6
    A = {"C": lambda: RNG.normal(size=(n, k)), "transposed": lambda: RNG.normal(size=(k, n)).T,
         "Fortran": lambda: np.asfortranarray(RNG.normal(size=(n, k))),
         "step-2": lambda: RNG.normal(size=(n, 2 * k))[:, ::2]}[layout]()
    x, y = RNG.normal(size=k), RNG.normal(size=n)
    assert np.array_equal(enzyme_py.jit(mv_product)(A, x), _in_order_matvec(A, x))
    assert np.array_equal(enzyme_py.jit(vm_product)(y, A), _in_order_matvec(A.T, y))
    if n == 5:
        _grad(mv_loss, A, x, y, argnums=(0, 1, 2))


def ein_ellipsis(A):
    return np.einsum("...j->...", A)


def ein_repeated_output(A):
    return np.einsum("ij->ii", A)


def ein_rank(A):
    return np.einsum("i->", A)


@pytest.mark.parametrize("f,msg", [(ein_ellipsis, "ellipsis"),
                                   (ein_repeated_output, "repeats a label"),
                                   (ein_rank, "2 dimension")],
                         ids=["ellipsis", "repeated-output", "rank"])
def test_einsum_errors(f, msg):
    with pytest.raises(FrontendError, match=msg):
        enzyme_py.jit(f)(X2)


# --- clean errors ---------------------------------------------------------------------------


def bad_sum_axis(x):
    return np.sum(x, axis=2)


def bad_argmax_axes(x):
    return np.argmax(x, axis=(0, 1))


def bad_cumsum_axis(x):
    return np.cumsum(x, axis=-3)


def bad_var_axis(x):
    return np.var(x, axis=(0, 0))


def bad_norm_matrix_2(x):
    return np.linalg.norm(x, ord=2)


def bad_norm_nuc(x):
    return np.linalg.norm(x, ord="nuc")


def bad_norm_vector_fro(x):
    return np.linalg.norm(x, ord="fro", axis=0)


def bad_norm_3d_ord(x):
    return np.linalg.norm(x, ord=1)


def bad_norm_three_axes(x):
    return np.linalg.norm(x, axis=(0, 1, 2))


def bad_trace_3d(x):
    return np.trace(x)


@pytest.mark.parametrize("f,x,msg", [
    (bad_sum_axis, X2, "axis 2 is out of bounds"),
    (bad_argmax_axes, X2, "one axis"),
    (bad_cumsum_axis, X2, "axis -3 is out of bounds"),
    (bad_var_axis, X2, "duplicate value"),
    (bad_norm_matrix_2, X2, "singular value norm"),
    (bad_norm_nuc, X2, "singular value norm"),
    (bad_norm_vector_fro, X2, "for vectors"),
    (bad_norm_3d_ord, X3, "1-D or 2-D"),
    (bad_norm_three_axes, X3, "one axis .vector norms. or two"),
    (bad_trace_3d, X3, "2-D array"),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else "")
def test_clean_errors(f, x, msg):
    with pytest.raises(FrontendError, match=msg):
        enzyme_py.jit(f)(x)


def test_vector_norm_orders_match_numpy_on_edge_values():
    x = np.array([0.0, -3.0, 4.0, 0.0])
    for f in VECTOR_NORMS:
        assert math.isclose(enzyme_py.jit(f)(x), f(x), rel_tol=1e-14)


# --- forward mode ---------------------------------------------------------------------------


def fwd_vector_mix(x):
    return np.sum(np.cumsum(x) ** 2) + np.std(x) + np.linalg.norm(x, ord=1) + np.max(x)


def fwd_matrix_mix(A):
    return np.trace(A @ A.T) + np.sum(np.inner(A, A)) + np.max(A, axis=1).sum() + \
        np.sum(np.cumprod(A, axis=0)) + np.sum(np.var(A, axis=0))


@pytest.mark.parametrize("f,x", [(fwd_vector_mix, V5), (fwd_matrix_mix, X2)],
                         ids=["vector", "matrix"])
def test_forward_mode_matches_jax(f, x):
    import jax

    t = RNG.normal(size=x.shape)
    value, tangent = enzyme_py.jvp(f, (x,), (t,))
    with jax.enable_x64(True):
        ref_value, ref_tangent = jax.jvp(_jax(f), (jnp.asarray(x),), (jnp.asarray(t),))
    assert math.isclose(value, float(ref_value), rel_tol=1e-12)
    assert math.isclose(tangent, float(ref_tangent), rel_tol=1e-10)


def extremes(x, X, Q):
    return (np.max(x) - 2.0 * np.min(x) + np.sum(np.max(X, axis=0) * np.arange(1.0, 6.0))
            + np.sum(np.min(X, axis=1) ** 2) + np.sum(np.max(X, axis=-1, keepdims=True) * X)
            + np.sum(np.max(Q, axis=(0, 2)) * np.arange(1.0, 5.0))
            + np.sum(np.min(Q, axis=1, keepdims=True) ** 3) + np.sum(np.max(np.exp(X) - X, axis=1)))


def test_max_and_min_in_a_gradient_module_give_numpy_s_values_and_jax_s_gradients():
    # (a reverse-mode gradient scans for where the extreme is, then reads it: `_extreme`)
    import jax

    from enzyme_py.testing import numpy_as_jax

    rng = np.random.default_rng(7)
    x, X, Q = rng.standard_normal(7), rng.standard_normal((4, 5)), rng.standard_normal((3, 4, 2))
    value, grads = enzyme_py.value_and_grad(extremes, argnums=(0, 1, 2))(x, X, Q)
    assert value == extremes(x, X, Q)
    with jax.enable_x64(True):
        want = jax.grad(numpy_as_jax(extremes), argnums=(0, 1, 2))(x, X, Q)
    for g, w in zip(grads, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    xn, Xn = x.copy(), np.round(X)  # a NaN, and ties (the first of equal values wins)
    xn[3] = np.nan
    value, grads = enzyme_py.value_and_grad(extremes, argnums=(0, 1, 2))(xn, Xn, Q)
    assert np.isnan(value) and np.isnan(extremes(xn, Xn, Q))
    assert grads[0][3] == 1.0 - 2.0 and np.all(np.delete(grads[0], 3) == 0.0)
    first = np.zeros_like(Xn)  # max over axis 0 of the rounded X: its first row of the max
    first[np.argmax(Xn, axis=0), np.arange(5)] = np.arange(1.0, 6.0)
    got = enzyme_py.grad(lambda_max_columns)(Xn)
    np.testing.assert_array_equal(got, first)


def lambda_max_columns(X):
    return np.sum(np.max(X, axis=0) * np.arange(1.0, 6.0))


def weighted_max_over_rows_and_depth(Q):
    return np.sum(np.max(Q, axis=(0, 2)) * np.arange(1.0, Q.shape[1] + 1.0))


def weighted_min_of_rows(X):
    return np.sum(np.min(X, axis=1) * np.arange(1.0, X.shape[0] + 1.0))


def _first_extreme_places(Q, axes, pick):
    """Where NumPy's scan finds the extreme of each kept index: its first NaN, else the
    first value equal to the extreme (row-major over `axes`)."""
    moved = np.moveaxis(Q, axes, list(range(len(axes))))
    flat = moved.reshape(-1, *moved.shape[len(axes):])
    extreme = pick(flat, axis=0)
    hit = (flat == extreme) | np.isnan(flat)
    return np.argmax(hit, axis=0), moved.shape[:len(axes)]


def test_a_gradient_s_extreme_goes_to_the_scan_s_place_with_nans_ties_and_signed_zeros():
    # `_extreme` runs llvm.maximum / llvm.minimum and then the first place equal to the
    # extreme or NaN: the scan's place, also for +0 / -0 (equal, so the first zero wins)
    rng = np.random.default_rng(12)
    Q = np.round(rng.standard_normal((3, 5, 4)))
    Q[1, 0, 2] = np.nan
    Q[:, 3, :] = 0.0
    Q[0, 3, 0], Q[2, 3, 1] = -0.0, 0.0
    got = enzyme_py.grad(weighted_max_over_rows_and_depth)(Q)
    places, shape = _first_extreme_places(Q, (0, 2), np.max)
    want = np.zeros_like(Q)
    for j, p in enumerate(places):
        i, k = np.unravel_index(p, shape)
        want[i, j, k] = j + 1.0
    np.testing.assert_array_equal(got, want)
    X = np.round(rng.standard_normal((6, 7)))
    X[2, 4] = np.nan
    X[4, :] = np.array([0.0, -0.0, 3.0, -0.0, 0.0, 5.0, 1.0])
    got = enzyme_py.grad(weighted_min_of_rows)(X)
    places, _ = _first_extreme_places(X.T, (0,), np.min)
    want = np.zeros_like(X)
    want[np.arange(6), places] = np.arange(1.0, 7.0)
    np.testing.assert_array_equal(got, want)


def fourth_root_max(y):
    return np.mean(np.max((y[-1::-2, -4:] * y[-1::-2, -4:]) ** 0.25, axis=0))


def fourth_root_max_rows(y):
    return np.sum(np.max((y * y) ** 0.25, axis=1))


@pytest.mark.parametrize("f, shape", [(fourth_root_max, (3, 4)),
                                      (fourth_root_max_rows, (7, 13)),
                                      (fourth_root_max_rows, (3, 37))])
def test_a_gradient_s_extreme_of_computed_elements_reads_them_once(f, shape):
    # (NumPy fuzz seed 5317: the extreme's two passes each computed `** 0.25`, one in a
    # vector loop, one in its scalar remainder; the numbers differed in the last bit, the
    # second pass found no place equal to the extreme, and the gradient read and wrote
    # past the array; computed elements are now stored once, then both passes read them)
    for seed in range(12):
        y = np.random.default_rng(seed).standard_normal(shape)
        value, _ = enzyme_py.value_and_grad(f)(y)
        assert value == pytest.approx(f(y), rel=1e-13)
    check_grad(f, y)
