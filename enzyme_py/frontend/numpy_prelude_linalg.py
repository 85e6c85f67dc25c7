"""np.linalg stand-ins written in the Python subset (see `numpy_prelude`, which maps NumPy's
functions to them): `solve`, `inv`, `det`, `slogdet`, `cholesky`, `matrix_power`.

Each factorization runs once per call and is never differentiated: the functions that
factorize carry a `custom_vjp` rule (`enzyme_py.custom`; an array result goes through
`frontend.custom_array_ir`), whose `fwd` keeps the factors as residuals and whose `bwd`
applies the matrix adjoints (Giles, "Collected matrix derivative results", 2008), so a
gradient costs a few triangular solves more than the function, and its tape holds the
factors (O(n^2)), not every step of the elimination (O(n^3)).

- LU with partial pivoting (LAPACK's getrf: the first row with the largest |pivot|):
  `solve` (x = A^-1 b; b_bar += A^-T g, A_bar -= (A^-T g) x^T), `inv` (a solve of the
  identity), `det`/`slogdet` (from the product of U's diagonal and the permutation's sign;
  A_bar += (g_logabsdet + g_det det) A^-T). A pivot that is exactly zero is NumPy's
  `LinAlgError("Singular matrix")` for solve and inv; det and slogdet return 0 and
  (0, -inf) as NumPy does, and their gradient there is a `LinAlgError` (the adjugate is
  not computed).
- Cholesky (LAPACK's potrf with the lower triangle: the upper one is never read): a pivot
  that is not positive is `LinAlgError("Matrix is not positive definite")`. Its gradient
  is the derivative of that function: with G = L^-T Phi(L^T L_bar) L^-1 (Phi: the lower
  triangle, diagonal halved), A_bar gains G_ij + G_ji below the diagonal and G_ii on it.

Forward mode (`jvp`, `jacfwd`) calls each rule's `defjvp` rule: dx = A^-1 (db - dA x);
d log|det| = tr(A^-1 dA); dL = L Phi(L^-1 dS L^-T).

Results match LAPACK's to rounding (the order of the sums differs from blocked LAPACK).
Invariants: square 2-D matrices only (`numpy_prelude._SIGNATURES` refuses other ranks at
the call; a non-square one raises NumPy's LinAlgError); the loops are element loops over
C-contiguous copies, so no slice write reads the rows it writes.
"""

from __future__ import annotations

import numpy as np

from enzyme_py.custom import custom_vjp

# --- LU with partial pivoting -------------------------------------------------------------------


def _float_of(a):
    """A 1-element zero of the float dtype NumPy's LAPACK wrappers give for `a`: float32 for
    float32, float64 for every other dtype (the factorizations compute in float64; results
    are cast to it with `.astype(like.dtype)`)."""
    return np.zeros(1, dtype=a.dtype) * 1.0


def _square(a):
    if a.shape[0] != a.shape[1]:
        raise np.linalg.LinAlgError("Last 2 dimensions of the array must be square")


_BLOCK = 32  # the panel's width: the trailing rows are updated once per panel


def _lu(a):
    """(lu, perm, sign): L (unit, below the diagonal) and U (on and above it) with
    A[perm] = L U, and the permutation's sign; a zero pivot leaves its column as it is.

    Blocked (LAPACK's getrf): each panel of `_BLOCK` columns is factorized, rows swapped
    whole; then U's rows right of it (a unit-lower solve) and the trailing matrix (minus
    L21 @ U12, by the matrix kernel: `_subtract_products`). Every element gets the updates
    of the unblocked elimination in the same order: the result is the same to the bit."""
    _square(a)
    n = a.shape[0]
    lu = a * 1.0
    perm = np.arange(n)
    sign = 1.0
    for k0 in range(0, n, _BLOCK):
        end = min(k0 + _BLOCK, n)
        for k in range(k0, end):
            p = k
            big = abs(lu[k, k])
            for i in range(k + 1, n):
                v = abs(lu[i, k])
                if v > big:
                    big = v
                    p = i
            if p != k:
                for j in range(n):
                    t = lu[k, j]
                    lu[k, j] = lu[p, j]
                    lu[p, j] = t
                q = perm[k]
                perm[k] = perm[p]
                perm[p] = q
                sign = -sign
            piv = lu[k, k]
            if piv != 0.0:
                for i in range(k + 1, n):
                    f = lu[i, k] / piv
                    lu[i, k] = f
                    for j in range(k + 1, end):
                        lu[i, j] -= f * lu[k, j]
        for i in range(k0 + 1, end):  # U12 = L11^-1 A12
            for j in range(k0, i):
                c = lu[i, j]
                for col in range(end, n):
                    lu[i, col] -= c * lu[j, col]
        if end < n:  # A22 -= L21 U12
            _subtract_products(lu[end:, end:], lu[end:, k0:end], lu[k0:end, end:])
    return lu, perm, sign


