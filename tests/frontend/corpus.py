"""A corpus of functions in the Python subset, written the way a numerics user writes them, each
with the arguments to check it at.

Every `Case` is checked by `test_corpus.py`: `enzyme_py.jit(f)` against plain Python, and
(when `argnums` is not None) `enzyme_py.grad(f, argnums)` against JAX running the same
function and against finite differences. Arguments stay away from kinks and branch
boundaries so that finite differences are meaningful.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from math import exp, sin, sqrt
from typing import Any

import numpy
import numpy as np

GRAVITY = 9.81
N_STEPS = 200
SCALE = 3


@dataclass
class Case:
    f: Any
    args: tuple
    argnums: int | tuple[int, ...] | None = 0  # None: value only (no gradient check)
    rtol: float = 1e-7  # against JAX
    value_rtol: float = 1e-12
    fd: bool = True
    xfail_value: str = ""  # a known bug: the jit check fails (strict xfail with this reason)
    xfail_grad: str = ""  # a known bug: the gradient check fails
    # Regression check for a fixed crash (vector tape slots promised 32-byte alignment on
    # 16-byte malloc memory): compiled 20 times over, in a subprocess that may crash alone.
    isolate: bool = False

    @property
    def id(self) -> str:
        return self.f.__name__


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def vec(n: int, seed: int = 0, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return _rng(seed).uniform(lo, hi, n)


def mat(n: int, m: int, seed: int = 0) -> np.ndarray:
    return _rng(seed).uniform(-1.0, 1.0, (n, m))


def spd(n: int, seed: int = 0) -> np.ndarray:
    a = mat(n, n, seed)
    return a @ a.T + n * np.eye(n)


# --- scalar arithmetic ------------------------------------------------------------------------


def poly(x):
    return 3.0 * x ** 3 - 2.0 * x ** 2 + x - 7.0


def rational(x, y):
    return (x * y + 1.0) / (x - y) - x / 2


def int_float_mix(x, n):
    k = n // 2
    r = n % 3
    return x * k + r - n / 4 + x ** n


def float_floordiv_mod(x, y):
    q = x // y
    r = x % y
    return q * x + r * r + (-x) % y


def negative_int_divmod(x, n):
    a = (-n) // 3
    b = (-n) % 3
    c = n // -4
    d = n % -4
    return x * (a + 2 * b) - c * d * x


def powers(x, y):
    return x ** 2.5 + x ** -2 + y ** 0.5 + x ** y + pow(x, 3) + math.pow(y, 1.5)


def unary_ops(x):
    y = -x
    z = +y
    return -(z * z) + -3.0 * -x


def chained_compare(x, y):
    s = 0.0
    if 0.0 < x < y <= 10.0:
        s = x * y
    else:
        s = x + y
    if not (x > y) and (x > 0.1 or y < 0.0):
        s = s * 2.0
    return s


def conditional_expr(x, y):
    a = x if x > y else y
    b = x * x if x < 0.0 else x + 1.0
    return a * b


def piecewise(x):
    if x < -1.0:
        return -x * 2.0
    elif x < 0.0:
        return x * x + 1.0
    elif x < 2.0:
        y = math.sin(x)
        return y * y + 1.0
    else:
        return math.log(x) + 3.0


def piecewise_assign(x):
    if x < -1.0:
        y = -x * 2.0
    elif x < 0.0:
        y = x * x + 1.0
    elif x < 2.0:
        y = math.sin(x)
        y = y * y + 1.0
    else:
        y = math.log(x) + 3.0
    return y


def math_zoo(x, y):
    s = math.sin(x) + math.cos(y) + math.tan(x / 4) + math.exp(x / 3)
    s += math.log(y) + math.log1p(x * x) + math.expm1(x / 5) + math.sqrt(y)
    s += math.tanh(x) + math.atan2(x, y) + math.hypot(x, y) + math.erf(x / 2)
    s += math.fabs(x - y) + math.floor(y * 3.0) + math.asin(x / 3) + math.atan(y)
    s += math.sinh(x / 2) + math.cosh(y / 3) + math.log(y, 2.0) + math.log10(y)
    s += math.log2(y) + math.ceil(x) + math.cbrt(y)
    return s


def numpy_scalar_math(x, y):
    return np.sin(x) * np.exp(-y) + np.sqrt(x * x + y * y) + np.tanh(x * y) + np.log(y) \
        + np.arctan2(y, x) + np.abs(x - y) + np.square(x) + np.power(y, 2.5) + np.floor(3.0 * x)


def from_imports(x):
    return sin(x) * exp(x) + sqrt(x)


def builtins_zoo(x, y):
    a = abs(x - y) + min(x, y) + max(x, y, 0.5) + pow(y, 2)
    n = int(y * 3.0)
    return a + float(n) * x + min(n, 2) * y


def globals_constants(v):
    h = v * v / (2.0 * GRAVITY)
    return h * SCALE + math.pi * v + math.e


# --- control flow ---------------------------------------------------------------------------


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-13 * a:
        x = 0.5 * (x + a / x)
    return x


def bisection_root(c):
    lo = 0.0
    hi = 2.0 + c
    while hi - lo > 1e-13:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - c > 0.0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi) + 0.0 * c


def exp_series(x):
    term = 1.0
    total = 1.0
    k = 1
    while abs(term) > 1e-17 * abs(total):
        term = term * x / k
        total += term
        k += 1
    return total


def range_forms(x):
    s = 0.0
    for i in range(5):
        s += x * i
    for i in range(2, 7):
        s += x / i
    for i in range(1, 10, 3):
        s += x ** 2 * i
    for i in range(10, 0, -2):
        s -= math.sin(x * i)
    for i in range(8, -1, -3):
        s += i * x * x * x
    return s


def break_continue(a):
    s = 0.0
    for i in range(len(a)):
        if a[i] < -0.5:
            continue
        if a[i] > 0.95:
            break
        s += a[i] * a[i]
    return s


def early_return_in_loop(a, tol):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i]
        if s > tol:
            return s * 2.0
    return s


def nested_loops_break(a):
    n, m = a.shape
    s = 0.0
    for i in range(n):
        for j in range(m):
            if j > i + 1:
                break
            s += a[i, j] * (i + 1)
    return s


def while_with_counter(x):
    k = 0
    y = x
    while k < 20 and y < 100.0:
        y = y * 1.5 + 0.1
        k += 1
    return y


# --- arrays -----------------------------------------------------------------------------------


def sum_squares(a):
    s = 0.0
    for i in range(len(a)):
        s += a[i] ** 2
    return s


def negative_indices(a):
    return a[-1] * a[0] + a[-2] * 2.0 + a[len(a) - 3]


def array_attributes(a, b):
    n, m = a.shape
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += a[i, j] * b[j] * (a.ndim + b.ndim)
    return s / a.size + len(b) + a.shape[1]


def prefix_sum_inplace(a):
    for i in range(1, len(a)):
        a[i] += a[i - 1]
    s = 0.0
    for i in range(len(a)):
        s += a[i] * a[i]
    return s


def stencil_two_buffers(u0, steps):
    n = len(u0)
    u = np.zeros(n)
    v = np.zeros_like(u0)
    for i in range(n):
        u[i] = u0[i]
    for _ in range(steps):
        for i in range(1, n - 1):
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        v[0] = u[0]
        v[n - 1] = u[n - 1]
        for i in range(n):
            u[i] = v[i]
    return u[n // 2] + 0.5 * u[1]


def local_buffers(a):
    n = a.shape[0]
    ones = np.ones(n)
    tmp = np.empty(n)
    acc = np.zeros((2, n))
    for i in range(n):
        tmp[i] = a[i] * ones[i] + 1.0
        acc[0, i] = tmp[i] * tmp[i]
        acc[1, i] = math.sin(tmp[i])
    return np.sum(acc) + acc[1, n - 1]


def size_and_ndim(a, m):
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            s += m[i, j] * a[j % len(a)]
    return s * a.ndim / m.size + m.ndim


def ones_and_empty(a):
    w = np.ones(len(a))
    out = np.empty(len(a))
    for i in range(len(a)):
        w[i] = w[i] + i
        out[i] = w[i] * a[i]
    s = 0.0
    for i in range(len(a)):
        s += out[i] * out[i]
    return s


def np_reductions(a, b):
    return np.sum(a) * np.dot(a, b) + np.sum(b)


def matvec_dot(A, x):
    y = np.dot(A, x)
    return np.dot(y, y)


def matmul_operator(A, B, x):
    C = A @ B
    y = C @ x
    s = 0.0
    for i in range(len(y)):
        s += y[i] * y[i]
    return s + C[0, 1]


def int_array_lookup(w, idx):
    s = 0.0
    for k in range(len(idx)):
        s += w[idx[k]] * (idx[k] % 2 + 1)
    return s


def float32_sum(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i] * np.float32(0.5) + math.sin(a[i])
    return s


def float32_local(a, x):
    b = np.zeros(a.shape[0], dtype=np.float32)
    for i in range(a.shape[0]):
        b[i] = a[i] * x
    s = 0.0
    for i in range(a.shape[0]):
        s += b[i] * b[i]
    return s


def mixed_int_float_arrays(x, counts):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * counts[i] + counts[i] // 2
    return s


# --- matrix code ------------------------------------------------------------------------------


def matvec_loops(A, x):
    n = A.shape[0]
    m = A.shape[1]
    y = np.zeros(n)
    for i in range(n):
        for j in range(m):
            y[i] += A[i, j] * x[j]
    s = 0.0
    for i in range(n):
        s += math.tanh(y[i])
    return s


def matmul_loops(A, B):
    n = A.shape[0]
    k = A.shape[1]
    m = B.shape[1]
    C = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            acc = 0.0
            for p in range(k):
                acc += A[i, p] * B[p, j]
            C[i, j] = acc
    s = 0.0
    for i in range(n):
        for j in range(m):
            s += C[i, j] * C[i, j] * (i + 1)
    return s


def gram_trace(X):
    n = X.shape[0]
    d = X.shape[-1]
    G = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for k in range(d):
                G[i, j] += X[i, k] * X[j, k]
    s = 0.0
    for i in range(n):
        s += G[i, i] + 0.1 * G[i, (i + 1) % n]
    return s


def cholesky_logdet(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for j in range(n):
        d = A[j, j]
        for k in range(j):
            d -= L[j, k] * L[j, k]
        L[j, j] = math.sqrt(d)
        for i in range(j + 1, n):
            s = A[i, j]
            for k in range(j):
                s -= L[i, k] * L[j, k]
            L[i, j] = s / L[j, j]
    out = 0.0
    for i in range(n):
        out += 2.0 * math.log(L[i, i])
    return out


def gauss_solve_sum(A, b):
    n = len(b)
    M = np.zeros((n, n))
    r = np.zeros(n)
    for i in range(n):
        r[i] = b[i]
        for j in range(n):
            M[i, j] = A[i, j]
    for k in range(n):
        for i in range(k + 1, n):
            f = M[i, k] / M[k, k]
            for j in range(k, n):
                M[i, j] -= f * M[k, j]
            r[i] -= f * r[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = r[i]
        for j in range(i + 1, n):
            s -= M[i, j] * x[j]
        x[i] = s / M[i, i]
    total = 0.0
    for i in range(n):
        total += x[i] * (i + 1)
    return total


def power_iteration(A, v0):
    n = len(v0)
    v = np.zeros(n)
    w = np.zeros(n)
    for i in range(n):
        v[i] = v0[i]
    lam = 0.0
    for _ in range(15):
        for i in range(n):
            acc = 0.0
            for j in range(n):
                acc += A[i, j] * v[j]
            w[i] = acc
        norm = math.sqrt(np.dot(w, w))
        lam = norm
        for i in range(n):
            v[i] = w[i] / norm
    return lam


# --- ODEs -------------------------------------------------------------------------------------


def euler_decay(k, y0):
    y = y0
    dt = 1.0 / N_STEPS
    for _ in range(N_STEPS):
        y = y - dt * k * y
    return y


def _pendulum_rhs(theta, omega, g):
    return omega, -g * math.sin(theta)


def rk4_pendulum(theta0, g):
    theta = theta0
    omega = 0.0
    h = 0.04
    for _ in range(50):
        k1t, k1w = _pendulum_rhs(theta, omega, g)
        k2t, k2w = _pendulum_rhs(theta + 0.5 * h * k1t, omega + 0.5 * h * k1w, g)
        k3t, k3w = _pendulum_rhs(theta + 0.5 * h * k2t, omega + 0.5 * h * k2w, g)
        k4t, k4w = _pendulum_rhs(theta + h * k3t, omega + h * k3w, g)
        theta += h / 6.0 * (k1t + 2.0 * k2t + 2.0 * k3t + k4t)
        omega += h / 6.0 * (k1w + 2.0 * k2w + 2.0 * k3w + k4w)
    return theta * theta + omega


def lotka_volterra_array(p, x0):
    x = np.zeros(2)
    x[0] = x0[0]
    x[1] = x0[1]
    dt = 0.03
    for _ in range(100):
        dx = p[0] * x[0] - p[1] * x[0] * x[1]
        dy = -p[2] * x[1] + p[3] * x[0] * x[1]
        x[0] += dt * dx
        x[1] += dt * dy
    return x[0] + 2.0 * x[1]


# --- machine learning -------------------------------------------------------------------------


def mlp_loss(W1, b1, W2, x, target):
    h = W1.shape[0]
    d = len(x)
    hidden = np.zeros(h)
    for i in range(h):
        acc = b1[i]
        for j in range(d):
            acc += W1[i, j] * x[j]
        hidden[i] = math.tanh(acc)
    out = 0.0
    for i in range(h):
        out += W2[i] * hidden[i]
    return (out - target) ** 2


def logsumexp(a):
    m = a[0]
    for i in range(1, len(a)):
        m = max(m, a[i])
    s = 0.0
    for i in range(len(a)):
        s += math.exp(a[i] - m)
    return m + math.log(s)


def softmax_cross_entropy(z, label):
    n = len(z)
    p = np.zeros(n)
    m = z[0]
    for i in range(n):
        if z[i] > m:
            m = z[i]
    total = 0.0
    for i in range(n):
        p[i] = np.exp(z[i] - m)
        total += p[i]
    for i in range(n):
        p[i] /= total
    return -math.log(p[label])


def least_squares(w, X, y):
    n = len(y)
    d = X.shape[1]
    loss = 0.0
    for i in range(n):
        pred = 0.0
        for j in range(d):
            pred += X[i, j] * w[j]
        r = pred - y[i]
        loss += r * r
    return loss / n


def ridge_with_dot(w, X, y, lam):
    r = X @ w
    loss = 0.0
    for i in range(len(y)):
        loss += (r[i] - y[i]) ** 2
    return 0.5 * loss + lam * np.dot(w, w)


def huber(a, delta):
    s = 0.0
    for i in range(len(a)):
        r = abs(a[i])
        s += 0.5 * r * r if r <= delta else delta * (r - 0.5 * delta)
    return s


def logistic_regression(w, X, labels):
    n = X.shape[0]
    d = X.shape[1]
    total = 0.0
    for i in range(n):
        z = 0.0
        for j in range(d):
            z += X[i, j] * w[j]
        total += math.log1p(math.exp(-z)) if labels[i] == 1 else math.log1p(math.exp(z))
    return total


# --- calls between functions ----------------------------------------------------------------


def _sq(x):
    return x * x


def _norm2(a):
    s = 0.0
    for i in range(len(a)):
        s += _sq(a[i])
    return s


def calls_helpers(a, x):
    return _norm2(a) * x + _sq(x)


def _minmax(a):
    lo = a[0]
    hi = a[0]
    for i in range(len(a)):
        lo = min(lo, a[i])
        hi = max(hi, a[i])
    return lo, hi


def uses_tuple_helper(a):
    lo, hi = _minmax(a)
    return hi - lo + hi * lo


def _scale_into(src, dst, c):
    for i in range(len(src)):
        dst[i] = c * src[i]


def calls_writer(a, c):
    out = np.zeros(len(a))
    _scale_into(a, out, c)
    s = 0.0
    for i in range(len(out)):
        s += out[i] * a[i]
    return s


def polar(r, t):
    return r * math.cos(t), r * math.sin(t)


def stats(a):
    n = len(a)
    mean = 0.0
    for i in range(n):
        mean += a[i]
    mean /= n
    var = 0.0
    for i in range(n):
        var += (a[i] - mean) ** 2
    return mean, var / n


def polar_sum(r, t):
    x, y = polar(r, t)
    return x * 2.0 + y * y


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def recursive_power(x, n):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def tree_sum(a, lo, hi):
    """A divide-and-conquer recursion over an array (two calls per level)."""
    if hi - lo == 1:
        return np.sin(a[lo]) * a[lo]
    mid = (lo + hi) // 2
    return tree_sum(a, lo, mid) * 0.9 + tree_sum(a, mid, hi)


def tree_sum_all(a):
    return tree_sum(a, 0, len(a))


# --- functions that write results into arrays ------------------------------------------------


def axpy_into(a, x, y, out):
    for i in range(len(x)):
        out[i] = a * x[i] + y[i]


def axpy_loss(a, x, y):
    out = np.zeros(len(x))
    axpy_into(a, x, y, out)
    s = 0.0
    for i in range(len(out)):
        s += out[i] * out[i]
    return s


def smooth_halves(a, lo, hi):
    """A recursion that updates its array in place, then combines the halves it wrote."""
    if hi - lo <= 2:
        for i in range(lo, hi):
            a[i] = np.sin(a[i]) * 1.5
        return
    mid = (lo + hi) // 2
    smooth_halves(a, lo, mid)
    smooth_halves(a, mid, hi)
    a[mid] = a[mid] * a[mid - 1]


def smooth_all(a):
    smooth_halves(a, 0, len(a))


def square_inplace(x):
    for i in range(len(x)):
        x[i] = x[i] * x[i]


def cumulative_product(a, out):
    p = 1.0
    for i in range(len(a)):
        p = p * a[i]
        out[i] = p


def heat_step_into(u, out, alpha):
    n = len(u)
    out[0] = u[0]
    out[n - 1] = u[n - 1]
    for i in range(1, n - 1):
        out[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])


# --- misc numerics ----------------------------------------------------------------------------


def trapezoid(a, b):
    n = 64
    h = (b - a) / n
    s = 0.5 * (math.exp(-a * a) + math.exp(-b * b))
    for i in range(1, n):
        x = a + i * h
        s += math.exp(-x * x)
    return s * h


def horner(c, x):
    acc = 0.0
    for i in range(len(c) - 1, -1, -1):
        acc = acc * x + c[i]
    return acc


def spring_chain_energy(x, k):
    e = 0.0
    for i in range(len(x) - 1):
        d = x[i + 1] - x[i] - 1.0
        e += 0.5 * k * d * d
    return e


def nbody_potential(pos):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = pos[i, 0] - pos[j, 0]
            dy = pos[i, 1] - pos[j, 1]
            dz = pos[i, 2] - pos[j, 2]
            e -= 1.0 / math.sqrt(dx * dx + dy * dy + dz * dz + 0.01)
    return e


def clip_and_sum(a, lo, hi):
    s = 0.0
    for i in range(len(a)):
        v = a[i]
        if v < lo:
            v = lo
        elif v > hi:
            v = hi
        s += v * v
    return s


def numpy_alias_module(x):
    return numpy.sin(x) + numpy.cos(2.0 * x)


def annotated_locals(x: float, n: int) -> float:
    s: float = 0.0
    for i in range(n):
        s += x ** 2 / (i + 1)
    return s


def bool_and_int_logic(x, n):
    flag = n > 2 and x > 0.0
    c = 0
    for i in range(n):
        if i % 2 == 0 or i == n - 1:
            c += 1
    return x * c if flag else -x * c


def swap_tuple_assign(x, y):
    a, b = x, y
    for _ in range(3):
        a, b = b, a + 0.5 * b
    return a * b


def closure_maker(c):
    def quadratic_closure(x):
        return c * x * x + math.sin(c * x)

    return quadratic_closure


scaled_quadratic = closure_maker(1.7)


def while_bisect_array(a, target):
    lo = 0
    hi = len(a) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[mid] < target:
            lo = mid
        else:
            hi = mid
    t = (target - a[lo]) / (a[hi] - a[lo])
    return a[lo] * (1.0 - t) + a[hi] * t



# --- the table ------------------------------------------------------------------------------

A4 = spd(4, 1)
SORTED = np.sort(vec(9, 5, 0.0, 3.0))

CASES: list[Case] = [
    Case(poly, (1.3,)),
    Case(rational, (2.0, 0.5), (0, 1)),
    Case(int_float_mix, (1.7, 7)),
    Case(float_floordiv_mod, (5.3, 1.7), (0, 1)),
    Case(negative_int_divmod, (1.5, 7)),
    Case(powers, (1.3, 2.2), (0, 1)),
    Case(unary_ops, (0.7,)),
    Case(chained_compare, (1.5, 2.5), (0, 1)),
    Case(conditional_expr, (-1.5, -2.5), (0, 1)),
    Case(piecewise, (1.0,)),
    Case(piecewise_assign, (-2.0,)),
    Case(piecewise_assign, (-0.5,)),
    Case(piecewise_assign, (1.0,)),
    Case(piecewise_assign, (3.0,)),
    Case(math_zoo, (0.7, 1.3), (0, 1)),
    Case(numpy_scalar_math, (0.7, 1.3), (0, 1)),
    Case(from_imports, (0.8,)),
    Case(builtins_zoo, (0.4, 1.1), (0, 1)),
    Case(globals_constants, (3.0,)),
    Case(newton_sqrt, (2.0,)),
    Case(bisection_root, (3.0,), fd=False),  # piecewise constant in c at the 1e-13 scale
    Case(exp_series, (1.3,)),
    Case(range_forms, (0.3,)),
    Case(break_continue, (vec(12, 1),)),
    Case(early_return_in_loop, (vec(10, 2), 1.0)),
    Case(nested_loops_break, (mat(4, 5, 3),)),
    Case(while_with_counter, (1.3,)),
    Case(sum_squares, (vec(7, 4),)),
    Case(negative_indices, (vec(5, 6),)),
    Case(array_attributes, (mat(3, 4, 7), vec(4, 8)), (0, 1)),
    Case(prefix_sum_inplace, (vec(8, 9),)),
    Case(stencil_two_buffers, (vec(9, 10), 5)),
    Case(local_buffers, (vec(6, 11),), isolate=True),
    Case(size_and_ndim, (vec(3, 60), mat(2, 3, 61)), (0, 1)),
    Case(ones_and_empty, (vec(5, 62),)),
    Case(np_reductions, (vec(5, 12), vec(5, 13)), (0, 1)),
    Case(matvec_dot, (mat(3, 4, 14), vec(4, 15)), (0, 1)),
    Case(matmul_operator, (mat(3, 4, 16), mat(4, 2, 17), vec(2, 18)), (0, 1, 2)),
    Case(int_array_lookup, (vec(6, 19), np.array([0, 3, 5, 3, -1, 2]))),
    Case(float32_sum, (vec(6, 20).astype(np.float32),), rtol=2e-5, value_rtol=2e-6),
    Case(float32_local, (vec(5, 21).astype(np.float32), 1.5), (0, 1), rtol=2e-5,
         value_rtol=2e-6),
    Case(mixed_int_float_arrays, (vec(5, 22), np.array([1, 2, 3, 4, 5], dtype=np.int32))),
    Case(matvec_loops, (mat(3, 4, 23), vec(4, 24)), (0, 1)),
    Case(matmul_loops, (mat(3, 4, 25), mat(4, 2, 26)), (0, 1)),
    Case(gram_trace, (mat(4, 3, 27),)),
    Case(cholesky_logdet, (A4,)),
    Case(gauss_solve_sum, (A4, vec(4, 28)), (0, 1)),
    Case(power_iteration, (spd(3, 29), vec(3, 30, 0.5, 1.0)), (0, 1)),
    Case(euler_decay, (0.8, 2.0), (0, 1)),
    Case(rk4_pendulum, (0.6, 9.81), (0, 1)),
    Case(lotka_volterra_array, (np.array([1.1, 0.4, 0.4, 0.1]), np.array([1.0, 2.0])),
         (0, 1)),
    Case(mlp_loss, (mat(4, 3, 31), vec(4, 32), vec(4, 33), vec(3, 34), 0.3), (0, 1, 2, 3, 4)),
    Case(logsumexp, (vec(6, 35),)),
    Case(softmax_cross_entropy, (vec(5, 36), 2), isolate=True),
    Case(least_squares, (vec(3, 37), mat(6, 3, 38), vec(6, 39)), (0, 1, 2)),
    Case(ridge_with_dot, (vec(3, 40), mat(5, 3, 41), vec(5, 42), 0.1), (0, 1, 3)),
    Case(huber, (np.array([0.1, -2.0, 0.5, 3.0]), 1.0), (0, 1)),
    Case(logistic_regression, (vec(3, 43), mat(5, 3, 44), np.array([1, 0, 1, 1, 0]))),
    Case(calls_helpers, (vec(4, 45), 1.5), (0, 1)),
    Case(uses_tuple_helper, (vec(5, 46),)),
    Case(calls_writer, (vec(4, 47), 0.7), (0, 1)),
    Case(polar_sum, (1.5, 0.4), (0, 1)),
    Case(axpy_loss, (0.5, vec(4, 48), vec(4, 49)), (0, 1, 2)),
    Case(trapezoid, (-0.5, 1.2), (0, 1)),
    Case(horner, (vec(5, 50), 0.7), (0, 1)),
    Case(spring_chain_energy, (np.cumsum(vec(6, 51, 0.8, 1.2)), 2.0), (0, 1)),
    Case(nbody_potential, (mat(4, 3, 52),)),
    Case(clip_and_sum, (np.array([-2.0, -0.5, 0.2, 0.9, 1.5]), -1.0, 1.0), (0, 1, 2)),
    Case(numpy_alias_module, (0.9,)),
    Case(annotated_locals, (1.2, 4)),
    Case(bool_and_int_logic, (0.5, 5)),
    Case(swap_tuple_assign, (1.2, 0.3), (0, 1)),
    Case(scaled_quadratic, (0.4,)),
    Case(while_bisect_array, (SORTED, 1.7), (0, 1)),
    Case(fib, (10,), None),
    Case(recursive_power, (1.1, 5)),
    Case(tree_sum_all, (vec(9, 60),)),
]

# Tuple-returning functions: checked with vjp.
VJP_CASES: list[Case] = [
    Case(polar, (1.5, 0.4)),
    Case(stats, (vec(6, 53),)),
    Case(_minmax, (vec(5, 54),)),
]

# Functions returning None that write their results into argument arrays: checked with
# `autodiff` (Duplicated arrays, Active floats) against jax.vjp of the arrays they leave.
WRITER_CASES: list[Case] = [
    Case(axpy_into, (0.5, vec(4, 55), vec(4, 56), np.zeros(4))),
    Case(square_inplace, (vec(5, 57),), isolate=True),
    Case(smooth_all, (vec(9, 61),), isolate=True),
    Case(cumulative_product, (vec(5, 58, 0.5, 1.5), np.zeros(5))),
    Case(heat_step_into, (vec(6, 59), np.zeros(6), 0.2)),
]
