"""np.linalg stand-ins for the orthogonal decompositions, written in the Python subset (see
`numpy_prelude`, which maps NumPy's functions to them): `qr`, `eigh`, `eigvalsh`.

- `qr(a, mode)`: Householder QR with LAPACK's reflectors (geqrf's `dlarfg`: beta =
  -sign(alpha) * ||(alpha, x)||, tau = (beta - alpha) / beta, no reflection when x is zero;
  Q formed as orgqr forms it), so Q and R have NumPy's signs. Modes 'reduced' (the default:
  Q m x k, R k x n, k = min(m, n)), 'complete' (Q m x m, R m x n) and 'r' (R only). It is
  differentiated as the loops it is (no custom rule): the reflections are smooth wherever
  the input has full column rank, and the tape holds O(m n k) numbers.
- `eigh(a)` and `eigvalsh(a)` of a symmetric matrix given by its lower triangle (NumPy's
  default UPLO='L'; the upper one is never read): cyclic Jacobi rotations until every
  off-diagonal element is negligible next to its two diagonal ones (|a_pq| <= 1e-18 *
  sqrt(|a_pp a_qq|), the relative criterion of Demmel and Veselic) or 60 sweeps, in float64,
  eigenvalues ascending; the results have NumPy's dtype (float32 for float32, else float64).
  An eigenvector's sign is arbitrary (as LAPACK's: it may differ
  from NumPy's). The factorization is never differentiated: a `custom_vjp` rule applies
  the adjoint S_bar = V (diag(w_bar) + F o (V^T V_bar)) V^T, F_ij = 1 / (w_j - w_i), folded
  onto the lower triangle; forward mode dw = diag(V^T dS V), dV = V (F o V^T dS V). A
  derivative that needs F at two equal eigenvalues is a `LinAlgError`, never an infinite or
  NaN gradient: in reverse mode, a cotangent on an eigenvector of a repeated eigenvalue (the
  eigenvectors are not unique there); in forward mode, a tangent that mixes two of them.
  Eigenvalues alone stay differentiable there, as JAX's.

Invariants: 2-D arrays only (`numpy_prelude._SIGNATURES` refuses other ranks at the call);
eigh's argument is square (NumPy's LinAlgError otherwise); results are fresh arrays.
"""

from __future__ import annotations

import numpy as np

from enzyme_py.custom import custom_vjp
from enzyme_py.frontend.numpy_prelude_linalg import _float_of, _square

# --- QR ---------------------------------------------------------------------------------------


def _householder(a):
    """(r, tau): a's copy with R on and above the diagonal and the reflectors' vectors below
    it (their leading 1 implicit), and the reflectors' factors (LAPACK's geqr2)."""
    m = a.shape[0]
    n = a.shape[1]
    r = a * 1.0
    k = min(m, n)
    tau = np.zeros(k, dtype=r.dtype)
    for j in range(k):
        alpha = r[j, j]
        ss = alpha * 0.0
        for i in range(j + 1, m):
            ss += r[i, j] * r[i, j]
        if ss != 0.0:
            beta = -np.copysign(np.sqrt(alpha * alpha + ss), alpha)
            t = (beta - alpha) / beta
            tau[j] = t
            scale = 1.0 / (alpha - beta)
            for i in range(j + 1, m):
                r[i, j] = r[i, j] * scale
            r[j, j] = beta
            for c in range(j + 1, n):
                _reflect(r, j, t, r, c)
    return r, tau


def _reflect(r, j, t, x, c):
    """Column c of x, from row j down, times H_j = I - t v v^T (v: r's column j below its
    row j, after an implicit 1 at row j). `x` may be `r` itself (c > j): element by element,
    never a slice write, so the two never need to be told apart."""
    w = x[j, c]
    for i in range(j + 1, r.shape[0]):
        w += r[i, j] * x[i, c]
    w = w * t
    x[j, c] = x[j, c] - w
    for i in range(j + 1, r.shape[0]):
        x[i, c] = x[i, c] - w * r[i, j]


def _q_of(r, tau, cols):
    """The first `cols` columns of H_0 H_1 ... H_(k-1) (LAPACK's orgqr)."""
    m = r.shape[0]
    q = np.zeros((m, cols), dtype=r.dtype)
    for i in range(min(m, cols)):
        q[i, i] = 1.0
    for j in range(tau.shape[0] - 1, -1, -1):
        t = tau[j]
        if t != 0.0:
            for c in range(cols):
                _reflect(r, j, t, q, c)
    return q


def _upper(r, rows):
    """The first `rows` rows of r's upper triangle (zeros below the diagonal)."""
    out = np.zeros((rows, r.shape[1]), dtype=r.dtype)
    for i in range(min(rows, r.shape[0])):
        for j in range(i, r.shape[1]):
            out[i, j] = r[i, j]
    return out


def qr(a, mode="reduced"):
    """np.linalg.qr(a, mode): (Q, R) with a = Q @ R, Q's columns orthonormal, R upper
    triangular; mode 'reduced', 'complete' or 'r' (R alone)."""
    r, tau = _householder(a)
    m = a.shape[0]
    k = tau.shape[0]
    if mode == "r":
        return _upper(r, k)
    if mode == "complete":
        return _q_of(r, tau, m), _upper(r, m)
    return _q_of(r, tau, k), _upper(r, k)


# --- eigh, eigvalsh -----------------------------------------------------------------------------