def _subtract_products(c, a, b):
    """c -= a @ b in place, each element's products subtracted one at a time in order (the
    elimination's order: c - a0 b0 - a1 b1 ...). Compiled, it is a call of the matrix
    kernel (`arrays/linalg.py`: c += (-a) @ b, the same bits); run by NumPy, these loops."""
    for i in range(c.shape[0]):
        for j in range(a.shape[1]):
            f = a[i, j]
            for col in range(c.shape[1]):
                c[i, col] -= f * b[j, col]


def _singular(lu):
    """Is a pivot of U exactly zero (LAPACK's getrf info > 0)?"""
    n = lu.shape[0]
    for k in range(n):
        if lu[k, k] == 0.0:
            return True
    return False


def _forward_substitute(t, x, unit):
    """x <- T^-1 x in place, T lower triangular (only its lower triangle is read; a unit
    diagonal when `unit`), x a matrix of columns."""
    n = t.shape[0]
    m = x.shape[1]
    for i in range(n):
        for j in range(i):
            c = t[i, j]
            for k in range(m):
                x[i, k] -= c * x[j, k]
        if not unit:
            d = t[i, i]
            for k in range(m):
                x[i, k] = x[i, k] / d


def _back_substitute(t, x, unit):
    """x <- T^-1 x in place, T upper triangular (only its upper triangle is read): the
    forward substitution of the reversed rows and columns (views, no copy)."""
    _forward_substitute(t[::-1, ::-1], x[::-1], unit)


def _columns(b):
    """b as a C-contiguous matrix of columns (a vector: one column), in a fresh buffer."""
    if np.ndim(b) == 1:
        return b.reshape(b.shape[0], 1).copy()
    return b.copy()


def _like_b(x, b):
    """The matrix x of columns shaped as b (a vector when b is one)."""
    if np.ndim(b) == 1:
        return x.reshape(b.shape[0])
    return x


def _lu_solve(lu, perm, b):
    """x with A x = b, from `_lu(A)`; b a vector or a matrix (its columns): L U x = b[perm]."""
    n = lu.shape[0]
    if b.shape[0] != n:
        raise ValueError("solve: Input operand 1 has a mismatch in its core dimension 0")
    one = np.ones(1, dtype=lu.dtype)[0]  # (x's dtype: NumPy's promotion of a's and b's)
    cols = _columns(b)
    x = cols * one
    for i in range(n):
        x[i] = cols[perm[i]] * one
    _forward_substitute(lu, x, True)
    _back_substitute(lu, x, False)
    return _like_b(x, b)


def _lu_solve_t(lu, perm, g):
    """y with A^T y = g, from `_lu(A)` (A^T = U^T L^T P): U^T z = g, L^T w = z, y[perm] = w."""
    z = _columns(g)
    _forward_substitute(lu.T, z, False)
    _back_substitute(lu.T, z, True)
    y = z * 1.0
    for i in range(lu.shape[0]):
        y[perm[i]] = z[i]
    return _like_b(y, g)


