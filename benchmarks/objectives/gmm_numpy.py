"""GMM objective of ADBench in NumPy form: broadcasting, einsum and axis= reductions.

The mathematics, sizes and data are those of `gmm` (the loop form; see its docstring),
written the way a NumPy user writes them: the centred points of every pair (point,
component) as one broadcast `x[:, None, :] - means[None, :, :]` (n x k x d), Q_k (x - mu_k)
as the diagonal product plus an einsum with the strictly lower factors (k x d x d, filled
column by column from icf), and the logsumexp over components with np.max / np.exp /
np.log / np.sum(axis=-1, keepdims=True).  The Wishart constant is scalar code (the
recurrence of the loop form: the front end has no lgamma).

The JAX reference is this source with `np` bound to `jax.numpy` (`same_source`), the one
slice write (`lower_factors`) swapped for its `.at[].set` twin.  Invariants: the value
equals the loop form's to rounding; the arguments are never written.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarks.objectives.gmm import PI, Size, make_args, sizes
from benchmarks.objectives.gmm import _log_gamma_distrib_half as log_gamma_distrib_half
from benchmarks.objectives.same_source import with_jax_numpy

NAME = "gmm_numpy"
TITLE = "GMM (ADBench), NumPy form"
FORM = "numpy"
LOOP_FORM = "gmm"
ARGNUMS = (0, 1, 2)
C_SOURCE = None  # the C form is the loop form's

__all__ = ["ARGNUMS", "C_SOURCE", "FORM", "LOOP_FORM", "NAME", "TITLE", "Size", "jax_primal",
           "make_args", "primal", "sizes"]


def logsumexp(v):
    """log(sum(exp(v))) along the last axis, shifted by the maximum (keepdims)."""
    mx = np.max(v, axis=-1, keepdims=True)
    return np.log(np.sum(np.exp(v - mx), axis=-1, keepdims=True)) + mx


def lower_factors(icf, d, k):
    """The strictly lower parts of the Q_k (k x d x d), from icf[:, d:] column by column."""
    ls = np.zeros((k, d, d))
    li = d
    for i in range(d):
        nel = d - i - 1
        ls[:, i + 1:, i] = icf[:, li:li + nel]
        li += nel
    return ls


def _jax_lower_factors(icf, d, k):
    """`lower_factors` with `.at[].set` for the slice write (jax.numpy arrays are immutable)."""
    ls = np.zeros((k, d, d))
    li = d
    for i in range(d):
        nel = d - i - 1
        ls = ls.at[:, i + 1:, i].set(icf[:, li:li + nel])
        li += nel
    return ls


def primal(alphas, means, icf, x, gamma, m, d, k, n):
    """ADBench's gmm_objective in array form; a float."""
    qdiags = np.exp(icf[:, :d])
    sum_qs = np.sum(icf[:, :d], axis=1)
    ls = lower_factors(icf, d, k)
    xc = x[:, None, :] - means[None, :, :]
    qx = qdiags[None, :, :] * xc + np.einsum("kji,nki->nkj", ls, xc)
    main_term = alphas[None, :] + sum_qs[None, :] - 0.5 * np.sum(qx * qx, axis=2)
    slse = np.sum(logsumexp(main_term))
    constant = -n * d * 0.5 * math.log(2.0 * PI)
    err = constant + slse - n * logsumexp(alphas)[0]
    nw = d + m + 1
    c = nw * d * (np.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_distrib_half(nw, d)
    frobenius = np.sum(qdiags * qdiags, axis=1) + np.sum(icf[:, d:] * icf[:, d:], axis=1)
    prior = np.sum(0.5 * gamma * gamma * frobenius - m * sum_qs)
    return err + prior - k * c


def jax_primal(alphas, means, icf, x, gamma, m, d, k, n):
    """`primal`'s own source run by jax.numpy (ints static)."""
    return with_jax_numpy(primal, lower_factors=_jax_lower_factors)(
        alphas, means, icf, x, gamma, m, d, k, n)
