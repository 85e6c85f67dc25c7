"""The singular value decomposition and what NumPy builds on it, written in the Python subset
(see `numpy_prelude`): `np.linalg.svd`, `np.linalg.pinv`, `np.linalg.lstsq`.

- The factorization is one-sided Jacobi (Hestenes) on the columns of A (of A^T when it has
  more columns than rows), in float64: pairs of columns are rotated until every pair is
  orthogonal to rounding (|u_p . u_q| <= 1e-15 ||u_p|| ||u_q||) or 60 sweeps; the singular
  values are the columns' norms, descending. It is accurate to rounding relative to ||A||.
  U's columns for zero singular values (and, with `full_matrices=True`, the columns beyond
  min(m, n)) complete the basis through a Householder QR of U (`decompositions`); these, and
  every singular vector's sign, may differ from LAPACK's, as the decomposition leaves them
  free.
- The reduced factorization is never differentiated: a `custom_vjp` rule applies the adjoint
  (Townsend, "Differentiating the singular value decomposition", 2016) for m >= n
      A_bar = U [(F o (U^T U_bar - U_bar^T U)) S + diag(s_bar)
                 + S (F o (V^T V_bar - V_bar^T V))] V^T + (I - U U^T) U_bar S^-1 V^T,
  F_ij = 1 / (s_j^2 - s_i^2), and its `defjvp` the matching tangents (JAX's formulas). A
  derivative that needs F at two equal singular values or S^-1 at a zero one is a
  `LinAlgError`, never an infinite or NaN one: in reverse mode, a cotangent on a singular
  vector of a repeated singular value (the vectors are not unique there); in forward mode,
  a tangent that mixes two of them. The singular values alone stay differentiable.
- `pinv(a, rcond=1e-15)`: V diag(1/s for s > rcond max(s), else 0) U^T, as NumPy's.
  `lstsq(a, b, rcond=None)`: NumPy's (x, residuals, rank, s) with its cutoff
  (eps max(m, n) s_max when rcond is None); residuals are the squared residual norms when
  the rank is n < m, else an empty array.

Invariants: 2-D matrices (`numpy_prelude._SIGNATURES` refuses other ranks at the call);
results are fresh arrays of NumPy's dtype (float32 for float32 input, else float64; the
factorization itself runs in float64).
"""

from __future__ import annotations

import numpy as np

from enzyme_py.custom import custom_vjp
from enzyme_py.frontend.numpy_prelude_decompositions import _householder, _q_of
from enzyme_py.frontend.numpy_prelude_linalg import _float_of


def _rotate_columns(u, p, q, c, s):
    for i in range(u.shape[0]):
        x = u[i, p]
        y = u[i, q]
        u[i, p] = c * x - s * y
        u[i, q] = s * x + c * y


def _hestenes(a):
    """[U; s; V] ((m + 1 + n) x n) of a (m x n, m >= n): U's columns for the nonzero
    singular values orthonormal (zero columns for zero ones), s descending."""
    m = a.shape[0]
    n = a.shape[1]
    u = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            x = a[i, j] * 1.0
            if x != x:
                raise np.linalg.LinAlgError("SVD did not converge")  # (NumPy's, for a NaN)
            u[i, j] = x
    v = np.eye(n)
    for _ in range(60):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                alpha = 0.0
                beta = 0.0
                gamma = 0.0
                for i in range(m):
                    alpha += u[i, p] * u[i, p]
                    beta += u[i, q] * u[i, q]
                    gamma += u[i, p] * u[i, q]
                if gamma != 0.0 and abs(gamma) > 1e-15 * np.sqrt(alpha * beta):
                    rotated = True
                    zeta = (beta - alpha) / (2.0 * gamma)
                    if abs(zeta) > 1e150:
                        t = 0.5 / zeta
                    else:
                        t = 1.0 / (abs(zeta) + np.sqrt(zeta * zeta + 1.0))
                        if zeta < 0.0:
                            t = -t
                    c = 1.0 / np.sqrt(t * t + 1.0)
                    _rotate_columns(u, p, q, c, t * c)
                    _rotate_columns(v, p, q, c, t * c)
        if not rotated:
            break
    norms = np.zeros(n)
    for j in range(n):
        ss = 0.0
        for i in range(m):
            ss += u[i, j] * u[i, j]
        norms[j] = np.sqrt(ss)
    out = np.zeros((m + 1 + n, n))
    for j in range(n):  # (selection by the largest norm left: descending)
        best = j
        for k in range(j + 1, n):
            if norms[k] > norms[best]:
                best = k
        sigma = norms[best]
        norms[best] = norms[j]
        out[m, j] = sigma
        for i in range(m):
            x = u[i, best]
            u[i, best] = u[i, j]
            out[i, j] = x / sigma if sigma > 0.0 else 0.0
        for i in range(n):
            out[m + 1 + i, j] = v[i, best]
            v[i, best] = v[i, j]
    return out