def _lower_symmetric(a):
    """The symmetric float64 matrix whose lower triangle is square `a`'s (NumPy's UPLO='L')."""
    n = a.shape[0]
    s = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            s[i, j] = a[i, j]
            s[j, i] = a[i, j]
    return s


def _rotate(s, v, p, q, c, sn):
    """s = J^T s J and v = v J for the rotation J of the plane (p, q) (J_pp = J_qq = c,
    J_pq = sn, J_qp = -sn)."""
    n = s.shape[0]
    for k in range(n):
        x = s[k, p]
        y = s[k, q]
        s[k, p] = c * x - sn * y
        s[k, q] = sn * x + c * y
    for k in range(n):
        x = s[p, k]
        y = s[q, k]
        s[p, k] = c * x - sn * y
        s[q, k] = sn * x + c * y
    for k in range(n):
        x = v[k, p]
        y = v[k, q]
        v[k, p] = c * x - sn * y
        v[k, q] = sn * x + c * y


def _jacobi(a):
    """[w; V] ((n + 1) x n, float64): the eigenvalues ascending in row 0, the unit
    eigenvectors as the columns of the rows below, of the symmetric matrix with a's lower
    triangle."""
    _square(a)
    n = a.shape[0]
    s = _lower_symmetric(a)
    v = np.eye(n)
    for _ in range(60):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                apq = s[p, q]
                if abs(apq) > 1e-18 * np.sqrt(abs(s[p, p] * s[q, q])):
                    rotated = True
                    theta = (s[q, q] - s[p, p]) / (2.0 * apq)
                    if abs(theta) > 1e150:
                        t = 0.5 / theta
                    else:
                        t = 1.0 / (abs(theta) + np.sqrt(theta * theta + 1.0))
                        if theta < 0.0:
                            t = -t
                    c = 1.0 / np.sqrt(t * t + 1.0)
                    _rotate(s, v, p, q, c, t * c)
                    s[p, q] = 0.0
                    s[q, p] = 0.0
        if not rotated:
            break
    out = np.zeros((n + 1, n))
    for j in range(n):  # (selection by the smallest eigenvalue left: ascending)
        best = j
        for k in range(j + 1, n):
            if s[k, k] < s[best, best]:
                best = k
        out[0, j] = s[best, best]
        s[best, best] = s[j, j]
        for i in range(n):
            out[i + 1, j] = v[i, best]
            v[i, best] = v[i, j]
    return out


def _gaps(out, m):
    """F o m for F_ij = 1 / (w_j - w_i) off the diagonal (0 on it), w = out[0]; a nonzero
    m_ij at two equal eigenvalues is a LinAlgError."""
    n = m.shape[0]
    f = m * 0.0
    for i in range(n):
        for j in range(n):
            if i != j and m[i, j] != 0.0:
                gap = out[0, j] - out[0, i]
                if gap == 0.0:
                    raise np.linalg.LinAlgError(
                        "the derivative of eigh's eigenvectors at a repeated eigenvalue is "
                        "not defined (they are not unique there)")
                f[i, j] = m[i, j] / gap
    return f


@custom_vjp
def _eigh_packed(a):
    return _jacobi(a)


def _eigh_fwd(a):
    out = _jacobi(a)
    return out, out


def _eigh_bwd(out, g, a_bar):
    v = out[1:]
    n = v.shape[0]
    for j in range(n):  # (an eigenvector of a repeated eigenvalue has no derivative)
        used = False
        for i in range(n):
            used = used or g[i + 1, j] != 0.0
        for i in range(n):
            if used and i != j and out[0, i] == out[0, j]:
                raise np.linalg.LinAlgError(
                    "the derivative of eigh's eigenvectors at a repeated eigenvalue is not "
                    "defined (they are not unique there)")
    inner = _gaps(out, v.T @ g[1:])
    for i in range(v.shape[0]):
        inner[i, i] += g[0, i]
    full = v @ inner @ v.T
    for i in range(v.shape[0]):  # (a's lower triangle stands for both)
        a_bar[i, i] += full[i, i]
        for j in range(i):
            a_bar[i, j] += full[i, j] + full[j, i]


def _eigh_jvp(a, da):
    out = _jacobi(a)
    n = a.shape[0]
    v = out[1:]
    m = v.T @ _lower_symmetric(da) @ v
    tangent = out * 0.0
    dv = v @ _gaps(out, m)
    for j in range(n):
        tangent[0, j] = m[j, j]
        for i in range(n):
            tangent[i + 1, j] = dv[i, j]
    return out, tangent


_eigh_packed.defvjp(_eigh_fwd, _eigh_bwd)
_eigh_packed.defjvp(_eigh_jvp)


def eigh(a):
    """np.linalg.eigh(a): (w, V), the eigenvalues ascending and the unit eigenvectors as V's
    columns, of the symmetric matrix with a's lower triangle."""
    out = _eigh_packed(a)
    like = _float_of(a)
    return out[0].astype(like.dtype), out[1:].astype(like.dtype)


def eigvalsh(a):
    """np.linalg.eigvalsh(a): eigh(a)'s eigenvalues, ascending."""
    like = _float_of(a)
    return _eigh_packed(a)[0].astype(like.dtype)


# (np.linalg.qr, eigh and eigvalsh map to `numpy_prelude_stacks`, which calls these for a
# matrix)
