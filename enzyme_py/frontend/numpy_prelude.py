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

import numpy as np


def diff(a):
    """np.diff(a): a[i+1] - a[i] along the last axis (n=1)."""
    return a[..., 1:] - a[..., :-1]


def ptp(a):
    """np.ptp(a): max minus min over all elements."""
    return np.max(a) - np.min(a)


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


_STAND_INS = {np.diff: diff, np.ptp: ptp, np.count_nonzero: count_nonzero,
              np.flipud: flipud, np.fliplr: fliplr, np.tril: tril, np.triu: triu,
              np.reciprocal: reciprocal, np.logical_and: logical_and,
              np.logical_or: logical_or, np.logical_xor: logical_xor,
              np.logical_not: logical_not, np.add: add, np.subtract: subtract,
              np.multiply: multiply, np.divide: divide, np.true_divide: divide,
              np.negative: negative, np.isnan: isnan, np.isinf: isinf,
              np.isfinite: isfinite, np.nansum: nansum, np.nanmean: nanmean}


def stand_in(fn: object) -> object:
    """The function of this module that computes NumPy's `fn`, else `fn` itself."""
    try:
        return _STAND_INS.get(fn, fn)  # type: ignore[call-overload]
    except TypeError:  # (an unhashable object)
        return fn