def _over_singular_values(r, s):
    """r S^-1 (column j over s[j]); a nonzero column over a zero singular value is a
    LinAlgError (a singular vector's derivative there is not defined)."""
    out = r * 0.0
    for j in range(r.shape[1]):
        for i in range(r.shape[0]):
            if r[i, j] != 0.0:
                if s[j] == 0.0:
                    raise np.linalg.LinAlgError("the derivative of the singular vectors at a "
                                                "zero singular value is not defined")
                out[i, j] = r[i, j] / s[j]
    return out


def _gap(s, i, j):
    gap = s[j] * s[j] - s[i] * s[i]
    if gap == 0.0:
        raise np.linalg.LinAlgError("the derivative of the singular vectors at a repeated "
                                    "singular value is not defined (they are not unique there)")
    return 1.0 / gap


@custom_vjp
def _svd_packed(a):
    return _hestenes(a)


def _svd_fwd(a):
    out = _hestenes(a)
    return out, out


def _svd_bwd(out, g, a_bar):
    n = out.shape[1]
    m = out.shape[0] - 1 - n
    u = out[:m]
    s = out[m]
    v = out[m + 1:]
    gu = g[:m]
    gv = g[m + 1:]
    for j in range(n):  # (a singular vector of a repeated singular value has no derivative)
        used = False
        for i in range(m):
            used = used or gu[i, j] != 0.0
        for i in range(n):
            used = used or gv[i, j] != 0.0
        for i in range(n):
            if used and i != j and s[i] == s[j]:
                _gap(s, i, j)  # (raises)
    x = u.T @ gu
    y = v.T @ gv
    inner = np.zeros((n, n))
    for i in range(n):
        inner[i, i] = g[m, i]
        for j in range(n):
            if i != j:
                dx = x[i, j] - x[j, i]
                dy = y[i, j] - y[j, i]
                if dx != 0.0 or dy != 0.0:
                    inner[i, j] = _gap(s, i, j) * (dx * s[j] + s[i] * dy)
    full = u @ inner @ v.T
    if m > n:
        full = full + _over_singular_values(gu - u @ x, s) @ v.T  # (I - U U^T) U_bar S^-1
    for i in range(m):
        for j in range(n):
            a_bar[i, j] += full[i, j]


def _svd_jvp(a, da):
    out = _hestenes(a)
    n = out.shape[1]
    m = out.shape[0] - 1 - n
    u = out[:m]
    s = out[m]
    v = out[m + 1:]
    dav = da @ v
    dp = u.T @ dav
    fu = np.zeros((n, n))
    fv = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                eu = s[j] * dp[i, j] + s[i] * dp[j, i]
                ev = s[i] * dp[i, j] + s[j] * dp[j, i]
                if eu != 0.0 or ev != 0.0:
                    f = _gap(s, i, j)
                    fu[i, j] = f * eu
                    fv[i, j] = f * ev
    du = u @ fu
    if m > n:
        du = du + _over_singular_values(dav - u @ dp, s)  # (I - U U^T) dA V S^-1
    dv = v @ fv
    tangent = out * 0.0
    for j in range(n):
        tangent[m, j] = dp[j, j]
        for i in range(m):
            tangent[i, j] = du[i, j]
        for i in range(n):
            tangent[m + 1 + i, j] = dv[i, j]
    return out, tangent


_svd_packed.defvjp(_svd_fwd, _svd_bwd)
_svd_packed.defjvp(_svd_jvp)


