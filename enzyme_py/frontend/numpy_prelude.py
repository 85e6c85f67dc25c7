"""NumPy functions written in the Python subset itself: a call of `np.diff` compiles this
module's `diff` as it compiles a helper of the user's module (specialized on the argument
types, inlined before differentiation).

Each stand-in computes what NumPy computes for the signature it has (no other keywords: a
call with one is refused, naming the function); a function whose NumPy meaning depends on the
rank in ways the subset cannot test (`np.flip`, `np.diag`, `np.roll`: `arrays.rearrange`), or
whose derivative a direct formula gets wrong at ties (`np.logaddexp` at a == b:
`arrays.functions`), is a registered entry instead.

Invariants: only NumPy functions map to stand-ins (`stand_in`); the lookups the front end
records for the persistent cache are of the user's names (NumPy's objects), never of these.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from enzyme_py.frontend import numpy_prelude_decompositions as decompositions
from enzyme_py.frontend import numpy_prelude_linalg as linalg
from enzyme_py.frontend import numpy_prelude_signals as signals
from enzyme_py.frontend import numpy_prelude_stacks as stacks
from enzyme_py.frontend import numpy_prelude_svd as svd
from enzyme_py.frontend.ftypes import NoneType


def diff(a, n=1):
    """np.diff(a, n): a[i+1] - a[i] along the last axis, n times."""
    for _ in range(n):
        a = a[..., 1:] - a[..., :-1]
    return a


def ptp(a):
    """np.ptp(a): max minus min over all elements."""
    return np.max(a) - np.min(a)


def signbit(x):
    """np.signbit(x): is the sign bit set (-0.0, -inf and a negative NaN included)?"""
    return np.copysign(1.0, x) < 0.0


def float_power(x1, x2):
    """np.float_power(x1, x2): x1 ** x2 in float64 whatever the inputs' types."""
    if np.ndim(x1) == 0:
        return np.power(float(x1), x2 * 1.0)
    return np.power(x1.astype(np.float64), x2 * 1.0)


def logspace(start, stop, num=50, base=10.0):
    """np.logspace(start, stop, num, base): base ** np.linspace(start, stop, num)."""
    return np.power(base, np.linspace(start, stop, num))


def atleast_1d(a):
    """np.atleast_1d(a) of one argument: a number as a 1-element array, an array as it is."""
    if np.ndim(a) == 0:
        return np.array([a])
    return a


def atleast_2d(a):
    """np.atleast_2d(a) of one argument: a vector as one row, a number as a 1 x 1 array."""
    if np.ndim(a) == 0:
        return np.array([[a]])
    if np.ndim(a) == 1:
        return a[None, :]
    return a


def searchsorted(a, v):
    """np.searchsorted(a, v) (side 'left') of a sorted 1-D a: where v would go to keep it
    sorted, for a number or each element of an array (NaN sorts last, as NumPy's)."""
    if np.ndim(v) == 0:
        return _insertion_point(a, v)
    flat = v.ravel()
    out = np.empty(flat.shape[0], dtype=np.int64)
    for i in range(flat.shape[0]):
        out[i] = _insertion_point(a, flat[i])
    return out.reshape(v.shape)


def _insertion_point(a, v):
    """The first i with not a[i] < v (NaN last: a NaN v goes after every number)."""
    lo = 0
    hi = a.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < v or (v != v and a[mid] == a[mid]):
            lo = mid + 1
        else:
            hi = mid
    return lo


def count_nonzero(a):
    """np.count_nonzero(a): the number of nonzero (true) elements."""
    return np.sum(a != 0)


def flipud(a):
    """np.flipud(a): the first axis reversed."""
    return a[::-1, ...]


def fliplr(a):
    """np.fliplr(a): the second axis reversed."""
    return a[:, ::-1, ...]


def tril(m, k=0):
    """np.tril(m, k): the elements on and below the k-th diagonal (the last two axes)."""
    rows = np.arange(m.shape[-2])[:, None]
    cols = np.arange(m.shape[-1])[None, :]
    return m * (cols - rows <= k)


