"""More NumPy stand-ins written in the Python subset (see `numpy_prelude`, which maps NumPy's
functions to them): signals (`np.convolve`, `np.correlate`, `np.gradient`), grids and
matrices built from vectors (`np.meshgrid`, `np.vander`, `np.tri`, `np.diagflat`), statistics
(`np.cov`, `np.corrcoef`, the NaN-skipping `np.nanvar`, `np.nanstd`, `np.nanprod`,
`np.nancumsum`) and small element-wise ones (`np.sinc`, `np.fix`, `np.nan_to_num`).

A string parameter (`mode`, `indexing`) is a compile-time value (`ftypes.Text`): only the
branch it selects is compiled, and an unknown one raises NumPy's `ValueError` at run time.
NumPy's functions called here (`np.diag`, `np.atleast_2d`, ...) resolve to their own
entries or stand-ins, as in user code.

Invariants: each function computes NumPy's result for the signature it has (the ranks
`numpy_prelude._SIGNATURES` admits); a case whose result's rank NumPy decides from run-time
values (`np.cov` of a one-row matrix, a number in NumPy) raises instead of answering with
another shape; this module imports nothing of the package (`numpy_prelude` imports it).
"""

from __future__ import annotations

import numpy as np

_BIGGEST = 1.7976931348623157e308  # np.finfo(np.float64).max


def convolve(a, v, mode="full"):
    """np.convolve(a, v, mode) of two 1-D arrays: the full discrete convolution, or its
    central part of max(len) ('same') or where the two overlap entirely ('valid')."""
    n = a.shape[0]
    m = v.shape[0]
    if n == 0:
        raise ValueError("a cannot be empty")
    if m == 0:
        raise ValueError("v cannot be empty")
    full = np.zeros(n + m - 1)
    for i in range(n):
        full[i:i + m] += a[i] * v
    big = max(n, m)
    small = min(n, m)
    if mode == "full":
        return full
    elif mode == "same":
        start = (small - 1) // 2
        return full[start:start + big]
    elif mode == "valid":
        return full[small - 1:big]
    raise ValueError("mode must be one of 'valid', 'same', or 'full'")


def correlate(a, v, mode="valid"):
    """np.correlate(a, v, mode) of two 1-D arrays: c[k] = sum_n a[n + k] v[n], NumPy's
    definition: the convolution with v reversed; for a v longer than a, NumPy's, that of
    v and a reversed, reversed (the 'same' window sits elsewhere)."""
    if a.shape[0] < v.shape[0]:
        return np.convolve(v, a[::-1], mode)[::-1]
    return np.convolve(a, v[::-1], mode)


def meshgrid(x, y, indexing="xy"):
    """np.meshgrid(x, y, indexing) of two 1-D arrays: (X, Y) of shape (len(y), len(x))
    ('xy', Cartesian) or (len(x), len(y)) ('ij', matrix)."""
    nx = x.shape[0]
    ny = y.shape[0]
    if indexing == "xy":
        return (np.zeros((ny, 1), dtype=x.dtype) + x[None, :],
                np.zeros((1, nx), dtype=y.dtype) + y[:, None])
    elif indexing == "ij":
        return (np.zeros((1, ny), dtype=x.dtype) + x[:, None],
                np.zeros((nx, 1), dtype=y.dtype) + y[None, :])
    raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")


def gradient(f, dx=1.0):
    """np.gradient(f, dx) of a 1-D array with uniform spacing dx: central differences
    inside, one-sided ones at the ends (edge_order 1)."""
    n = f.shape[0]
    if n < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                         "least (edge_order + 1) elements are required.")
    out = np.empty(n)
    out[1:n - 1] = (f[2:] - f[:n - 2]) / (2.0 * dx)
    out[0] = (f[1] - f[0]) / dx
    out[n - 1] = (f[n - 1] - f[n - 2]) / dx
    return out


def ediff1d(ary):
    """np.ediff1d(ary): the differences of consecutive elements of the flattened array."""
    flat = ary.ravel()
    return flat[1:] - flat[:-1]


def vander(x, N=None, increasing=False):
    """np.vander(x, N, increasing) of a 1-D array: the columns x**(N-1), ..., x**0 (or
    increasing), each column the one before times x, as NumPy multiplies them."""
    n = x.shape[0]
    cols = n if N is None else N
    out = np.empty((n, cols))
    for i in range(n):
        power = 1.0
        for j in range(cols):
            if increasing:
                out[i, j] = power
            else:
                out[i, cols - 1 - j] = power
            power = power * x[i]
    return out


def tri(N, M=None, k=0):
    """np.tri(N, M, k): an N x M float array with ones at and below the k-th diagonal."""
    cols = N if M is None else M
    return (np.arange(cols)[None, :] <= np.arange(N)[:, None] + k) * 1.0