def _completed(u, s, cols):
    """u (m x k) with its columns for zero singular values, and columns up to `cols`, taken
    from the orthogonal factor of its Householder QR (the columns of a nonzero singular
    value stay as they are)."""
    m = u.shape[0]
    k = u.shape[1]
    r, tau = _householder(u)
    q = _q_of(r, tau, cols)
    for j in range(k):
        if s[j] > 0.0:
            for i in range(m):
                q[i, j] = u[i, j]
    return q


def _reduced(a):
    """(U, s, V) of a's reduced SVD: U m x k, s k, V n x k, k = min(m, n)."""
    m = a.shape[0]
    n = a.shape[1]
    if m >= n:
        out = _svd_packed(a)
        return out[:m], out[m], out[m + 1:]
    out = _svd_packed(a.T.copy())
    return out[n + 1:], out[n], out[:n]


def svd(a, full_matrices=True, compute_uv=True):
    """np.linalg.svd(a, full_matrices): (U, s, Vh) with a = U diag(s) Vh; U m x m and Vh
    n x n, or with full_matrices=False m x k and k x n. (compute_uv=False: `svd_values`.)"""
    m = a.shape[0]
    n = a.shape[1]
    u, s, v = _reduced(a)
    k = s.shape[0]
    zero = False
    if k > 0:
        zero = s[k - 1] == 0.0
    like = _float_of(a)
    if full_matrices:
        return (_completed(u, s, m).astype(like.dtype), s.astype(like.dtype),
                _completed(v, s, n).T.astype(like.dtype))
    if zero:
        return (_completed(u, s, u.shape[1]).astype(like.dtype), s.astype(like.dtype),
                _completed(v, s, v.shape[1]).T.astype(like.dtype))
    return u.astype(like.dtype), s.astype(like.dtype), v.T.astype(like.dtype)


def svd_values(a, full_matrices=True, compute_uv=False):
    """np.linalg.svd(a, compute_uv=False): the singular values, descending."""
    like = _float_of(a)
    return _reduced(a)[1].astype(like.dtype)


def pinv(a, rcond=1e-15):
    """np.linalg.pinv(a, rcond): V diag(1/s where s > rcond * max(s), else 0) U^T."""
    u, s, v = _reduced(a)
    k = s.shape[0]
    cutoff = rcond * s[0] if k > 0 else 0.0
    scaled = v * 0.0
    for j in range(k):
        if s[j] > cutoff:
            for i in range(v.shape[0]):
                scaled[i, j] = v[i, j] / s[j]
    like = _float_of(a)
    return (scaled @ u.T).astype(like.dtype)


def lstsq(a, b, rcond=None):
    """np.linalg.lstsq(a, b, rcond): (x, residuals, rank, s), NumPy's (LAPACK's gelsd)
    cutoff for the rank: rcond * s_max, rcond = eps * max(m, n) when None."""
    m = a.shape[0]
    n = a.shape[1]
    if b.shape[0] != m:
        raise np.linalg.LinAlgError("Incompatible dimensions")
    u, s, v = _reduced(a)
    k = s.shape[0]
    if rcond is None:
        rc = 2.220446049250313e-16 * max(m, n)
    else:
        rc = rcond * 1.0
    cutoff = rc * s[0] if k > 0 else 0.0
    rank = 0
    scaled = v * 0.0
    for j in range(k):
        if s[j] > cutoff:
            rank += 1
            for i in range(n):
                scaled[i, j] = v[i, j] / s[j]
    x = scaled @ (u.T @ b)
    like = _float_of(a) + _float_of(b)  # (NumPy's: the float type of a's and b's)
    if rank == n and m > n:
        r = b - a @ x
        return (x.astype(like.dtype), np.atleast_1d(np.sum(r * r, axis=0)).astype(like.dtype),
                rank, s.astype(like.dtype))
    return x.astype(like.dtype), np.zeros(0, dtype=like.dtype), rank, s.astype(like.dtype)


# (np.linalg.svd and pinv map to `numpy_prelude_stacks`, which calls these for a matrix)
STAND_INS = {np.linalg.lstsq: lstsq}