def triu(m, k=0):
    """np.triu(m, k): the elements on and above the k-th diagonal (the last two axes)."""
    rows = np.arange(m.shape[-2])[:, None]
    cols = np.arange(m.shape[-1])[None, :]
    return m * (cols - rows >= k)


def reciprocal(x):
    """np.reciprocal(x) of floats: 1 / x."""
    return 1.0 / x


def logical_and(a, b):
    return (a != 0) & (b != 0)


def logical_or(a, b):
    return (a != 0) | (b != 0)


def logical_xor(a, b):
    return (a != 0) ^ (b != 0)


def logical_not(a):
    return a == 0


def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


def multiply(a, b):
    return a * b


def divide(a, b):
    return a / b


def negative(a):
    return -a


def isnan(x):
    """np.isnan(x): only NaN differs from itself."""
    return x != x


def isinf(x):
    """np.isinf(x): +-inf."""
    return np.abs(x) == np.inf


def isfinite(x):
    """np.isfinite(x): neither NaN nor +-inf."""
    return np.abs(x) < np.inf


def nansum(a):
    """np.nansum(a): the sum of the elements that are not NaN (0 for none); no cotangent
    reaches a NaN element (as in JAX)."""
    return np.sum(np.where(a != a, 0.0, a))


def nanmean(a):
    """np.nanmean(a): the mean of the elements that are not NaN (NaN when all are)."""
    keep = a == a
    return np.sum(np.where(keep, a, 0.0)) / np.sum(keep)


def deg2rad(x):
    """np.deg2rad(x) (np.radians): x * (pi / 180), as NumPy's loop multiplies."""
    return x * (np.pi / 180.0)


def rad2deg(x):
    """np.rad2deg(x) (np.degrees): x * (180 / pi)."""
    return x * (180.0 / np.pi)


def remainder(x1, x2):
    """np.remainder(x1, x2) (np.mod): the remainder with the divisor's sign, Python's `%`."""
    return x1 % x2


def heaviside(x1, x2):
    """np.heaviside(x1, x2): 0 below zero, 1 above, x2 at zero, NaN at NaN (zero
    derivative in x1; x2's cotangent flows where x1 == 0, as in JAX)."""
    return np.where(x1 < 0, 0.0, np.where(x1 > 0, 1.0, np.where(x1 == 0, x2, x1)))


def rint(x):
    """np.rint(x): the nearest integer, halves to even; the sign of x kept on a zero
    result (np.rint(-0.3) is -0.0). x - floor(x) is exact below 2**52, and from there on
    every float is an integer already (infinities and NaN come back as they are)."""
    f = np.floor(x)
    d = x - f
    r = np.where(d > 0.5, f + 1.0, np.where(d < 0.5, f, np.where(f % 2.0 == 0.0, f, f + 1.0)))
    return np.copysign(np.where(d == d, r, x), x)


def round_(a, decimals=0):
    """np.round(a, decimals) (np.around): NumPy's method, rint of a scaled by 10**decimals
    (divided by 10**-decimals for decimals < 0), scaled back."""
    if decimals >= 0:
        scale = 10.0 ** decimals
        return rint(a * scale) / scale
    scale = 10.0 ** (-decimals)
    return rint(a / scale) * scale


def logaddexp2(x1, x2):
    """np.logaddexp2(x1, x2): log2(2**x1 + 2**x2), through np.logaddexp (stable; partials
    1/2 at ties, as JAX's)."""
    return np.logaddexp(x1 * _LN2, x2 * _LN2) / _LN2


_LN2 = 0.6931471805599453  # math.log(2.0)


def isclose(a, b, rtol=1e-05, atol=1e-08):
    """np.isclose(a, b, rtol, atol): |a - b| <= atol + rtol * |b|, or equal (equal
    infinities); NaN is close to nothing."""
    return (np.abs(a - b) <= atol + rtol * np.abs(b)) | (a == b)