def _subtract_outer(a_bar, y, x):
    """a_bar -= y x^T (vectors) or y @ x.T (matrices), as element loops."""
    n = a_bar.shape[0]
    if np.ndim(x) == 1:
        for i in range(n):
            c = y[i]
            for j in range(n):
                a_bar[i, j] -= c * x[j]
    else:
        m = x.shape[1]
        for i in range(n):
            for j in range(n):
                s = 0.0
                for k in range(m):
                    s += y[i, k] * x[j, k]
                a_bar[i, j] -= s


# --- solve, inv -----------------------------------------------------------------------------------


@custom_vjp
def solve(a, b):
    """np.linalg.solve(a, b): x with a @ x = b; b a vector or a matrix of right-hand sides."""
    lu, perm, _ = _lu(a)
    if _singular(lu):
        raise np.linalg.LinAlgError("Singular matrix")
    return _lu_solve(lu, perm, b)


def _solve_fwd(a, b):
    lu, perm, _ = _lu(a)
    if _singular(lu):
        raise np.linalg.LinAlgError("Singular matrix")
    x = _lu_solve(lu, perm, b)
    return x, lu, perm, x


def _solve_bwd(lu, perm, x, g, a_bar, b_bar):
    y = _lu_solve_t(lu, perm, g)
    b_bar += y
    _subtract_outer(a_bar, y, x)


def _solve_jvp(a, b, da, db):
    lu, perm, _ = _lu(a)
    if _singular(lu):
        raise np.linalg.LinAlgError("Singular matrix")
    x = _lu_solve(lu, perm, b)
    return x, _lu_solve(lu, perm, db - da @ x)


solve.defvjp(_solve_fwd, _solve_bwd)
solve.defjvp(_solve_jvp)


def inv(a):
    """np.linalg.inv(a): solve(a, I)."""
    _square(a)
    like = _float_of(a)  # (an integer matrix's inverse is float64, as NumPy's)
    return solve(a, np.eye(a.shape[0], dtype=like.dtype))


# --- det, slogdet ---------------------------------------------------------------------------------


def _summary_of(lu, sign):
    """[sign, log|det|, det] from U's diagonal (NumPy: sign 0 and log|det| -inf when
    singular)."""
    n = lu.shape[0]
    out = np.zeros(3, dtype=lu.dtype)
    s = out[0] + sign
    logabs = out[0]
    det = s
    for k in range(n):
        u = lu[k, k]
        det = det * u
        if u < 0.0:
            s = -s
        logabs += np.log(abs(u))
    if _singular(lu):
        s = s * 0.0
    out[0] = s
    out[1] = logabs
    out[2] = det
    return out


@custom_vjp
def _det_summary(a):
    lu, _, sign = _lu(a)
    return _summary_of(lu, sign)


def _det_summary_fwd(a):
    lu, perm, sign = _lu(a)
    out = _summary_of(lu, sign)
    return out, lu, perm, out


def _det_summary_bwd(lu, perm, out, g, a_bar):
    w = g[1] + g[2] * out[2]
    if g[1] != 0.0 or g[2] != 0.0:
        if _singular(lu):  # (det's gradient there is the adjugate, not det * A^-T = 0)
            raise np.linalg.LinAlgError("the gradient of det or slogdet at a singular matrix "
                                        "is not supported")
        n = lu.shape[0]
        y = _lu_solve_t(lu, perm, np.eye(n))  # A^-T
        for i in range(n):
            for j in range(n):
                a_bar[i, j] += w * y[i, j]


def _det_summary_jvp(a, da):
    lu, perm, sign = _lu(a)
    out = _summary_of(lu, sign)
    if _singular(lu):
        raise np.linalg.LinAlgError("the derivative of det or slogdet at a singular matrix "
                                    "is not supported")
    t = np.trace(_lu_solve(lu, perm, da))  # tr(A^-1 dA)
    tangent = out * 0.0
    tangent[1] = t
    tangent[2] = out[2] * t
    return out, tangent


_det_summary.defvjp(_det_summary_fwd, _det_summary_bwd)
_det_summary.defjvp(_det_summary_jvp)


def det(a):
    """np.linalg.det(a): the product of U's diagonal times the permutation's sign."""
    return _det_summary(a)[2]