def diagflat(v, k=0):
    """np.diagflat(v, k): the flattened input on the k-th diagonal of a square matrix."""
    flat = v.ravel()
    n = flat.shape[0]
    size = n + abs(k)
    out = np.zeros((size, size), dtype=flat.dtype)
    for i in range(n):
        if k >= 0:
            out[i, i + k] = flat[i]
        else:
            out[i - k, i] = flat[i]
    return out


def sinc(x):
    """np.sinc(x): sin(pi x) / (pi x), 1 at 0 (NumPy's way: x = 0 taken as 1e-20)."""
    y = np.pi * np.where(x == 0, 1.0e-20, x)
    return np.sin(y) / y


def fix(x):
    """np.fix(x): rounded towards zero (floor where x >= 0, else ceil)."""
    return np.where(x >= 0, np.floor(x), np.ceil(x))


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """np.nan_to_num(x, copy, nan, posinf, neginf) of float64 values: NaN, +inf and -inf
    replaced (by default with 0 and the largest finite numbers); a new array always."""
    high = _BIGGEST if posinf is None else posinf
    low = -_BIGGEST if neginf is None else neginf
    return np.where(x != x, nan, np.where(x == np.inf, high, np.where(x == -np.inf, low, x)))


def cov(m, y=None, rowvar=True, bias=False, ddof=None):
    """np.cov(m, y, rowvar, bias, ddof) of a 1-D or 2-D m (rows are variables), y's rows
    added: sum((X - mean) (X - mean)^T) / (N - ddof); a number for one variable."""
    if not rowvar:
        raise ValueError("np.cov with rowvar=False is not supported: pass m.T")
    if y is None:
        X = np.atleast_2d(m)
    else:
        X = np.concatenate((np.atleast_2d(m), np.atleast_2d(y)), axis=0)
    if m.ndim == 2 and y is None and X.shape[0] == 1:
        raise ValueError("np.cov of a one-row matrix is a number: pass the row itself")
    d = (0 if bias else 1) if ddof is None else ddof
    fact = X.shape[1] - d
    centered = X - np.mean(X, axis=1)[:, None]
    c = (centered @ centered.T) * (1.0 / fact)
    if m.ndim == 1 and y is None:
        return c[0, 0]
    return c


def corrcoef(x, y=None, rowvar=True):
    """np.corrcoef(x, y, rowvar): the covariance over the product of the standard
    deviations, clipped to [-1, 1] (for one variable c / c, as NumPy's)."""
    c = np.cov(x, y, rowvar)
    if x.ndim == 1 and y is None:
        return c / c
    stddev = np.sqrt(np.diag(c))
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return np.clip(c, -1.0, 1.0)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0):
    """np.nanvar(a, ddof=ddof) of the whole array: the variance of the elements that are
    not NaN (NaN when fewer than ddof + 1 are)."""
    if axis is not None or dtype is not None or out is not None:
        raise ValueError("np.nanvar and np.nanstd take the whole array here: no axis, dtype "
                         "or out")
    kept = a == a
    count = np.sum(kept)
    values = np.where(kept, a, 0.0)
    mean = np.sum(values) / count
    centered = np.where(kept, values - mean, 0.0)
    dof = count - ddof
    if dof <= 0:
        return np.nan
    return np.sum(centered * centered) / dof


def nanstd(a, axis=None, dtype=None, out=None, ddof=0):
    """np.nanstd(a, ddof=ddof): the square root of `nanvar`."""
    return np.sqrt(nanvar(a, axis, dtype, out, ddof))


def nanprod(a):
    """np.nanprod(a) of the whole array: the product with NaNs taken as one."""
    return np.prod(np.where(a == a, a, 1.0))


def nancumsum(a):
    """np.nancumsum(a) without axis: the running sum of the flattened array, NaNs as zero."""
    return np.cumsum(np.where(a == a, a, 0.0))


def cumulative_sum(x):
    """np.cumulative_sum(x) of a 1-D array: the running sum (include_initial False)."""
    return np.cumsum(x)


def append(arr, values):
    """np.append(arr, values) without axis: both flattened, one after the other."""
    return np.concatenate((np.ravel(arr), np.ravel(np.atleast_1d(values))))


STAND_INS = {np.convolve: convolve, np.correlate: correlate, np.meshgrid: meshgrid,
             np.gradient: gradient, np.ediff1d: ediff1d, np.vander: vander, np.tri: tri,
             np.diagflat: diagflat, np.sinc: sinc, np.fix: fix, np.nan_to_num: nan_to_num,
             np.cov: cov, np.corrcoef: corrcoef, np.nanvar: nanvar, np.nanstd: nanstd,
             np.nanprod: nanprod, np.nancumsum: nancumsum, np.cumulative_sum: cumulative_sum,
             np.append: append}
