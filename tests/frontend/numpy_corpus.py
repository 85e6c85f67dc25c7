"""A corpus of NumPy-style functions, written the way losses and numerics are written with array
expressions, each with the arguments to check it at.

Every `Case` is checked by `test_numpy_corpus.py`: `enzyme_py.jit(f)` against NumPy running `f`;
reverse mode (`check_grad`) and forward mode (`jvp`) against JAX running the same source with
`np` bound to `jax.numpy` (or against the case's `reference`, a JAX function with the same
signature, for functions that write into arrays: `y[1:] = e` is `y = y.at[1:].set(e)` there);
`jacrev`/`jacfwd` against JAX's for functions that return arrays.

Invariants: every function is a module-level `def` that reaches NumPy only through `np.` (the
JAX side rebinds that one name); helpers the functions call live here too (rebound the same
way). Arguments stay away from kinks and branch boundaries, so finite differences are
meaningful, and sizes are small (vectors of 3-8 elements, 3x4 matrices). A function returning
None writes its results into its array arguments; its `reference` returns their final contents,
one per array argument, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax.numpy as jnp
import numpy as np


@dataclass
class Case:
    f: Any
    args: tuple
    argnums: int | tuple[int, ...] = 0
    rtol: float = 1e-7  # against JAX
    value_rtol: float = 1e-10
    reference: Any = None  # a JAX function with f's signature (for functions that write arrays)
    fd: bool = True  # finite differences too (off where a step crosses a discontinuity)
    # a known gap or bug: a reason string applies to every check of the case; a dict names the
    # checks it applies to ("value", "grad", "jvp", "jacrev", "jacfwd")
    xfail: str | dict[str, str] = ""

    @property
    def id(self) -> str:
        return self.f.__name__

    def xfail_for(self, check: str) -> str:
        if isinstance(self.xfail, str):
            return self.xfail
        return self.xfail.get(check, "")


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def vec(n: int, seed: int = 0, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return _rng(seed).uniform(lo, hi, n)


def mat(n: int, m: int, seed: int = 0, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return _rng(seed).uniform(lo, hi, (n, m))


def ten(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return _rng(seed).uniform(-1.0, 1.0, shape)


def onehot(labels: list[int], k: int) -> np.ndarray:
    return np.eye(k)[labels]


# --- views ------------------------------------------------------------------------------------


def diff_squares(x):
    return np.sum((x[1:] - x[:-1]) ** 2)


def reversed_product(x):
    return np.sum(x * x[::-1])


def strided_slices(x):
    return np.sum(np.sin(x[1:7:2]) * x[0:3])


def negative_step_slice(x):
    return np.sum(x[6:1:-2] ** 2 + x[-1])


def row_index(X, i):
    return np.sum(X[i] * X[i + 1])


def column_index(X, j):
    return np.sum(np.exp(X[:, j]))


def sub_block(X):
    return np.sum(X[1:, ::2] ** 3)


def none_axis_broadcast(x, y):
    return np.sum((x[:, None] - y[None, :]) ** 2)


def newaxis_outer(x):
    return np.sum(x[np.newaxis, :] * np.tanh(x[:, np.newaxis]))


def dot_T_view(X):
    return np.sum(X.T[0] * X[:, 1]) + np.sum(X.T ** 2)


def np_transpose_slice(X):
    return np.sum(np.transpose(X)[1:] ** 2)


def diagonal_offsets(X):
    return np.sum(X.diagonal() ** 2) + np.sum(np.diagonal(X, 1)) + \
        np.sum(X.diagonal(offset=-1) * X.T.diagonal(1))


def swapaxes_3d(T):
    return np.sum(T.swapaxes(0, 2)[0] * T[:, :, 1].T)


def reshape_rows(x):
    M = x.reshape(2, 4)
    return np.sum(M[0] * M[1])


def reshape_minus_one(X):
    return np.sum(X.reshape(-1)[::3] ** 2)


def ravel_cos(X):
    return np.sum(np.cos(X.ravel()[1:]))


def flatten_neighbours(X):
    v = X.flatten()
    return np.sum(v[:-1] * v[1:])


def loop_over_rows(X):
    s = 0.0
    for row in X:
        s += np.sum(row ** 2) * row[0]
    return s


def view_of_view(X):
    return np.sum(X[::-1, 1:][1:, ::2] ** 2)


def negative_row_index(X):
    return np.sum((X[-1] - X[0]) ** 2)


def element_and_row(X):
    return X[1, 2] * np.sum(X[0]) + X[-1, -1]


# --- element-wise arithmetic with broadcasting ------------------------------------------------


def add_row_vector(X, b):
    return np.sum((X + b) ** 2)


def subtract_column(X, c):
    return np.sum(np.tanh(X - c[:, None]))


def multiply_3d(T, v):
    return np.sum(T * v)


def divide_broadcast(X, y):
    return np.sum(X / (2.0 + y))


def integer_powers(x):
    return np.sum(x ** 3 - 2 * x ** 2)


def float_power(x):
    return np.sum((x * x + 1.0) ** 1.5)


def array_power(x, y):
    return np.sum(np.power(1.5 + x, y))


def floordiv_mod(x):
    return np.sum((x // 0.3) * x + x % 0.3)


def unary_minus(x):
    return np.sum(-x * np.exp(-x))


def scalar_on_left(x):
    return np.sum(2.0 - x) + np.sum(1.0 / (3.0 + x)) + np.sum(2.0 ** x)


def leaky_relu(x):
    return np.sum(np.where(x > 0, x, 0.1 * x))


def masks_and_or(x, y):
    m = (x > 0) & (y < 0.5)
    return np.sum(np.where(m | (x < -0.5), x * y, y))


def mask_not(x):
    return np.sum(np.where(~(x > 0.2), x ** 2, 0.0))


def mask_times_array(x):
    return np.sum(x * (x > 0))


def all_comparisons(x, y):
    a = np.where(x >= y, x, y) + np.where(x <= y, y * y, 0.0)
    b = np.where(x != y, 1.0, 0.0) * x + np.where(x == x, y, 0.0)
    return np.sum(a + b) + np.sum(np.where(x < y, x, -y))


def exp_log_sin_cos(x):
    return np.sum(np.exp(x) + np.log(2.0 + x) + np.sin(x) * np.cos(x))


def tanh_sqrt_abs(x):
    return np.sum(np.tanh(x) * np.sqrt(1.0 + x * x) + np.abs(x))


def maximum_minimum(x, y):
    return np.sum(np.maximum(x, y) - np.minimum(x, 0.3 * y))


def clip_function(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2)


def clip_method(x):
    return np.sum(x.clip(-0.4, 0.6) * x)


def sign_square(x):
    return np.sum(np.sign(x) * np.square(x))


def log1p_expm1(x):
    return np.sum(np.log1p(x * x) + np.expm1(0.5 * x))


def relu_squared(x):
    return np.sum(np.maximum(x, 0.0) ** 2)


def more_ufuncs(x):
    return np.sum(np.arctan(x) + np.cosh(x) + np.sinh(0.5 * x) + np.tan(0.3 * x))


def scalar_and_array(a, x):
    return np.sum(a * x ** 2 + a ** 2) + a * np.sum(x)


def broadcast_3d_2d(T, M):
    return np.sum(T * M[None, :, :] + M[:, :1])


def float32_exp(x):
    return np.sum(np.exp(x) * 2.0)


def float32_layer(W, x):
    return np.sum(np.tanh(W @ x))


def float32_with_float64(x, y):
    return np.sum(x * y)


# --- reductions -------------------------------------------------------------------------------


def sum_axis0(X):
    return np.sum(np.sum(X, axis=0) ** 2)


def sum_keepdims(X):
    return np.sum(X / np.sum(X ** 2, axis=1, keepdims=True))


def mean_center(X):
    return np.sum((X - X.mean(axis=1, keepdims=True)) ** 2)


def mean_all(x):
    return np.mean(x ** 2)


def product(x):
    return np.prod(1.0 + 0.1 * x)


def product_axis(X):
    return np.sum(np.prod(1.0 + 0.5 * X, axis=1))


def max_all(x):
    return np.max(x * x)


def min_axis(X):
    return np.sum(np.min(X, axis=0))


def max_keepdims(X):
    return np.sum(np.exp(X - np.max(X, axis=1, keepdims=True)))


def argmax_pick(x, y):
    i = np.argmax(x)
    return y[i] * x[i]


def argmin_method(x):
    return x[x.argmin()] * np.sum(x)


def cumsum_squares(x):
    return np.sum(np.cumsum(x) ** 2)


def cumsum_axis(X):
    return np.sum(np.cumsum(X, axis=1) * X)


def variance(x):
    return np.var(x)


def std_axis(X):
    return np.sum(np.std(X, axis=0))


def vector_norm(x):
    return np.linalg.norm(x)


def norm_ord_1_inf(x):
    return np.linalg.norm(x, ord=1) + np.linalg.norm(x, ord=np.inf)


def frobenius(X):
    return np.linalg.norm(X)


def row_norms(X):
    return np.sum(np.linalg.norm(X, axis=1))


def sum_tuple_axis(T):
    return np.sum(np.sum(T, axis=(0, 2)) ** 2)


def sum_methods(X):
    return np.sum(X.sum(axis=0) ** 2) + X.sum()


def max_min_methods(X):
    return X.max() - X.min(axis=1).sum()


def mean_tuple_axis(T):
    return np.sum(T.mean(axis=(1, 2)) ** 2)


def standardize_columns(X):
    Z = (X - X.mean(axis=0)) / np.sqrt(X.var(axis=0, keepdims=True) + 1e-5)
    return np.sum(Z ** 3)


# --- matrix products and contractions ---------------------------------------------------------


def tanh_layer_sum(W, x, b):
    return np.sum(np.tanh(W @ x + b))


def matmul_squares(A, B):
    return np.sum((A @ B) ** 2)


def dot_vectors(x, y):
    return np.dot(x, y) ** 2


def dot_matrix_vector(A, x):
    return np.sum(np.dot(A, x) ** 2)


def matmul_function(A, B):
    return np.sum(np.matmul(A, B.T) ** 2)


def vector_matrix(x, A):
    return np.sum(np.sin(x @ A))


def batched_matmul(T, U):
    return np.sum((T @ U) ** 2)


def outer_product(x, y):
    return np.sum(np.outer(x, y) ** 2)


def inner_product(x, y):
    return np.inner(x, y) * np.inner(x, x)


def trace_gram(A):
    return np.trace(A @ A.T)


def einsum_matvec(A, x):
    return np.sum(np.einsum("ij,j->i", A, x) ** 2)


def einsum_matmul(A, B):
    return np.sum(np.einsum("ij,jk->ik", A, B) ** 2)


def einsum_trace(S):
    return np.einsum("ii", S) ** 2


def einsum_dot(x, y):
    return np.einsum("i,i->", x, y)


def einsum_outer(x, y):
    return np.sum(np.tanh(np.einsum("i,j->ij", x, y)))


def quadratic_form(x, S):
    return x @ S @ x


def dot_method(x, y):
    return x.dot(y) * x.dot(x)


def matmul_chain(A, B, x):
    return np.sum(A @ (B @ x))


# --- constructors and assembly ----------------------------------------------------------------


def zeros_accumulate(x):
    y = np.zeros(3)
    y += x[:3]
    y *= x[1:4]
    return np.sum(y)


def ones_zeros_like(x):
    return np.sum(np.ones_like(x) * x + np.zeros_like(x) + x * x)


def full_shape_tuple(X):
    return np.sum(np.full((3, 4), 0.5) * X ** 2)


def full_like_minus(x):
    return np.sum((np.full_like(x, 3.0) - x) ** 2)


def arange_weights(x):
    return np.sum(np.arange(4) * x) + np.sum(np.arange(1.0, 5.0) * x ** 2)


def linspace_weights(x):
    return np.sum(np.linspace(0.0, 1.0, 4) * x ** 2)


def eye_regularized(A):
    return np.sum((A @ A.T + np.eye(3)) ** 2)


def array_literal(a, b):
    v = np.array([a, b, a * b])
    return np.sum(v ** 2)


def concatenate_pair(x, y):
    z = np.concatenate((x, y))
    return np.sum(z[1:] * z[:-1])


def stack_pair(x, y):
    S = np.stack([x, y])
    return np.sum(S[0] * S[1]) + np.sum(S ** 2)


def stack_axis1(x, y):
    S = np.stack([x, y], axis=1)
    return np.sum(S @ np.array([1.0, -2.0]))


def stack_numbers(x, y):
    v = np.stack([x[0] * 2.0, np.sum(y), 3.0])
    return np.sum(v * v) + np.sum(np.stack((x[1], y[2]), axis=-1) * x[:2])


def hstack_vstack(x, y):
    return np.sum(np.hstack([x, y]) ** 2) + np.sum(np.vstack([x, y]) ** 3)


def copy_method(x):
    y = x.copy()
    y[0] = 2.0
    return np.sum(y * x)


def _copy_method_ref(x):
    y = x.at[0].set(2.0)
    return jnp.sum(y * x)


def np_copy_write(x):
    y = np.copy(x)
    y[1:] = y[1:] * 2.0
    return np.sum(y ** 2)


def _np_copy_write_ref(x):
    y = x.at[1:].set(x[1:] * 2.0)
    return jnp.sum(y ** 2)


def asarray_of_array(x):
    return np.sum(np.asarray(x) ** 2)


def astype_float(x):
    return np.sum(x.astype(float) * x)


def zeros_then_fill(X):
    Z = np.zeros((3, 4))
    Z[1] = X[0]
    Z[:, 2] = X[:, 1]
    return np.sum(Z * X)


def _zeros_then_fill_ref(X):
    Z = jnp.zeros((3, 4))
    Z = Z.at[1].set(X[0])
    Z = Z.at[:, 2].set(X[:, 1])
    return jnp.sum(Z * X)


def empty_then_fill(x):
    e = np.empty(4)
    e[:] = x ** 2
    return np.sum(e * x)


def _empty_then_fill_ref(x):
    return jnp.sum(x ** 2 * x)


# --- slice writes and augmented assignment ----------------------------------------------------


def write_tail_overlap(x):
    y = x.copy()
    y[1:] = y[:-1] * 0.5 + x[1:]
    return np.sum(y ** 2)


def _write_tail_overlap_ref(x):
    y = x.at[1:].set(x[:-1] * 0.5 + x[1:])
    return jnp.sum(y ** 2)


def write_column(X, v):
    Y = X.copy()
    Y[:, 1] = v * 2.0
    return np.sum(Y ** 2)


def _write_column_ref(X, v):
    return jnp.sum(X.at[:, 1].set(v * 2.0) ** 2)


def write_row(X):
    Y = X.copy()
    Y[0] = Y[2] - 1.0
    return np.sum(Y * X)


def _write_row_ref(X):
    return jnp.sum(X.at[0].set(X[2] - 1.0) * X)


def shift_overlap(x):
    y = x.copy()
    y[1:] = y[:-1]
    return np.sum(y * x)


def _shift_overlap_ref(x):
    return jnp.sum(x.at[1:].set(x[:-1]) * x)


def broadcast_write(X, b):
    Y = X.copy()
    Y[1:] = b
    return np.sum(Y * X)


def _broadcast_write_ref(X, b):
    return jnp.sum(X.at[1:].set(b) * X)


def scalar_write(X):
    Y = X.copy()
    Y[:, 0] = 0.0
    return np.sum(Y ** 2)


def _scalar_write_ref(X):
    return jnp.sum(X.at[:, 0].set(0.0) ** 2)


def augmented_arrays(x):
    y = x * 1.0
    y += 1.0
    y *= x
    y -= 0.5 * x
    y /= 2.0
    return np.sum(y ** 2)


def augmented_strided(x):
    y = x.copy()
    y[::2] *= 3.0
    y[1::2] -= x[::2]
    return np.sum(y ** 2)


def _augmented_strided_ref(x):
    y = x.at[::2].set(x[::2] * 3.0)
    y = y.at[1::2].set(y[1::2] - x[::2])
    return jnp.sum(y ** 2)


def heat_equation(u0, k):
    u = u0.copy()
    for _ in range(5):
        u[1:-1] += k * (u[:-2] - 2 * u[1:-1] + u[2:])
    return np.sum(u ** 2)


def _heat_equation_ref(u0, k):
    u = u0
    for _ in range(5):
        u = u.at[1:-1].set(u[1:-1] + k * (u[:-2] - 2 * u[1:-1] + u[2:]))
    return jnp.sum(u ** 2)


def heat_in_place(u, k):
    for _ in range(3):
        u[1:-1] += k * (u[:-2] - 2 * u[1:-1] + u[2:])


def _heat_in_place_ref(u, k):
    for _ in range(3):
        u = u.at[1:-1].set(u[1:-1] + k * (u[:-2] - 2 * u[1:-1] + u[2:]))
    return (u,)


def tanh_into(x, out):
    out[:] = np.tanh(x)


def _tanh_into_ref(x, out):
    return (x, jnp.tanh(x))


def scale_rows_in_place(X, s):
    X[1:] *= s
    X[0] = X[0] - X[-1]


def _scale_rows_in_place_ref(X, s):
    X = X.at[1:].set(X[1:] * s)
    return (X.at[0].set(X[0] - X[-1]),)


def write_argument_then_sum(x):
    x[1:] = x[1:] - x[:-1]
    return np.sum(x ** 2)


def _write_argument_then_sum_ref(x):
    return jnp.sum(x.at[1:].set(x[1:] - x[:-1]) ** 2)


def laplacian_2d(U):
    L = U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:] - 4 * U[1:-1, 1:-1]
    return np.sum(L ** 2)


def laplacian_2d_write(U):
    L = np.zeros_like(U)
    L[1:-1, 1:-1] = U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:] - 4 * U[1:-1, 1:-1]
    return np.sum(L ** 2 * (1.0 + U))


def _laplacian_2d_write_ref(U):
    L = jnp.zeros_like(U).at[1:-1, 1:-1].set(
        U[:-2, 1:-1] + U[2:, 1:-1] + U[1:-1, :-2] + U[1:-1, 2:] - 4 * U[1:-1, 1:-1])
    return jnp.sum(L ** 2 * (1.0 + U))


def wave_equation(u0, v0, c):
    u = u0.copy()
    v = v0.copy()
    for _ in range(4):
        v[1:-1] += c * (u[:-2] - 2 * u[1:-1] + u[2:])
        u += 0.1 * v
    return np.sum(u ** 2) + np.sum(v * u)


def _wave_equation_ref(u0, v0, c):
    u, v = u0, v0
    for _ in range(4):
        v = v.at[1:-1].set(v[1:-1] + c * (u[:-2] - 2 * u[1:-1] + u[2:]))
        u = u + 0.1 * v
    return jnp.sum(u ** 2) + jnp.sum(v * u)


# --- Python conveniences ----------------------------------------------------------------------


def tuple_unpack_views(x):
    a, b = x[:3], x[3:6]
    return np.sum(a * b)


def _moments(v):
    m = np.mean(v)
    return m, np.mean((v - m) ** 2)


def tuple_from_helper(x):
    m, v = _moments(x)
    return m * m + v


def swap_arrays(x, y):
    x, y = y, x * 2.0
    return np.sum(x * y ** 2)


def list_comprehension_sum(x):
    return sum([x[i] * x[i + 1] for i in range(4)])


def comprehension_to_array(x):
    v = np.array([x[i] ** 2 for i in range(3)])
    return np.sum(v * x[:3])


def comprehension_to_stack(X):
    return np.sum(np.stack([X[i] * (i + 1) for i in range(3)]) ** 2)


def generator_sum(X):
    return sum(np.sum(row ** 2) for row in X)


def builtin_sum_of_array(x):
    return sum(x * x)


def enumerate_rows(X):
    s = 0.0
    for i, row in enumerate(X):
        s += (i + 1) * np.sum(row ** 2)
    return s


def zip_elements(x, y):
    s = 0.0
    for a, b in zip(x, y):  # noqa: B905 (written as users write it)
        s += a * b ** 2
    return s


def zip_rows(X, Y):
    s = 0.0
    for r, q in zip(X, Y):  # noqa: B905
        s += np.dot(r, q) ** 2
    return s


def lambda_square(x):
    sq = lambda v: v * v  # noqa: E731
    return np.sum(sq(x) + sq(x[::-1]))


def closure_over_local(x, a):
    def act(v):
        return np.tanh(a * v)

    return np.sum(act(x) * act(x[::-1]))


def default_argument(x, alpha=0.1):
    return np.sum(np.where(x > 0, x, alpha * x) ** 2)


def _huber_elementwise(r, delta=1.0):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta))


def keyword_call(x):
    return np.sum(_huber_elementwise(x, delta=0.5)) + np.sum(_huber_elementwise(x))


def keyword_numpy(X):
    return np.sum(np.sum(X, keepdims=True, axis=0) * np.mean(X, axis=1, keepdims=True))


# --- models and numerics ----------------------------------------------------------------------


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def softmax_cross_entropy(logits, y):
    z = logits - np.max(logits, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(y * logp, axis=1))


def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def least_squares(x, A, b):
    r = A @ x - b
    return 0.5 * (r @ r)


def gmm_log_likelihood(X, mu, log_sigma, logits):
    d = X.shape[1]
    logw = logits - np.log(np.sum(np.exp(logits)))
    diff = (X[:, None, :] - mu[None, :, :]) / np.exp(log_sigma)[None, :, :]
    logp = -0.5 * np.sum(diff ** 2, axis=2) - np.sum(log_sigma, axis=1) \
        - 0.5 * d * np.log(2 * np.pi) + logw
    m = np.max(logp, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(logp - m), axis=1)))


def logistic_regression(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z)))


def ridge_regression(w, X, y, lam):
    r = X @ w - y
    return np.sum(r ** 2) + lam * np.sum(w ** 2)


def huber_loss(r, delta):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def pairwise_sqdist_broadcast(X, Y):
    D = np.sum((X[:, None, :] - Y[None, :, :]) ** 2, axis=-1)
    return np.sum(np.exp(-D))


def pairwise_sqdist_matmul(X):
    sq = np.sum(X ** 2, axis=1)
    D = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    return np.sum(np.exp(-D))


def cosine_similarity(x, y):
    return np.dot(x, y) / (np.linalg.norm(x) * np.linalg.norm(y))


def cosine_similarity_rows(X, Y):
    Xn = X / np.linalg.norm(X, axis=1, keepdims=True)
    Yn = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    return np.sum((Xn @ Yn.T) ** 2)


def attention(Q, K, V):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    S = S - np.max(S, axis=1, keepdims=True)
    P = np.exp(S)
    P = P / np.sum(P, axis=1, keepdims=True)
    return np.sum(P @ V)


def layer_norm(X, gamma, beta):
    mu = X.mean(axis=-1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=-1, keepdims=True)
    Y = (X - mu) / np.sqrt(var + 1e-5) * gamma + beta
    return np.sum(Y ** 3)


def rnn_loop(W, U, xs, h0):
    h = h0
    for x in xs:
        h = np.tanh(W @ h + U @ x)
    return np.sum(h ** 2)


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def lstm_loop(Wx, Wh, b, xs, h0, c0):
    H = h0.shape[0]
    h = h0
    c = c0
    for x in xs:
        g = Wx @ x + Wh @ h + b
        i = _sigmoid(g[:H])
        f = _sigmoid(g[H:2 * H])
        o = _sigmoid(g[2 * H:3 * H])
        u = np.tanh(g[3 * H:])
        c = f * c + i * u
        h = o * np.tanh(c)
    return np.sum(h) + np.sum(c ** 2)


def rnn_indexed(W, U, xs, h0):
    h = np.tanh(W @ h0 + U @ xs[0])
    for t in range(1, xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h ** 2)


def lstm_indexed(Wx, Wh, b, xs, h0, c0):
    H = h0.shape[0]
    g = Wx @ xs[0] + Wh @ h0 + b
    c = _sigmoid(g[H:2 * H]) * c0 + _sigmoid(g[:H]) * np.tanh(g[3 * H:])
    h = _sigmoid(g[2 * H:3 * H]) * np.tanh(c)
    for t in range(1, xs.shape[0]):
        g = Wx @ xs[t] + Wh @ h + b
        c = _sigmoid(g[H:2 * H]) * c + _sigmoid(g[:H]) * np.tanh(g[3 * H:])
        h = _sigmoid(g[2 * H:3 * H]) * np.tanh(c)
    return np.sum(h) + np.sum(c ** 2)


def _vector_field(y):
    return -0.5 * y + np.sin(y[::-1])


def rk4_step(y, dt):
    k1 = _vector_field(y)
    k2 = _vector_field(y + 0.5 * dt * k1)
    k3 = _vector_field(y + 0.5 * dt * k2)
    k4 = _vector_field(y + dt * k3)
    y1 = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y1 ** 2)


def horner_polyval(c, x):
    y = np.zeros_like(x)
    for ci in c:
        y = y * x + ci
    return np.sum(y ** 2)


def horner_no_constructor(c, x):
    y = 0.0 * x + c[0]
    for k in range(1, c.shape[0]):
        y = y * x + c[k]
    return np.sum(np.sin(y))


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def softplus_sum(x):
    return np.sum(np.log1p(np.exp(x)))


def gelu_tanh(x):
    return np.sum(0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3))))


def hinge_loss(w, X, y):
    return np.sum(np.maximum(0.0, 1.0 - y * (X @ w))) + 0.01 * np.dot(w, w)


def entropy_of_softmax(x):
    e = np.exp(x - np.max(x))
    p = e / np.sum(e)
    return -np.sum(p * np.log(p))


def kl_divergence(p_logits, q_logits):
    p = np.exp(p_logits) / np.sum(np.exp(p_logits))
    q = np.exp(q_logits) / np.sum(np.exp(q_logits))
    return np.sum(p * (np.log(p) - np.log(q)))


def gaussian_nll(mu, log_sigma, x):
    return np.sum(0.5 * ((x - mu) / np.exp(log_sigma)) ** 2 + log_sigma)


def elastic_net(w, X, y):
    r = X @ w - y
    return np.mean(r ** 2) + 0.1 * np.sum(np.abs(w)) + 0.05 * np.sum(w * w)


def conv1d_valid(w, x):
    y = w[0] * x[:-2] + w[1] * x[1:-1] + w[2] * x[2:]
    return np.sum(np.tanh(y))


def moving_average(x):
    c = np.cumsum(x)
    m = (c[3:] - c[:-3]) / 3.0
    return np.sum(m ** 2)


def spring_chain(P, k):
    lengths = np.sqrt(np.sum((P[1:] - P[:-1]) ** 2, axis=1))
    return np.sum(k * (lengths - 1.0) ** 2)


def leapfrog(q0, p0, dt):
    q = q0
    p = p0
    for _ in range(4):
        p = p - 0.5 * dt * np.sin(q)
        q = q + dt * p
        p = p - 0.5 * dt * np.sin(q)
    return np.sum(q ** 2) + np.sum(p ** 2)


def power_iteration(A, v):
    S = A @ A.T
    for _ in range(3):
        v = S @ v
        v = v / np.linalg.norm(v)
    return v @ S @ v


def gram_trace(X):
    return np.trace(X.T @ X) + np.trace(X @ X.T) ** 0.5


def lennard_jones(P):
    D = np.sum((P[:, None, :] - P[None, :, :]) ** 2, axis=2) + np.eye(P.shape[0])
    inv6 = (1.0 / D) ** 3
    return 0.5 * np.sum((inv6 ** 2 - inv6) * (1.0 - np.eye(P.shape[0])))


def batch_norm(X, gamma, beta):
    mu = np.mean(X, axis=0)
    var = np.var(X, axis=0)
    Y = gamma * (X - mu) / np.sqrt(var + 1e-5) + beta
    return np.sum(np.tanh(Y))


def weighted_mse(pred, target, w):
    return np.sum(w * (pred - target) ** 2) / np.sum(w)


def sinkhorn_steps(C, a, b):
    K = np.exp(-C / 0.5)
    u = np.ones_like(a)
    for _ in range(3):
        v = b / (K.T @ u)
        u = a / (K @ v)
    P = u[:, None] * K * v[None, :]
    return np.sum(P * C)


def polynomial_features(x, w):
    return np.sum((w[0] + w[1] * x + w[2] * x ** 2 + w[3] * x ** 3 - np.sin(x)) ** 2)


def total_variation(U):
    return np.sum(np.sqrt((U[1:, :-1] - U[:-1, :-1]) ** 2 + (U[:-1, 1:] - U[:-1, :-1]) ** 2 + 1e-3))


def discounted_return(r, gamma):
    g = 0.0
    for t in range(r.shape[0] - 1, -1, -1):
        g = r[t] + gamma * g
    return g * np.mean(r)


def gradient_descent_unrolled(w0, X, y):
    w = w0
    for _ in range(3):
        g = X.T @ (X @ w - y)
        w = w - 0.05 * g
    return np.sum((X @ w - y) ** 2)


# --- aliasing, overlap and less common forms --------------------------------------------------


def running_sum_overlap(x):
    y = x.copy()
    y[1:] += y[:-1]
    return np.sum(y ** 2)


def _running_sum_overlap_ref(x):
    return jnp.sum(x.at[1:].set(x[1:] + x[:-1]) ** 2)


def reverse_in_place(x):
    y = x.copy()
    y[:] = y[::-1]
    return np.sum(y * x)


def _reverse_in_place_ref(x):
    return jnp.sum(x[::-1] * x)


def write_through_view(x):
    y = x * 1.0
    v = y[1:]
    v *= 2.0
    return np.sum(y ** 2)


def _write_through_view_ref(x):
    return jnp.sum(x.at[1:].set(x[1:] * 2.0) ** 2)


def write_argument_view(x):
    v = x[::2]
    v += 1.0
    return np.sum(x ** 2)


def _write_argument_view_ref(x):
    return jnp.sum(x.at[::2].set(x[::2] + 1.0) ** 2)


def strided_block_write(X):
    Y = X.copy()
    Y[:, ::2] = np.sin(X[:, 1::2])
    return np.sum(Y * X)


def _strided_block_write_ref(X):
    return jnp.sum(X.at[:, ::2].set(jnp.sin(X[:, 1::2])) * X)


def transposed_write(X):
    Y = X.copy()
    Y.T[1] = X[:, 0] ** 2
    return np.sum(Y ** 2)


def _transposed_write_ref(X):
    return jnp.sum(X.at[:, 1].set(X[:, 0] ** 2) ** 2)


def rows_in_loop(X):
    Y = X.copy()
    for i in range(1, Y.shape[0]):
        Y[i] = Y[i] + 0.5 * Y[i - 1]
    return np.sum(Y ** 2)


def _rows_in_loop_ref(X):
    Y = X
    for i in range(1, Y.shape[0]):
        Y = Y.at[i].set(Y[i] + 0.5 * Y[i - 1])
    return jnp.sum(Y ** 2)


def reused_temporary(x):
    e = np.exp(x)
    return np.sum(e) + np.sum(e * x) + np.sum(e[::-1] * e)


def conditional_array(x, flag):
    if flag > 0:
        y = x * 2.0
    else:
        y = -x
    return np.sum(y ** 3)


def array_while_loop(v):
    while np.linalg.norm(v) > 0.5:
        v = v * 0.7
    return np.sum(v ** 2)


def mask_index_sum(x):
    return np.sum(x[x > 0] ** 2)


def fancy_index_sum(x, idx):
    return np.sum(x[idx] * x[idx[::-1]])


def integer_array_argument(x, k):
    return np.sum(x * k) + np.sum(k * k) * x[0]


def integer_floordiv_mod(x):
    k = np.arange(-3, 3)
    return np.sum(x * (k // 2) + x ** 2 * (k % 4))


def ellipsis_index(X):
    return np.sum(X[..., 1] * X[..., None][:, 0, 0])


def reversed_both_axes(X):
    return np.sum(X[::-1, ::-1] * X)


def mixed_slice_int(X):
    return np.sum(X[1:3, 2] * X[0, 1:3])


def method_chain(x):
    return np.exp(x).sum() + (x ** 2).mean() + x.max() * x.min()


def float32_reductions(X):
    m = X.mean(axis=0)
    return np.sum(np.sqrt(X.var(axis=1) + 1.0)) + np.sum(m * m) + np.max(X)


def float32_promotion(x, y):
    return np.sum(x * 3 + x * 0.5 + np.float32(2.0) * x) + np.sum(x * y)


def broadcast_column_row(a, b):
    return np.sum(np.exp(-(a - b) ** 2))


def batched_times_matrix(T, M):
    return np.sum(np.tanh(T @ M))


def strided_dot(x, y):
    return np.dot(x[::2], y[1::2]) + np.dot(x[::-1], y)


def norm_keepdims(X):
    return np.sum(X / np.linalg.norm(X, axis=0, keepdims=True))


def max_tuple_axis(T):
    return np.sum(np.max(T, axis=(0, 2))) + np.sum(T.sum(axis=(1, 2), keepdims=True) * T)


def early_return_array(x):
    if x[0] > 0:
        return np.sum(x * 2.0)
    y = x[1:] ** 2
    return np.sum(y)


def copy_of_transpose(X):
    Y = X.T.copy()
    Y[0] = 1.0
    return np.sum(Y @ X)


def _copy_of_transpose_ref(X):
    return jnp.sum(X.T.at[0].set(1.0) @ X)


def lazy_then_write(x):
    y = x * 2.0
    x[0] = 10.0
    return np.sum(y * x)


def _lazy_then_write_ref(x):
    return jnp.sum(x * 2.0 * x.at[0].set(10.0))


def view_sees_write(x):
    v = x[1:]
    x[1] = 10.0
    return np.sum(v * v)


def _view_sees_write_ref(x):
    v = x.at[1].set(10.0)[1:]
    return jnp.sum(v * v)


def alias_write(x):
    y = x
    y[0] = 3.0
    return np.sum(x * x)


def _alias_write_ref(x):
    y = x.at[0].set(3.0)
    return jnp.sum(y * y)


def center_in_place(X):
    Y = X.copy()
    Y -= Y.mean(axis=1, keepdims=True)
    return np.sum(Y ** 3)


def normalize_in_place(x):
    p = np.exp(x)
    p /= np.sum(p)
    return np.sum(p * x)


def store_centered(X):
    Y = X.copy()
    Y[:] = Y - Y.mean(axis=0)
    return np.sum(Y ** 3)


def _store_centered_ref(X):
    return jnp.sum((X - X.mean(axis=0)) ** 3)


def transpose_store(S):
    Y = S.copy()
    Y[:] = Y.T
    return np.sum(Y * S ** 2)


def _transpose_store_ref(S):
    return jnp.sum(S.T * S ** 2)


def normalize_argument(x):
    x /= np.linalg.norm(x)
    return np.sum(x * np.arange(4.0))


def _normalize_argument_ref(x):
    return jnp.sum(x / jnp.linalg.norm(x) * jnp.arange(4.0))


def center_columns_in_place(X):
    X -= X.mean(axis=0)


def _center_columns_in_place_ref(X):
    return (X - X.mean(axis=0),)


def cumsum_store(x):
    y = x.copy()
    y[1:] = np.cumsum(y[:-1])
    return np.sum(y * x)


def _cumsum_store_ref(x):
    return jnp.sum(x.at[1:].set(jnp.cumsum(x[:-1])) * x)


def matvec_store(X, v):
    Y = X.copy()
    Y[:, 0] = Y @ v
    return np.sum(Y * X)


def _matvec_store_ref(X, v):
    return jnp.sum(X.at[:, 0].set(X @ v) * X)


# --- functions returning arrays ---------------------------------------------------------------


def softmax_vector(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def tanh_layer(W, x, b):
    return np.tanh(W @ x + b)


def differences(x):
    return x[1:] - x[:-1]


def reversed_scaled(x):
    return x[::-1] * 2.0


def cumsum_array(x):
    return np.cumsum(x ** 2)


def normalized(x):
    return x / np.linalg.norm(x)


def matrix_product(A, B):
    return A @ B


def transposed_view(X):
    return X.T


def tail_view(x):
    return x[1:]


def outer_array(x, y):
    return np.outer(x, np.sin(y))


def column_means(X):
    return np.mean(X, axis=0)


def layer_norm_rows(X):
    mu = X.mean(axis=1, keepdims=True)
    return (X - mu) / np.sqrt(((X - mu) ** 2).mean(axis=1, keepdims=True) + 1e-5)


def rk4_array(y, dt):
    k1 = _vector_field(y)
    k2 = _vector_field(y + 0.5 * dt * k1)
    k3 = _vector_field(y + 0.5 * dt * k2)
    k4 = _vector_field(y + dt * k3)
    return y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)


def heat_steps_array(u0, k):
    u = u0.copy()
    for _ in range(3):
        u[1:-1] += k * (u[:-2] - 2 * u[1:-1] + u[2:])
    return u


def _heat_steps_array_ref(u0, k):
    u = u0
    for _ in range(3):
        u = u.at[1:-1].set(u[1:-1] + k * (u[:-2] - 2 * u[1:-1] + u[2:]))
    return u


def value_and_array(x):
    return np.sum(x ** 2), x * 2.0


def pairwise_distance_matrix(X):
    return np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1) + 1e-3)


def runtime_slice(x, a, b, s):
    return np.sum(x[a:b:s] ** 2) + x[a:b:s].shape[0]


def runtime_block(X, a, b):
    return np.sum(X[a:, :b] ** 2) + np.sum(X[::-1, b::-1] * X[0, 0])


def float32_softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def float32_affine(W, x):
    return W @ x * 0.5 + 1.0


# --- the cases --------------------------------------------------------------------------------

# reasons of the known gaps (features not built yet) and bugs, each a strict xfail
_X = mat(3, 4, 1)
_WIDE = mat(4, 6, 2)
_F = np.asfortranarray(mat(3, 4, 3))
_V8 = vec(8, 4)
_T = ten((2, 3, 4), 5)
_POS = vec(6, 6, 0.2, 1.5)


# --- np.linalg (the stand-ins of `frontend/numpy_prelude_linalg.py`) ---------------------------


def gp_neg_log_likelihood(X, y):
    """A Gaussian process's negative log marginal likelihood with an RBF kernel."""
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * d2) + 0.1 * np.eye(X.shape[0])
    chol = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(chol)))


