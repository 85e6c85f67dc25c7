"""np.linalg on stacks of matrices, written in the Python subset (see `numpy_prelude`, which
maps NumPy's functions to these): `det`, `slogdet`, `inv`, `solve`, `cholesky`,
`matrix_power`, `eigh`, `eigvalsh`, `svd`, `pinv`, `qr` of a 3-D array `a` apply the
matrix function to each `a[q]` and stack the results along a new leading axis, as NumPy's
do; a 2-D `a` is the matrix function itself (`numpy_prelude_linalg`, `_decompositions`,
`_svd`), called unchanged.

Each matrix is differentiated as a matrix is (its custom rule, or its loops), so the
gradient of a stack is the stack of the matrices' gradients. `solve(a, b)` with a 3-D `a`
takes NumPy 2's right-hand sides: `b` of shape (M,) is one vector for every matrix, any
other `b` is a matrix (M, K) for every matrix or a stack (B, M, K) of them, a stack of one
(1, M, K) serving all (NumPy's broadcasting; another count is NumPy's ValueError).

Invariants: 3-D stacks only (`numpy_prelude._SIGNATURES` refuses other ranks at the call);
an error in one matrix (a singular one, `LinAlgError`) is that matrix's error; results are
fresh arrays of the matrix function's dtype (`_float_of`: float32 for float32, else float64;
`matrix_power`: a's own).
"""

from __future__ import annotations

import numpy as np

from enzyme_py.frontend import numpy_prelude_decompositions as decompositions
from enzyme_py.frontend import numpy_prelude_linalg as linalg
from enzyme_py.frontend import numpy_prelude_svd as singular
from enzyme_py.frontend.numpy_prelude_linalg import _float_of


def _put(out, q, r):
    """out[q] = r (a matrix function's result), unless r is the empty result of a function
    that raised where a non-empty one was due: its error is then the one the call reports (a
    write of the wrong shape would replace it with a shape error). Any other shape is
    written, so a mismatch is never skipped in silence."""
    if r.shape[0] != 0 or out.shape[1] == 0:
        out[q] = r


def _float_stack(a):
    """Zeros of a 3-D `a`'s shape, in the matrix functions' float dtype."""
    like = _float_of(a)
    return np.zeros((a.shape[0], a.shape[1], a.shape[2]), dtype=like.dtype)


def det(a):
    """np.linalg.det of a matrix or of each matrix of a stack."""
    if a.ndim == 3:
        like = _float_of(a)
        out = np.zeros(a.shape[0], dtype=like.dtype)
        for q in range(a.shape[0]):
            out[q] = linalg.det(a[q])
        return out
    return linalg.det(a)


def slogdet(a):
    """np.linalg.slogdet: (signs, logs of |det|) of a matrix or of each matrix of a stack."""
    if a.ndim == 3:
        like = _float_of(a)
        signs = np.zeros(a.shape[0], dtype=like.dtype)
        logs = np.zeros(a.shape[0], dtype=like.dtype)
        for q in range(a.shape[0]):
            s, logabs = linalg.slogdet(a[q])
            signs[q] = s
            logs[q] = logabs
        return signs, logs
    return linalg.slogdet(a)


def inv(a):
    """np.linalg.inv of a matrix or of each matrix of a stack."""
    if a.ndim == 3:
        out = _float_stack(a)
        for q in range(a.shape[0]):
            _put(out, q, linalg.inv(a[q]))
        return out
    return linalg.inv(a)


def solve(a, b):
    """np.linalg.solve for a matrix or a stack of them (the right-hand sides: the module
    docstring). The right-hand sides are converted to the result's float dtype first, so
    integer ones solve as NumPy solves them."""
    like = _float_of(a) + _float_of(b)
    bf = b.astype(like.dtype)
    if a.ndim == 3:
        count = a.shape[0]
        if b.ndim != 3:  # (one vector or one matrix for every matrix)
            x = _zeros_per_matrix(count, bf)
            for q in range(count):
                _put(x, q, linalg.solve(a[q], bf))
            return x
        if b.shape[0] != count and b.shape[0] != 1:
            raise ValueError("solve: the stacks of a and b do not broadcast (their numbers "
                             "of matrices differ and neither is 1)")
        x = np.zeros((count, b.shape[1], b.shape[2]), dtype=like.dtype)
        for q in range(count):
            _put(x, q, linalg.solve(a[q], bf[q if b.shape[0] == count else 0]))
        return x
    return linalg.solve(a, bf)


def _zeros_per_matrix(count, b):
    """Zeros of shape (count,) + b's shape (b a vector or a matrix), of b's dtype."""
    if b.ndim == 1:
        return np.zeros((count, b.shape[0]), dtype=b.dtype)
    return np.zeros((count, b.shape[0], b.shape[1]), dtype=b.dtype)