def allclose(a, b, rtol=1e-05, atol=1e-08):
    """np.allclose(a, b, rtol, atol): every element isclose."""
    return np.all(isclose(a, b, rtol, atol))


def nanmax(a):
    """np.nanmax(a) of the whole array: the maximum of the elements that are not NaN (NaN
    when all are)."""
    keep = a == a
    top = np.max(np.where(keep, a, -np.inf))
    return top if np.any(keep) else np.nan


def nanmin(a):
    """np.nanmin(a) of the whole array: the minimum of the elements that are not NaN (NaN
    when all are)."""
    keep = a == a
    low = np.min(np.where(keep, a, np.inf))
    return low if np.any(keep) else np.nan


def polyval(p, x):
    """np.polyval(p, x): Horner's scheme from the highest coefficient, as NumPy's loop
    (`y = y * x + p[i]` from zeros)."""
    y = x * 0.0
    for i in range(len(p)):
        y = y * x + p[i]
    return y


def sort(a, axis=-1):
    """np.sort(a, axis) of a 1-D or 2-D array (`axis=None`: the flattened array): ascending,
    NaN last, as NumPy's: `a[argsort(a)]` along the axis. The order is found on integers
    only, so a gradient keeps no record of the merges (1e5 elements: 5 MB of heap instead of
    80 MB for a merge that moves the values) and moves each cotangent to where its element
    went."""
    if axis is None:
        flat = a.flatten()
        return flat[_argsort_1d(flat)]
    order = argsort(a, axis)  # (which checks the axis)
    if np.ndim(a) == 1:
        return a[order]
    out = a.copy()
    if axis == 0 or axis == -2:
        for j in range(a.shape[1]):
            out[:, j] = a[:, j][order[:, j]]
    else:
        for i in range(a.shape[0]):
            out[i] = a[i][order[i]]
    return out


def argsort(a, axis=-1):
    """np.argsort(a, axis) of a 1-D or 2-D array (`axis=None`: the flattened array): the
    indices that sort it along the axis (NaN last), stable (NumPy's kind='stable'; its
    default sort may order equal elements otherwise)."""
    if axis is None:
        return _argsort_1d(a.flatten())
    if np.ndim(a) == 1:
        if axis != 0 and axis != -1:
            raise np.exceptions.AxisError("axis is out of bounds for array of dimension 1")
        return _argsort_1d(a)
    out = np.zeros(a.shape, dtype=np.int64)
    if axis == 1 or axis == -1:
        for i in range(a.shape[0]):
            out[i] = _argsort_1d(a[i])
    elif axis == 0 or axis == -2:
        for j in range(a.shape[1]):
            out[:, j] = _argsort_1d(a[:, j])
    else:
        raise np.exceptions.AxisError("axis is out of bounds for array of dimension 2")
    return out


def _argsort_1d(a):
    """The stable sorting indices of a 1-D array (NaN last). A bottom-up merge sort (n log n)
    of indices. The merge picks with a select, not a branch: both candidates are read (at
    clamped positions) and the comparison decides which is stored and which side moves on (a
    third of the compile time and two thirds of the gradient time of a branching merge)."""
    n = a.shape[0]
    src = np.arange(n)
    dst = np.empty_like(src)
    width = 1
    while width < n:
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i = lo
            j = mid
            for k in range(lo, hi):
                p = src[min(i, mid - 1)]
                q = src[min(j, hi - 1)]
                x = a[p]
                y = a[q]
                left = (i < mid) & ((j >= hi) | (x <= y) | (y != y))
                dst[k] = p if left else q
                step = int(left)
                i += step
                j += 1 - step
            lo += 2 * width
        src, dst = dst, src
        width *= 2
    return src