def slogdet(a):
    """np.linalg.slogdet(a): (sign, log|det|) (0 and -inf for a singular matrix)."""
    s = _det_summary(a)
    return s[0], s[1]


# --- cholesky -------------------------------------------------------------------------------------


def _cholesky_of(a):
    _square(a)
    n = a.shape[0]
    chol = np.zeros_like(a * 1.0)
    for j in range(n):
        d = a[j, j] * 1.0
        for k in range(j):
            d -= chol[j, k] * chol[j, k]
        if not d > 0.0:
            raise np.linalg.LinAlgError("Matrix is not positive definite")
        r = np.sqrt(d)
        chol[j, j] = r
        for i in range(j + 1, n):
            s = a[i, j] * 1.0
            for k in range(j):
                s -= chol[i, k] * chol[j, k]
            chol[i, j] = s / r
    return chol


@custom_vjp
def cholesky(a):
    """np.linalg.cholesky(a): lower L with L @ L.T = a, from a's lower triangle."""
    return _cholesky_of(a)


def _cholesky_fwd(a):
    chol = _cholesky_of(a)
    return chol, chol


def _cholesky_bwd(chol, g, a_bar):
    n = chol.shape[0]
    phi = chol.T @ g  # Phi(L^T L_bar): the lower triangle, its diagonal halved
    for i in range(n):
        phi[i, i] = 0.5 * phi[i, i]
        for j in range(i + 1, n):
            phi[i, j] = 0.0
    big_g = phi.T.copy()
    _back_substitute(chol.T, big_g, False)  # (Phi L^-1)^T = L^-T Phi^T
    big_g = big_g.T.copy()
    _back_substitute(chol.T, big_g, False)  # L^-T Phi L^-1
    for i in range(n):
        a_bar[i, i] += big_g[i, i]
        for j in range(i):
            a_bar[i, j] += big_g[i, j] + big_g[j, i]


def _cholesky_jvp(a, da):
    """dL = L Phi(L^-1 dS L^-T), dS the symmetric matrix of da's lower triangle."""
    chol = _cholesky_of(a)
    n = chol.shape[0]
    ds = chol * 0.0
    for i in range(n):
        for j in range(i + 1):
            ds[i, j] = da[i, j]
            ds[j, i] = da[i, j]
    _forward_substitute(chol, ds, False)  # L^-1 dS
    m = ds.T.copy()
    _forward_substitute(chol, m, False)  # L^-1 dS L^-T (dS is symmetric)
    for i in range(n):
        m[i, i] = 0.5 * m[i, i]
        for j in range(i + 1, n):
            m[i, j] = 0.0
    return chol, chol @ m


cholesky.defvjp(_cholesky_fwd, _cholesky_bwd)
cholesky.defjvp(_cholesky_jvp)


# --- matrix_power ---------------------------------------------------------------------------------


def matrix_power(a, n):
    """np.linalg.matrix_power(a, n): a to the integer power n by repeated squaring (the
    inverse's power for n < 0, the identity for n == 0), as NumPy multiplies."""
    _square(a)
    if n < 0:
        if np.full(1, 0.5).astype(a.dtype)[0] == 0.0:  # (an integer dtype truncates it)
            raise TypeError("np.linalg.matrix_power of an integer matrix to a negative power "
                            "is not supported (NumPy's result is float): a.astype(float) first")
        return _power(inv(a), -n).astype(a.dtype)  # (one result type for both signs of n)
    return _power(a, n)


def _power(a, n):
    """a ** n for n >= 0 (NumPy's order of products: the bits of n from the lowest)."""
    result = np.zeros_like(a)
    if n == 0:
        for i in range(a.shape[0]):
            result[i, i] = 1
        return result
    z = a.copy()
    have = False
    first = True
    k = n
    while k > 0:
        if not first:
            z = z @ z
        first = False
        if k % 2 == 1:
            if have:
                result = result @ z
            else:
                result = z.copy()
                have = True
        k = k // 2
    return result


# (np.linalg.solve, inv, det, slogdet, cholesky and matrix_power map to
# `numpy_prelude_stacks`, which calls these for a matrix)