def cholesky(a):
    """np.linalg.cholesky of a matrix or of each matrix of a stack."""
    if a.ndim == 3:
        out = _float_stack(a)
        for q in range(a.shape[0]):
            _put(out, q, linalg.cholesky(a[q]))
        return out
    return linalg.cholesky(a)


def matrix_power(a, n):
    """np.linalg.matrix_power of a matrix or of each matrix of a stack."""
    if a.ndim == 3:
        out = np.zeros((a.shape[0], a.shape[1], a.shape[2]), dtype=a.dtype)
        for q in range(a.shape[0]):
            _put(out, q, linalg.matrix_power(a[q], n))
        return out
    return linalg.matrix_power(a, n)


def eigh(a):
    """np.linalg.eigh: (eigenvalues, eigenvectors) of a matrix or stacked per matrix."""
    if a.ndim == 3:
        like = _float_of(a)
        n = a.shape[1]
        w = np.zeros((a.shape[0], n), dtype=like.dtype)
        v = np.zeros((a.shape[0], n, n), dtype=like.dtype)
        for q in range(a.shape[0]):
            wq, vq = decompositions.eigh(a[q])
            _put(w, q, wq)
            _put(v, q, vq)
        return w, v
    return decompositions.eigh(a)


def eigvalsh(a):
    """np.linalg.eigvalsh of a matrix or stacked per matrix."""
    if a.ndim == 3:
        like = _float_of(a)
        w = np.zeros((a.shape[0], a.shape[1]), dtype=like.dtype)
        for q in range(a.shape[0]):
            _put(w, q, decompositions.eigvalsh(a[q]))
        return w
    return decompositions.eigvalsh(a)


def svd(a, full_matrices=True, compute_uv=True):
    """np.linalg.svd: (U, S, Vh) of a matrix or stacked per matrix (`svd_values` for
    compute_uv=False)."""
    if a.ndim == 3:
        like = _float_of(a)
        m = a.shape[1]
        n = a.shape[2]
        k = min(m, n)
        rows = m if full_matrices else k
        cols = n if full_matrices else k
        u = np.zeros((a.shape[0], m, rows), dtype=like.dtype)
        s = np.zeros((a.shape[0], k), dtype=like.dtype)
        vh = np.zeros((a.shape[0], cols, n), dtype=like.dtype)
        for q in range(a.shape[0]):
            uq, sq, vq = singular.svd(a[q], full_matrices=full_matrices)
            _put(u, q, uq)
            _put(s, q, sq)
            _put(vh, q, vq)
        return u, s, vh
    return singular.svd(a, full_matrices=full_matrices)


def svd_values(a, full_matrices=True, compute_uv=False):
    """np.linalg.svd(a, compute_uv=False) of a matrix or stacked per matrix."""
    if a.ndim == 3:
        like = _float_of(a)
        s = np.zeros((a.shape[0], min(a.shape[1], a.shape[2])), dtype=like.dtype)
        for q in range(a.shape[0]):
            _put(s, q, singular.svd_values(a[q]))
        return s
    return singular.svd_values(a)


def pinv(a, rcond=1e-15):
    """np.linalg.pinv of a matrix or of each matrix of a stack."""
    if a.ndim == 3:
        like = _float_of(a)
        out = np.zeros((a.shape[0], a.shape[2], a.shape[1]), dtype=like.dtype)
        for q in range(a.shape[0]):
            _put(out, q, singular.pinv(a[q], rcond))
        return out
    return singular.pinv(a, rcond)


def qr(a, mode="reduced"):
    """np.linalg.qr in each mode, of a matrix or stacked per matrix."""
    if a.ndim == 3:
        like = _float_of(a)
        m = a.shape[1]
        n = a.shape[2]
        rows = m if mode == "complete" else min(m, n)
        r = np.zeros((a.shape[0], rows, n), dtype=like.dtype)
        if mode == "r":
            for q in range(a.shape[0]):
                _put(r, q, decompositions.qr(a[q], "r"))
            return r
        qs = np.zeros((a.shape[0], m, rows), dtype=like.dtype)
        for q in range(a.shape[0]):
            qq, rq = decompositions.qr(a[q], mode)
            _put(qs, q, qq)
            _put(r, q, rq)
        return qs, r
    return decompositions.qr(a, mode)


STAND_INS = {np.linalg.det: det, np.linalg.slogdet: slogdet, np.linalg.inv: inv,
             np.linalg.solve: solve, np.linalg.cholesky: cholesky, np.linalg.eigh: eigh,
             np.linalg.eigvalsh: eigvalsh, np.linalg.svd: svd, np.linalg.pinv: pinv,
             np.linalg.qr: qr, np.linalg.matrix_power: matrix_power}