def _median_of_sorted(s):
    """The median of the sorted 1-D `s` (NaN last): its middle element, or the mean of the
    two middle ones; NaN when any element is NaN or there is none."""
    n = s.shape[0]
    if n == 0 or s[n - 1] != s[n - 1]:
        return np.nan
    if n % 2 == 1:
        return s[n // 2] * 1.0
    return (s[n // 2 - 1] + s[n // 2]) / 2.0


def _quantile_of_sorted(s, q):
    """NumPy's default ('linear') quantile q in [0, 1] of the sorted 1-D `s` (NaN last),
    computed as NumPy computes it (`_lerp`); NaN when any element is NaN or there is none.
    (Of float32 elements the interpolation runs in float64, NumPy's in float32: the result
    may differ from NumPy's in its last bit.)"""
    n = s.shape[0]
    if n == 0 or s[n - 1] != s[n - 1]:
        return np.nan
    at = (n - 1) * q
    below = np.floor(at)
    lo = int(below)
    hi = min(lo + 1, n - 1)
    gamma = at - below
    x = s[lo] * 1.0
    y = s[hi] * 1.0
    diff = y - x
    if gamma >= 0.5:
        return y - diff * (1.0 - gamma)
    return x + diff * gamma


def _of_sorted(s, q):
    """The median (`q` None) or the quantile q of the sorted 1-D `s`."""
    if q is None:
        return _median_of_sorted(s)
    return _quantile_of_sorted(s, q)


def _order_statistic(a, q, axis):
    """The median (`q` None) or the quantile q of a 1-D or 2-D `a`, of all its elements
    (`axis` None) or along an int axis (checked by `argsort`): one per column for axis 0 or
    -2, one per row otherwise, in the dtype NumPy gives them (float64 for integers, float32
    for float32: the NaNs the array starts from have it)."""
    if axis is None:
        return _of_sorted(sort(a.ravel()), q)
    if np.ndim(a) == 1:
        return _of_sorted(sort(a, axis), q)
    s = sort(a, axis)
    if axis == 0 or axis == -2:
        out = np.sum(a[:1] * 1.0, axis=0) * 0.0 + np.nan
        for j in range(a.shape[1]):
            out[j] = _of_sorted(s[:, j], q)
        return out
    out = np.sum(a[:, :1] * 1.0, axis=1) * 0.0 + np.nan
    for i in range(a.shape[0]):
        out[i] = _of_sorted(s[i], q)
    return out


def median(a, axis=None, keepdims=False):
    """np.median(a, axis) of a 1-D or 2-D array (`axis=None`: all elements): see
    `_median_of_sorted`. (`keepdims=True` is `median_keepdims`, chosen at the call.)"""
    return _order_statistic(a, None, axis)


def quantile(a, q, axis=None, keepdims=False):
    """np.quantile(a, q, axis) of a 1-D or 2-D array (`axis=None`: all elements) for one q
    in [0, 1]: see `_quantile_of_sorted`. (`keepdims=True`: `quantile_keepdims`.)"""
    return _order_statistic(a, q, axis)


def percentile(a, q, axis=None, keepdims=False):
    """np.percentile(a, q, axis) for one q in [0, 100]: quantile(a, q / 100, axis)."""
    return _order_statistic(a, q / 100.0, axis)


def _kept(a, r, axis):
    """The reduction `r` of `a` along `axis` (None: all axes) with the reduced axes kept at
    length 1, as NumPy's keepdims=True."""
    if axis is None:
        if np.ndim(a) == 1:
            return np.full(1, r)
        return np.full((1, 1), r)
    if np.ndim(a) == 1:
        return np.full(1, r)
    if axis == 0 or axis == -2:
        return r[None, :]
    return r[:, None]


def median_keepdims(a, axis=None, keepdims=True):
    """np.median(a, axis, keepdims=True)."""
    return _kept(a, median(a, axis), axis)


def quantile_keepdims(a, q, axis=None, keepdims=True):
    """np.quantile(a, q, axis, keepdims=True)."""
    return _kept(a, quantile(a, q, axis), axis)


def percentile_keepdims(a, q, axis=None, keepdims=True):
    """np.percentile(a, q, axis, keepdims=True)."""
    return _kept(a, percentile(a, q, axis), axis)


def average(a, weights=None):
    """np.average(a, weights) of the whole array: the mean, or sum(a * w) / sum(w)."""
    if weights is None:
        return np.mean(a)
    if a.ndim != weights.ndim or a.size != weights.size:
        raise TypeError("Axis must be specified when shapes of a and weights differ.")
    scale = np.sum(weights)
    if scale == 0.0:
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    return np.sum(a * weights) / scale


def interp(x, xp, fp, left=None, right=None):
    """np.interp(x, xp, fp, left, right): the piecewise linear interpolant of the points
    (xp, fp) (xp increasing) at x, a number or an array; fp[0] / fp[-1] (or left / right)
    outside. Computed as NumPy computes it; at a knot inside, the gradient is the slope of
    the segment that starts there (as JAX's)."""
    low = fp[0] * 1.0 if left is None else left * 1.0
    high = fp[xp.shape[0] - 1] * 1.0 if right is None else right * 1.0
    if np.ndim(x) == 0:
        return _interp_at(x * 1.0, xp, fp, low, high)
    flat = x.ravel()
    out = np.empty(flat.shape[0])
    for i in range(flat.shape[0]):
        out[i] = _interp_at(flat[i] * 1.0, xp, fp, low, high)
    return out.reshape(x.shape)


def _interp_at(v, xp, fp, low, high):
    """`interp` at one number v (NumPy's arr_interp: the segment by bisection, its line,
    then the other end of the segment where that gives NaN)."""
    n = xp.shape[0]
    if v > xp[n - 1]:
        return high
    if v < xp[0]:
        return low
    if v == xp[n - 1]:
        return fp[n - 1] * 1.0
    lo = 0
    hi = n - 1
    while hi - lo > 1:  # the last j with xp[j] <= v
        mid = (lo + hi) // 2
        if xp[mid] <= v:
            lo = mid
        else:
            hi = mid
    slope = (fp[lo + 1] - fp[lo]) / (xp[lo + 1] - xp[lo])
    r = slope * (v - xp[lo]) + fp[lo]  # (fp[lo] itself at the knot)
    if r != r:
        r = slope * (v - xp[lo + 1]) + fp[lo + 1]
        if r != r and (fp[lo] == fp[lo + 1] or xp[lo] == v):
            r = fp[lo] * 1.0
    return r


def trapezoid(y, x=None, dx=1.0):
    """np.trapezoid(y, x, dx) along the last axis: NumPy's sum of d * (y[1:] + y[:-1]) / 2,
    d the differences of x (1-D, or y's shape), else dx."""
    if x is None:
        return np.sum(dx * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)
    return np.sum((x[..., 1:] - x[..., :-1]) * (y[..., 1:] + y[..., :-1]) / 2.0, axis=-1)


def cross(a, b):
    """np.cross(a, b) of 3-vectors along the last axis (broadcast over the others)."""
    c0 = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    c1 = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    c2 = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    if a.ndim == 1 and b.ndim == 1:
        return np.array([c0, c1, c2])
    return np.stack((c0, c1, c2), axis=-1)


def kron(a, b):
    """np.kron(a, b) of two vectors or two matrices: the blocks a[i, j] * b."""
    if a.ndim == 1:
        return (a[:, None] * b[None, :]).reshape(a.shape[0] * b.shape[0])
    return (a[:, None, :, None] * b[None, :, None, :]).reshape(
        a.shape[0] * b.shape[0], a.shape[1] * b.shape[1])


def take(a, indices):
    """np.take(a, indices) without axis: elements of the flattened array (an index or an
    integer array of them; negative ones count from the end)."""
    return a.ravel()[indices]


def bincount(x, weights=None, minlength=0):
    """np.bincount(x, weights, minlength) of a 1-D array of non-negative integers: out[v] is
    how many x[i] equal v (int64), or the sum of their weights (float64); its length is
    max(max(x) + 1, minlength). The weights' cotangent is out's, gathered at x."""
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    n = minlength
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise ValueError("'list' argument must have no negative elements")
        n = max(n, x[i] + 1)
    if weights is None:
        counts = np.zeros(n, dtype=np.int64)
        for i in range(x.shape[0]):
            counts[x[i]] += 1
        return counts
    if weights.shape[0] != x.shape[0]:
        raise ValueError("The weights and list don't have the same length.")
    sums = np.zeros(n)
    for i in range(x.shape[0]):
        sums[x[i]] += weights[i]
    return sums


def unique(ar):
    """np.unique(ar): the sorted distinct values of the flattened array (NaNs as one, last).
    Of equal values the first in the sorted order is kept (`sort` is stable), and it takes
    the cotangent."""
    a = sort(ar.ravel())
    n = a.shape[0]
    keep = np.ones(n, dtype=np.bool_)
    for i in range(1, n):
        keep[i] = (a[i] != a[i - 1]) & ((a[i] == a[i]) | (a[i - 1] == a[i - 1]))
    return a[keep]


_STAND_INS = {np.diff: diff, np.ptp: ptp, np.count_nonzero: count_nonzero,
              np.flipud: flipud, np.fliplr: fliplr, np.tril: tril, np.triu: triu,
              np.reciprocal: reciprocal, np.logical_and: logical_and,
              np.logical_or: logical_or, np.logical_xor: logical_xor,
              np.logical_not: logical_not, np.add: add, np.subtract: subtract,
              np.multiply: multiply, np.divide: divide, np.true_divide: divide,
              np.negative: negative, np.isnan: isnan, np.isinf: isinf,
              np.isfinite: isfinite, np.nansum: nansum, np.nanmean: nanmean,
              np.deg2rad: deg2rad, np.radians: deg2rad, np.rad2deg: rad2deg,
              np.degrees: rad2deg, np.remainder: remainder, np.heaviside: heaviside,
              np.rint: rint, np.round: round_, np.around: round_, np.logaddexp2: logaddexp2,
              np.isclose: isclose, np.allclose: allclose, np.nanmax: nanmax,
              np.nanmin: nanmin, np.polyval: polyval, np.sort: sort, np.argsort: argsort,
              np.median: median, np.quantile: quantile, np.percentile: percentile,
              np.trapezoid: trapezoid, np.cross: cross, np.kron: kron, np.take: take,
              np.average: average, np.interp: interp, np.signbit: signbit,
              np.float_power: float_power, np.logspace: logspace, np.atleast_1d: atleast_1d,
              np.atleast_2d: atleast_2d, np.searchsorted: searchsorted, np.bincount: bincount,
              np.unique: unique, **signals.STAND_INS,
              **svd.STAND_INS, **stacks.STAND_INS}

#: the modules whose functions are stand-ins or their helpers
MODULES = frozenset((__name__, signals.__name__, linalg.__name__, decompositions.__name__,
                     svd.__name__, stacks.__name__))
#: their source files (an error site in one is moved to the user's call)
FILES = frozenset((__file__, signals.__file__, linalg.__file__, decompositions.__file__,
                   svd.__file__, stacks.__file__))


#: stand-in -> (NumPy's name, the rank each array argument must have (a tuple: any of those;
#: None: any), the positions that must be numbers): calls outside them are refused at the call
_SIGNATURES: dict[object, tuple[str, tuple[int | tuple[int, ...] | None, ...], tuple[int, ...]]] = {
    sort: ("np.sort", (None,), ()), argsort: ("np.argsort", (None,), ()),
    median: ("np.median", (None,), ()), median_keepdims: ("np.median", (None,), ()),
    quantile: ("np.quantile", (None, None), (1,)),
    quantile_keepdims: ("np.quantile", (None, None), (1,)),
    percentile: ("np.percentile", (None, None), (1,)),
    percentile_keepdims: ("np.percentile", (None, None), (1,)),
    kron: ("np.kron", (None, None), ()), interp: ("np.interp", (None, 1, 1), ()),
    searchsorted: ("np.searchsorted", (1, None), ()),
    bincount: ("np.bincount", (1, 1), (2,)),
    signals.convolve: ("np.convolve", (1, 1), ()),
    signals.correlate: ("np.correlate", (1, 1), ()),
    signals.meshgrid: ("np.meshgrid", (1, 1), ()), signals.gradient: ("np.gradient", (1,), ()),
    signals.vander: ("np.vander", (1,), ()),
    signals.cumulative_sum: ("np.cumulative_sum", (1,), ()),
    signals.cov: ("np.cov", (None, None), ()), signals.corrcoef: ("np.corrcoef", (None, None), ()),
    stacks.solve: ("np.linalg.solve", ((2, 3), None), ()),
    stacks.inv: ("np.linalg.inv", ((2, 3),), ()),
    stacks.det: ("np.linalg.det", ((2, 3),), ()),
    stacks.slogdet: ("np.linalg.slogdet", ((2, 3),), ()),
    stacks.cholesky: ("np.linalg.cholesky", ((2, 3),), ()),
    stacks.matrix_power: ("np.linalg.matrix_power", ((2, 3),), (1,)),
    stacks.qr: ("np.linalg.qr", ((2, 3),), ()),
    stacks.eigh: ("np.linalg.eigh", ((2, 3),), ()),
    stacks.eigvalsh: ("np.linalg.eigvalsh", ((2, 3),), ()),
    stacks.svd: ("np.linalg.svd", ((2, 3),), ()),
    stacks.svd_values: ("np.linalg.svd", ((2, 3),), ()),
    stacks.pinv: ("np.linalg.pinv", ((2, 3),), ()), svd.lstsq: ("np.linalg.lstsq", (2, None), ()),
}


def refusal(fn: object, arg_types: list[Any], call: ast.Call | None = None
            ) -> tuple[str, str] | None:
    """(message, hint) when the stand-in `fn` cannot compute NumPy's result for arguments
    of these types (an array of another rank, an array where it takes one number) or for
    the keywords of `call`."""
    elem = getattr(arg_types[0], "elem", None) if arg_types else None
    if fn in (sort, argsort) and getattr(arg_types[0], "ndim", 1) > 2 and not (
            len(arg_types) > 1 and isinstance(arg_types[1], NoneType)):
        name = "np.sort" if fn is sort else "np.argsort"
        return (f"{name} of a {arg_types[0].ndim}-D array is not supported (1-D and 2-D "
                "arrays, or axis=None)", f"{name}(a, axis=None), or a loop over 2-D slices")
    if fn is bincount and elem is not None and not elem.is_int:
        return (f"np.bincount of {elem} values: NumPy takes non-negative integers only",
                "np.bincount(x.astype(np.int64)) of whole numbers")
    if fn is signals.nan_to_num and elem is not None and elem.name != "f64":
        return ("np.nan_to_num of an array other than float64 is not supported",
                "np.nan_to_num(x.astype(np.float64))")
    sig = _SIGNATURES.get(fn)
    if sig is None:
        return None
    name, ranks, numbers = sig
    keyword = _FORM_KEYWORD.get(fn)
    given = _keyword(call, keyword) if keyword else None
    if given is not None and not (isinstance(given, ast.Constant) and
                                  isinstance(given.value, bool)):
        return (f"{name}(..., {keyword}=...) needs {keyword} written as True or False (the "
                "result's shape depends on it)", f"{name}(a, ..., {keyword}=True)")
    if fn in _ALONG_AXIS and getattr(arg_types[0], "ndim", 0) > 2 and _has_axis(
            call, 1 if name == "np.median" else 2):
        return (f"{name} along an axis of a {arg_types[0].ndim}-D array is not supported "
                "(1-D and 2-D arrays, or axis=None)", f"{name} of 2-D slices in a loop")
    if fn is signals.meshgrid and len(arg_types) > 2 and getattr(arg_types[2], "ndim", None):
        return ("np.meshgrid of more than two arrays is not supported",
                "np.meshgrid(x, y); for three axes broadcast x[:, None, None] and friends")
    if fn in (signals.cov, signals.corrcoef) and any(
            getattr(t, "ndim", 0) > 2 for t in arg_types[:2]):
        return (f"{name} of an array of more than 2 dimensions is not supported (NumPy "
                "refuses it too)", f"{name}(m) of a vector or a matrix")
    if fn is stacks.solve and len(arg_types) > 1 and getattr(arg_types[1], "ndim", 1) not in (
            (1, 2, 3) if getattr(arg_types[0], "ndim", 2) == 3 else (1, 2)):
        return ("np.linalg.solve with a right-hand side of "
                f"{getattr(arg_types[1], 'ndim', 0)} dimensions is not supported here",
                "b a vector or a matrix of columns; a stack (B, M, K) with a stack a")
    if fn is kron:
        dims = [getattr(t, "ndim", 0) for t in arg_types]
        if len(dims) == 2 and (dims[0] != dims[1] or dims[0] not in (1, 2)):
            return (f"np.kron of arrays of ranks {dims[0]} and {dims[1]} is not supported",
                    "two vectors or two matrices")
    for k, t in enumerate(arg_types):
        ndim = getattr(t, "ndim", None)
        if k in numbers and ndim is not None:
            return (f"{name}(a, q) with an array q is not supported",
                    f"one number q: {name}(a, q) for each q")
        want = ranks[k] if k < len(ranks) else None
        if isinstance(want, tuple):  # a matrix or a stack of matrices
            if ndim is not None and ndim not in want:
                return (f"{name} of a {ndim}-D array is not supported (it takes a matrix or "
                        "a 3-D stack of them)", f"{name} of a[i] in a loop over the leading "
                        "axes")
            continue
        if want is not None and ndim is not None and ndim != want:
            return (f"{name} of a {ndim}-D array is not supported (it takes {want}-D ones "
                    "here)", f"{name} of 1-D arrays; a loop over rows for x[i]")
    return None


def is_stand_in(fn: object) -> bool:
    """Is `fn` a function of this module (a stand-in, or a helper of one)?"""
    return getattr(fn, "__module__", None) in MODULES


#: stand-ins with another form chosen at the call by a keyword written there as True or
#: False (it decides the result's rank or type): (the keyword, the value that picks the
#: other form, that form)
_LITERAL_FORMS = {median: ("keepdims", True, median_keepdims),
                  quantile: ("keepdims", True, quantile_keepdims),
                  percentile: ("keepdims", True, percentile_keepdims),
                  stacks.svd: ("compute_uv", False, stacks.svd_values)}
#: every stand-in of those, by the keyword that picks it
_FORM_KEYWORD = {f: kw for base, (kw, _, other) in _LITERAL_FORMS.items() for f in (base, other)}


def _keyword(call: ast.Call | None, name: str) -> ast.expr | None:
    for k in call.keywords if call is not None else ():
        if k.arg == name:
            return k.value
    return None


#: the stand-ins that reduce along `axis=` (those with a keepdims form, and that form)
_ALONG_AXIS = frozenset(f for f, keyword in _FORM_KEYWORD.items() if keyword == "keepdims")


def _has_axis(call: ast.Call | None, position: int) -> bool:
    """Does `call` give an axis (at `position` or as a keyword) other than a literal None?"""
    if call is None:
        return False
    given = [k.value for k in call.keywords if k.arg == "axis"] + call.args[position:position + 1]
    return any(not (isinstance(v, ast.Constant) and v.value is None) for v in given)


def stand_in(fn: object, call: ast.Call | None = None) -> object:
    """The function of this module that computes NumPy's `fn` (called as `call`, when given:
    a `keepdims=True` written there picks that form), else `fn` itself."""
    try:
        out = _STAND_INS.get(fn, fn)  # type: ignore[call-overload]
    except TypeError:  # (an unhashable object)
        return fn
    form = _LITERAL_FORMS.get(out)
    if form is not None:
        given = _keyword(call, form[0])
        if isinstance(given, ast.Constant) and given.value is form[1]:
            return form[2]
    return out