def ridge_weights(X, y):
    """Ridge regression's weights: an array of the solve."""
    return np.linalg.solve(X.T @ X + 0.5 * np.eye(X.shape[1]), X.T @ y)


def gaussian_logpdf_full_cov(L, x):
    """A Gaussian's log density with a full covariance L L^T + I."""
    S = L @ L.T + np.eye(L.shape[0])
    sign, logdet = np.linalg.slogdet(S)
    r = x - 0.5
    return -0.5 * (r @ np.linalg.inv(S) @ r) - 0.5 * logdet * sign


def det_and_power(A, B):
    return np.linalg.det(A @ B.T + 2.0 * np.eye(3)) + np.sum(np.linalg.matrix_power(A @ B.T, 3))


CASES: list[Case] = [
    # views
    Case(diff_squares, (vec(6, 1),)),
    Case(reversed_product, (vec(5, 2),)),
    Case(strided_slices, (_V8,)),
    Case(negative_step_slice, (_V8,)),
    Case(row_index, (_X, 1)),
    Case(column_index, (_X, 2)),
    Case(sub_block, (_X,)),
    Case(none_axis_broadcast, (vec(3, 3), vec(4, 4)), argnums=(0, 1)),
    Case(newaxis_outer, (vec(4, 5),)),
    Case(dot_T_view, (_X,)),
    Case(np_transpose_slice, (_X,)),
    Case(diagonal_offsets, (_X,)),
    Case(diagonal_offsets, (_F,)),
    Case(swapaxes_3d, (_T,)),
    Case(reshape_rows, (_V8,)),
    Case(reshape_minus_one, (_X,)),
    Case(ravel_cos, (_X,)),
    Case(flatten_neighbours, (_X,)),
    Case(loop_over_rows, (_X,)),
    Case(view_of_view, (mat(4, 5, 6),)),
    Case(negative_row_index, (_X,)),
    Case(element_and_row, (_X,)),
    # non-contiguous arguments: a column, a reversed view, a strided block, a transpose,
    # Fortran order
    Case(diff_squares, (_WIDE[:, 1],)),
    Case(rosenbrock, (vec(6, 7)[::-1],)),
    Case(mean_center, (_WIDE[:, ::2],)),
    Case(matmul_squares, (_F, _WIDE.T[:4, :3]), argnums=(0, 1)),
    Case(layer_norm, (_WIDE.T, vec(4, 8), vec(4, 9)), argnums=(0, 1, 2)),
    Case(sum_axis0, (_F,)),
    Case(tanh_layer_sum, (_F, _WIDE[::-1, 3], vec(3, 10)),
         argnums=(0, 1, 2)),
    Case(loop_over_rows, (_X.T,)),
    Case(heat_in_place, (vec(12, 12)[::2], 0.25), argnums=(0, 1), reference=_heat_in_place_ref),
    Case(heat_equation, (vec(8, 11)[::2], 0.2), argnums=(0, 1), reference=_heat_equation_ref),
    # element-wise
    Case(add_row_vector, (_X, vec(4, 12)), argnums=(0, 1)),
    Case(subtract_column, (_X, vec(3, 13)), argnums=(0, 1)),
    Case(multiply_3d, (_T, vec(4, 14)), argnums=(0, 1)),
    Case(divide_broadcast, (_X, mat(3, 1, 15, 0.1, 1.0)), argnums=(0, 1)),
    Case(integer_powers, (vec(5, 16),)),
    Case(float_power, (vec(5, 17),)),
    Case(array_power, (vec(4, 18, 0.1, 1.0), vec(4, 19, 0.5, 2.0)), argnums=(0, 1)),
    Case(floordiv_mod, (np.array([0.13, 0.41, -0.22, 0.77, -0.53]),)),
    Case(unary_minus, (vec(5, 20),)),
    Case(scalar_on_left, (vec(5, 21),)),
    Case(leaky_relu, (np.array([-0.7, -0.2, 0.3, 0.9, -1.1]),)),
    Case(masks_and_or, (np.array([0.4, -0.8, 0.2, -0.3, 0.9]),
                        np.array([0.1, 0.7, 0.8, -0.4, 0.2])), argnums=(0, 1)),
    Case(mask_not, (np.array([0.5, -0.3, 0.1, 0.9, -0.6]),)),
    Case(mask_times_array, (np.array([0.5, -0.3, 0.1, 0.9, -0.6]),)),
    Case(all_comparisons, (np.array([0.5, -0.3, 0.1, 0.9]), np.array([0.2, 0.4, -0.6, 1.2])),
         argnums=(0, 1)),
    Case(exp_log_sin_cos, (vec(5, 22),)),
    Case(tanh_sqrt_abs, (np.array([0.5, -0.3, 0.1, 0.9, -0.6]),)),
    Case(maximum_minimum, (np.array([0.5, -0.3, 0.1, 0.9]), np.array([0.2, 0.4, -0.6, 1.3])),
         argnums=(0, 1)),
    Case(clip_function, (np.array([0.3, -0.7, 0.1, 0.9, -0.2]),)),
    Case(clip_method, (np.array([0.3, -0.7, 0.1, 0.9, -0.2]),)),
    Case(sign_square, (np.array([0.5, -0.3, 0.1, 0.9, -0.6]),)),
    Case(log1p_expm1, (vec(5, 23),)),
    Case(relu_squared, (np.array([0.5, -0.3, 0.1, 0.9, -0.6]),)),
    Case(more_ufuncs, (vec(5, 24),)),
    Case(scalar_and_array, (0.7, vec(4, 25)), argnums=(0, 1)),
    Case(broadcast_3d_2d, (_T, mat(3, 4, 26)), argnums=(0, 1)),
    Case(float32_exp, (vec(5, 27).astype(np.float32),), rtol=1e-4, value_rtol=1e-5),
    Case(float32_layer, (mat(3, 4, 28).astype(np.float32), vec(4, 29).astype(np.float32)),
         argnums=(0, 1), rtol=1e-4, value_rtol=1e-5),
    Case(float32_with_float64, (vec(4, 30).astype(np.float32), vec(4, 31)), argnums=(0, 1),
         rtol=1e-5, value_rtol=1e-6),
    # reductions
    Case(sum_axis0, (_X,)),
    Case(sum_keepdims, (_X,)),
    Case(mean_center, (_X,)),
    Case(mean_all, (vec(5, 32),)),
    Case(product, (vec(5, 33),)),
    Case(product_axis, (_X,)),
    Case(max_all, (vec(5, 34),)),
    Case(min_axis, (_X,)),
    Case(max_keepdims, (_X,)),
    Case(argmax_pick, (vec(5, 35), vec(5, 36)), argnums=(0, 1)),
    Case(argmin_method, (vec(5, 37),)),
    Case(cumsum_squares, (vec(5, 38),)),
    Case(cumsum_axis, (_X,)),
    Case(variance, (vec(6, 39),)),
    Case(std_axis, (_X,)),
    Case(vector_norm, (vec(5, 40),)),
    Case(norm_ord_1_inf, (vec(5, 41),)),
    Case(frobenius, (_X,)),
    Case(row_norms, (_X,)),
    Case(sum_tuple_axis, (_T,)),
    Case(sum_methods, (_X,)),
    Case(max_min_methods, (_X,)),
    Case(mean_tuple_axis, (_T,)),
    Case(standardize_columns, (mat(5, 3, 42),)),
    # matrix products
    Case(tanh_layer_sum, (_X, vec(4, 43), vec(3, 44)), argnums=(0, 1, 2)),
    Case(matmul_squares, (_X, mat(4, 2, 45)), argnums=(0, 1)),
    Case(dot_vectors, (vec(5, 46), vec(5, 47)), argnums=(0, 1)),
    Case(dot_matrix_vector, (_X, vec(4, 48)), argnums=(0, 1)),
    Case(matmul_function, (_X, mat(2, 4, 49)), argnums=(0, 1)),
    Case(vector_matrix, (vec(3, 50), _X), argnums=(0, 1)),
    Case(batched_matmul, (_T, ten((2, 4, 2), 51)), argnums=(0, 1)),
    Case(outer_product, (vec(3, 52), vec(4, 53)), argnums=(0, 1)),
    Case(inner_product, (vec(4, 54), vec(4, 55)), argnums=(0, 1)),
    Case(trace_gram, (_X,)),
    Case(einsum_matvec, (_X, vec(4, 56)), argnums=(0, 1)),
    Case(einsum_matmul, (_X, mat(4, 2, 57)), argnums=(0, 1)),
    Case(einsum_trace, (mat(3, 3, 58),)),
    Case(einsum_dot, (vec(4, 59), vec(4, 60)), argnums=(0, 1)),
    Case(einsum_outer, (vec(3, 61), vec(4, 62)), argnums=(0, 1)),
    Case(quadratic_form, (vec(3, 63), mat(3, 3, 64)), argnums=(0, 1)),
    Case(dot_method, (vec(4, 65), vec(4, 66)), argnums=(0, 1)),
    Case(matmul_chain, (_X, mat(4, 2, 67), vec(2, 68)), argnums=(0, 1, 2)),
    # constructors
    Case(zeros_accumulate, (vec(5, 69),)),
    Case(ones_zeros_like, (vec(4, 70),)),
    Case(full_shape_tuple, (_X,)),
    Case(full_like_minus, (vec(4, 71),)),
    Case(arange_weights, (vec(4, 72),)),
    Case(linspace_weights, (vec(4, 73),)),
    Case(eye_regularized, (_X,)),
    Case(array_literal, (0.6, -1.3), argnums=(0, 1)),
    Case(concatenate_pair, (vec(3, 74), vec(4, 75)), argnums=(0, 1)),
    Case(stack_pair, (vec(4, 76), vec(4, 77)), argnums=(0, 1)),
    Case(stack_axis1, (vec(4, 78), vec(4, 79)), argnums=(0, 1)),
    Case(stack_numbers, (vec(4, 78), vec(4, 79)), argnums=(0, 1)),
    Case(hstack_vstack, (vec(4, 80), vec(4, 81)), argnums=(0, 1)),
    Case(copy_method, (vec(4, 82),), reference=_copy_method_ref),
    Case(np_copy_write, (vec(4, 83),), reference=_np_copy_write_ref),
    Case(asarray_of_array, (vec(4, 84),)),
    Case(astype_float, (vec(4, 85),)),
    Case(zeros_then_fill, (_X,), reference=_zeros_then_fill_ref),
    Case(empty_then_fill, (vec(4, 86),), reference=_empty_then_fill_ref),
    # slice writes
    Case(write_tail_overlap, (vec(5, 87),), reference=_write_tail_overlap_ref),
    Case(write_column, (_X, vec(3, 88)), argnums=(0, 1), reference=_write_column_ref),
    Case(write_row, (_X,), reference=_write_row_ref),
    Case(shift_overlap, (vec(5, 89),), reference=_shift_overlap_ref),
    Case(broadcast_write, (_X, vec(4, 90)), argnums=(0, 1), reference=_broadcast_write_ref),
    Case(scalar_write, (_X,), reference=_scalar_write_ref),
    Case(augmented_arrays, (vec(5, 91),)),
    Case(augmented_strided, (vec(6, 92),), reference=_augmented_strided_ref),
    Case(heat_equation, (vec(7, 93), 0.2), argnums=(0, 1), reference=_heat_equation_ref),
    Case(heat_in_place, (vec(6, 94), 0.25), argnums=(0, 1), reference=_heat_in_place_ref),
    Case(tanh_into, (vec(4, 95), np.zeros(4)), argnums=(0, 1), reference=_tanh_into_ref),
    Case(scale_rows_in_place, (mat(3, 4, 96), 1.5), argnums=(0, 1),
         reference=_scale_rows_in_place_ref),
    Case(write_argument_then_sum, (vec(5, 97),), reference=_write_argument_then_sum_ref),
    Case(laplacian_2d, (mat(4, 5, 98),)),
    Case(laplacian_2d_write, (mat(4, 5, 99),), reference=_laplacian_2d_write_ref),
    Case(wave_equation, (vec(6, 100), vec(6, 101), 0.3), argnums=(0, 1, 2),
         reference=_wave_equation_ref),
    # Python conveniences
    Case(tuple_unpack_views, (vec(6, 102),)),
    Case(tuple_from_helper, (vec(5, 103),)),
    Case(swap_arrays, (vec(4, 104), vec(4, 105)), argnums=(0, 1)),
    Case(list_comprehension_sum, (vec(5, 106),)),
    Case(comprehension_to_array, (vec(4, 107),)),
    Case(comprehension_to_stack, (_X,)),
    Case(generator_sum, (_X,)),
    Case(builtin_sum_of_array, (vec(5, 108),)),
    Case(enumerate_rows, (_X,)),
    Case(zip_elements, (vec(4, 109), vec(4, 110)), argnums=(0, 1)),
    Case(zip_rows, (_X, mat(3, 4, 111)), argnums=(0, 1)),
    Case(lambda_square, (vec(4, 112),)),
    Case(closure_over_local, (vec(4, 113), 0.8), argnums=(0, 1)),
    Case(default_argument, (np.array([0.5, -0.3, 0.1, 0.9, -0.6]),)),
    Case(keyword_call, (np.array([0.3, -0.8, 0.1, 1.4, -0.6]),)),
    Case(keyword_numpy, (_X,)),
    # models and numerics
    Case(rosenbrock, (vec(6, 114),)),
    Case(softmax_cross_entropy, (mat(4, 3, 115), onehot([0, 2, 1, 2], 3))),
    Case(mlp_loss, (mat(4, 5, 116), vec(5, 117), mat(5, 2, 118), vec(2, 119), mat(3, 4, 120),
                    mat(3, 2, 121)), argnums=(0, 1, 2, 3)),
    Case(least_squares, (vec(4, 122), mat(5, 4, 123), vec(5, 124)), argnums=(0, 1, 2)),
    Case(gmm_log_likelihood, (mat(5, 2, 125), mat(3, 2, 126), mat(3, 2, 127, -0.3, 0.3),
                              vec(3, 128)), argnums=(0, 1, 2, 3)),
    Case(logistic_regression, (vec(3, 129), mat(5, 3, 130), np.array([1.0, -1, 1, 1, -1])),
         argnums=(0, 1)),
    Case(ridge_regression, (vec(3, 131), mat(5, 3, 132), vec(5, 133), 0.3), argnums=(0, 1, 3)),
    Case(huber_loss, (np.array([0.3, -1.7, 0.1, 2.4, -0.6]), 1.0), argnums=(0, 1)),
    Case(pairwise_sqdist_broadcast, (mat(3, 2, 134), mat(4, 2, 135)), argnums=(0, 1)),
    Case(pairwise_sqdist_matmul, (mat(4, 3, 136),)),
    Case(cosine_similarity, (vec(4, 137), vec(4, 138)), argnums=(0, 1)),
    Case(cosine_similarity_rows, (_X, mat(2, 4, 139)), argnums=(0, 1)),
    Case(attention, (mat(3, 4, 140), mat(5, 4, 141), mat(5, 2, 142)), argnums=(0, 1, 2)),
    Case(layer_norm, (_X, vec(4, 143), vec(4, 144)), argnums=(0, 1, 2)),
    Case(rnn_loop, (mat(3, 3, 145), mat(3, 2, 146), mat(4, 2, 147), vec(3, 148)),
         argnums=(0, 1, 2, 3)),
    Case(lstm_loop, (mat(8, 3, 149), mat(8, 2, 150), vec(8, 151), mat(3, 3, 152), vec(2, 153),
                     vec(2, 154)), argnums=(0, 1, 2, 3, 4, 5)),
    Case(rnn_indexed, (mat(3, 3, 145), mat(3, 2, 146), mat(4, 2, 147), vec(3, 148)),
         argnums=(0, 1, 2, 3)),
    Case(lstm_indexed, (mat(8, 3, 149), mat(8, 2, 150), vec(8, 151), mat(3, 3, 152),
                        vec(2, 153), vec(2, 154)), argnums=(0, 1, 2, 3, 4, 5)),
    Case(rk4_step, (vec(4, 155), 0.1), argnums=(0, 1)),
    Case(horner_polyval, (vec(4, 156), vec(5, 157)), argnums=(0, 1)),
    Case(horner_no_constructor, (vec(4, 158), vec(5, 159)), argnums=(0, 1)),
    Case(logsumexp, (vec(5, 160),)),
    Case(softplus_sum, (vec(5, 161),)),
    Case(gelu_tanh, (vec(5, 162),)),
    Case(hinge_loss, (vec(3, 163), mat(5, 3, 164), np.array([1.0, -1, 1, 1, -1])),
         argnums=(0, 1)),
    Case(entropy_of_softmax, (vec(5, 165),)),
    Case(kl_divergence, (vec(4, 166), vec(4, 167)), argnums=(0, 1)),
    Case(gaussian_nll, (vec(4, 168), vec(4, 169, -0.3, 0.3), vec(4, 170)), argnums=(0, 1, 2)),
    Case(elastic_net, (np.array([0.3, -0.5, 0.8]), mat(5, 3, 171), vec(5, 172)),
         argnums=(0, 1, 2)),
    Case(conv1d_valid, (vec(3, 173), vec(7, 174)), argnums=(0, 1)),
    Case(moving_average, (vec(7, 175),)),
    Case(spring_chain, (mat(5, 2, 176), 2.0), argnums=(0, 1)),
    Case(leapfrog, (vec(4, 177), vec(4, 178), 0.1), argnums=(0, 1, 2)),
    Case(power_iteration, (_X, vec(3, 179, 0.5, 1.0)), argnums=(0, 1)),
    Case(gram_trace, (_X,)),
    Case(lennard_jones, (np.array([[0.0, 0.0], [1.1, 0.1], [0.2, 1.2], [1.3, 1.4]]),)),
    Case(batch_norm, (mat(5, 3, 180), vec(3, 181), vec(3, 182)), argnums=(0, 1, 2)),
    Case(weighted_mse, (vec(5, 183), vec(5, 184), vec(5, 185, 0.5, 1.5)), argnums=(0, 1, 2)),
    Case(sinkhorn_steps, (mat(3, 4, 186, 0.0, 1.0), np.full(3, 1 / 3), np.full(4, 0.25)),
         argnums=(0, 1, 2)),
    Case(polynomial_features, (vec(6, 187), vec(4, 188)), argnums=(0, 1)),
    Case(total_variation, (mat(4, 5, 189),)),
    Case(discounted_return, (vec(5, 190), 0.9), argnums=(0, 1)),
    Case(gradient_descent_unrolled, (vec(3, 191), mat(5, 3, 192), vec(5, 193)),
         argnums=(0, 1, 2)),
    # aliasing, overlap and less common forms
    Case(running_sum_overlap, (vec(5, 210),), reference=_running_sum_overlap_ref),
    Case(reverse_in_place, (vec(5, 211),), reference=_reverse_in_place_ref),
    Case(write_through_view, (vec(5, 212),), reference=_write_through_view_ref),
    Case(write_argument_view, (vec(6, 213),), reference=_write_argument_view_ref),
    Case(strided_block_write, (_X,), reference=_strided_block_write_ref),
    Case(transposed_write, (_X,), reference=_transposed_write_ref),
    Case(rows_in_loop, (_X,), reference=_rows_in_loop_ref),
    Case(reused_temporary, (vec(5, 214),)),
    Case(conditional_array, (vec(4, 215), 1), argnums=0),
    Case(conditional_array, (vec(4, 216), -1), argnums=0),
    Case(array_while_loop, (vec(4, 217, 0.5, 1.0),)),
    Case(mask_index_sum, (np.array([0.5, -0.3, 0.1, 0.9, -0.6]),)),
    Case(fancy_index_sum, (vec(5, 218), np.array([0, 3, 3, 1]))),
    Case(integer_array_argument, (vec(4, 219), np.array([1, -2, 3, 0]))),
    Case(integer_floordiv_mod, (vec(6, 220),)),
    Case(ellipsis_index, (_X,)),
    Case(reversed_both_axes, (_X,)),
    Case(mixed_slice_int, (mat(4, 4, 221),)),
    Case(method_chain, (vec(5, 222),)),
    Case(float32_reductions, (mat(3, 4, 223).astype(np.float32),), rtol=1e-4, value_rtol=1e-5),
    Case(float32_promotion, (vec(4, 224).astype(np.float32), vec(4, 225).astype(np.float32)),
         argnums=(0, 1), rtol=1e-4, value_rtol=1e-5),
    Case(broadcast_column_row, (mat(3, 1, 226), mat(1, 4, 227)), argnums=(0, 1)),
    Case(batched_times_matrix, (_T, mat(4, 2, 228)), argnums=(0, 1)),
    Case(strided_dot, (vec(6, 229), vec(6, 230)), argnums=(0, 1)),
    Case(norm_keepdims, (_X,)),
    Case(max_tuple_axis, (_T,)),
    Case(early_return_array, (np.array([0.4, 0.2, -0.3]),)),
    Case(early_return_array, (np.array([-0.4, 0.2, -0.3]),)),
    Case(copy_of_transpose, (_X,), reference=_copy_of_transpose_ref),
    Case(lazy_then_write, (vec(4, 241),), reference=_lazy_then_write_ref),
    Case(view_sees_write, (vec(4, 242),), reference=_view_sees_write_ref),
    Case(alias_write, (vec(4, 243),), reference=_alias_write_ref),
    Case(center_in_place, (_X,)),
    Case(normalize_in_place, (vec(4, 244),)),
    Case(store_centered, (_X,), reference=_store_centered_ref),
    Case(transpose_store, (mat(3, 3, 245),), reference=_transpose_store_ref),
    Case(normalize_argument, (vec(4, 246),), reference=_normalize_argument_ref),
    Case(center_columns_in_place, (mat(3, 4, 247),), reference=_center_columns_in_place_ref),
    Case(cumsum_store, (vec(5, 248),), reference=_cumsum_store_ref),
    Case(matvec_store, (_X, vec(4, 249)), argnums=(0, 1), reference=_matvec_store_ref),
    # more non-contiguous arguments
    Case(attention, (mat(3, 4, 231), mat(4, 5, 232).T, np.asfortranarray(mat(5, 2, 233))),
         argnums=(0, 1, 2)),
    Case(softmax_cross_entropy, (np.asfortranarray(mat(4, 3, 234)), onehot([1, 0, 2, 2], 3))),
    Case(gmm_log_likelihood, (mat(5, 2, 125)[::-1], mat(6, 2, 126)[::2], mat(2, 3, 127).T * 0.3,
                              vec(6, 128)[1::2]), argnums=(0, 1, 2, 3)),
    Case(scale_rows_in_place, (np.asfortranarray(mat(3, 4, 235)), 0.5), argnums=(0, 1),
         reference=_scale_rows_in_place_ref),
    Case(swapaxes_3d, (np.transpose(ten((4, 3, 2), 236)),)),
    Case(float32_layer, (mat(4, 3, 237).astype(np.float32).T, vec(8, 238).astype(np.float32)[::2]),
         argnums=(0, 1), rtol=1e-4, value_rtol=1e-5),
    Case(differences, (_WIDE[:, 3],)),
    Case(transposed_view, (_F,)),
    Case(matrix_product, (_WIDE[:3, ::-1][:, :4], _F.T), argnums=(0, 1)),
    Case(write_column, (np.asfortranarray(mat(3, 4, 239)), vec(6, 240)[::-2]), argnums=(0, 1),
         reference=_write_column_ref),
    Case(cumsum_axis, (_WIDE[::-1, 1:5].T,)),
    # functions returning arrays (jit value, jvp, jacrev, jacfwd)
    Case(softmax_vector, (vec(4, 194),)),
    Case(tanh_layer, (_X, vec(4, 195), vec(3, 196)), argnums=(0, 1, 2)),
    Case(differences, (vec(5, 197),)),
    Case(reversed_scaled, (vec(4, 198),)),
    Case(cumsum_array, (vec(4, 199),)),
    Case(normalized, (vec(4, 200),)),
    Case(matrix_product, (_X, mat(4, 2, 201)), argnums=(0, 1)),
    Case(transposed_view, (_X,)),
    Case(tail_view, (vec(4, 202),)),
    Case(outer_array, (vec(3, 203), vec(2, 204)), argnums=(0, 1)),
    Case(column_means, (_X,)),
    Case(layer_norm_rows, (_X,)),
    Case(rk4_array, (vec(4, 205), 0.1), argnums=(0, 1)),
    Case(heat_steps_array, (vec(6, 206), 0.2), argnums=(0, 1), reference=_heat_steps_array_ref),
    Case(value_and_array, (vec(3, 207),)),
    Case(pairwise_distance_matrix, (mat(3, 2, 208),)),
    Case(softmax_vector, (_POS[::-2],)),
    Case(runtime_slice, (vec(6, 250), 1, 5, 2)),
    Case(runtime_slice, (vec(6, 251), 5, 0, -2)),
    Case(runtime_slice, (vec(6, 252), -1, -100, -1)),
    Case(runtime_slice, (vec(6, 253), 4, 2, 1)),
    Case(runtime_block, (_X, 1, 2)),
    Case(runtime_block, (_X, -1, -2)),
    Case(float32_softmax, (vec(4, 254).astype(np.float32),), rtol=1e-4, value_rtol=1e-5),
    Case(float32_affine, (mat(3, 4, 255).astype(np.float32), vec(4, 256).astype(np.float32)),
         argnums=(0, 1), rtol=1e-4, value_rtol=1e-5),
    Case(gp_neg_log_likelihood, (mat(5, 2, 257), vec(5, 258)), argnums=(0, 1)),
    Case(ridge_weights, (mat(6, 3, 259), vec(6, 260)), argnums=(0, 1)),
    Case(gaussian_logpdf_full_cov, (mat(3, 3, 261), vec(3, 262)), argnums=(0, 1)),
    Case(det_and_power, (mat(3, 4, 263), mat(3, 4, 264)), argnums=(0, 1)),
]
