"""GMM objective of ADBench: the log-likelihood of a Gaussian mixture plus a Wishart prior.

The mathematics is ADBench's `gmm_objective` (src/cpp/shared/gmm.h) term for term:

    err = CONSTANT + sum_i logsumexp_k(alpha_k + sum(q_k) - 0.5 |Q_k (x_i - mu_k)|^2)
          - n logsumexp(alpha) + log_wishart_prior

with CONSTANT = -n d / 2 log(2 PI), Q_k lower triangular with diagonal exp(q_k) (q_k = the
first d entries of icf[k]) and strictly lower part icf[k, d:] stored column by column, and
the prior 0.5 gamma^2 (|diag Q_k|^2 + |icf[k, d:]|^2) - m sum(q_k) summed over k, minus
k C with C = N d (log gamma - 0.5 log 2) - log_gamma_distrib(N / 2, d), N = d + m + 1.
PI is ADBench's truncated 3.14159265359 wherever ADBench uses it.  The gradient is taken
with respect to alphas (k), means (k x d) and icf (k x d(d+1)/2).  Data follow ADBench's
generator: alphas, icf and x standard normal, means uniform on [0, 1), gamma = 1, m = 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

NAME = "gmm"
TITLE = "GMM (ADBench)"
ARGNUMS = (0, 1, 2)
C_SOURCE = Path(__file__).with_suffix(".c")

PI = 3.14159265359  # ADBench's defs.h


@dataclass(frozen=True)
class Size:
    """d dimensions, k components, n points, Wishart prior (gamma, m)."""

    label: str
    d: int
    k: int
    n: int
    gamma: float = 1.0
    m: int = 0


def sizes(quick: bool) -> list[Size]:
    """ADBench's d in {2, 10, 20} x K in {5, 10, 25} at n = 1000, and one case at n = 10^4."""
    if quick:
        return [Size("d2 K5 n20", 2, 5, 20)]
    out = [Size(f"d{d} K{k} n1k", d, k, 1000) for d in (2, 10, 20) for k in (5, 10, 25)]
    out.append(Size("d10 K25 n10k", 10, 25, 10_000))
    return out


def make_args(size: Size, seed: int = 0) -> tuple:
    """(alphas, means, icf, x, gamma, m, d, k, n), drawn like ADBench's generator."""
    rng = np.random.default_rng(seed)
    d, k, n = size.d, size.k, size.n
    alphas = rng.standard_normal(k)
    means = rng.uniform(0.0, 1.0, (k, d))
    icf = rng.standard_normal((k, d * (d + 1) // 2))
    x = rng.standard_normal((n, d))
    return alphas, means, icf, x, float(size.gamma), int(size.m), d, k, n


# --- the Python-subset form ------------------------------------------------------------------


def _logsumexp(k, v):
    """log(sum(exp(v[:k]))) shifted by the maximum, as ADBench's `logsumexp`."""
    mx = v[0]
    for i in range(1, k):
        mx = max(mx, v[i])
    s = 0.0
    for i in range(k):
        s += math.exp(v[i] - mx)
    return math.log(s) + mx


def _lgamma_half(h):
    """lgamma(h / 2) for an integer h >= 1, by the recurrence lgamma(a + 1) = lgamma(a) + log a."""
    if h % 2 == 0:
        out = 0.0
        a = 1.0
    else:
        out = 0.5 * math.log(math.pi)
        a = 0.5
    for _ in range((h - 1) // 2):
        out += math.log(a)
        a += 1.0
    return out


def _log_gamma_distrib_half(nw, p):
    """ADBench's log_gamma_distrib(nw / 2, p): the log multivariate gamma function."""
    out = 0.25 * p * (p - 1) * math.log(PI)
    for j in range(1, p + 1):
        out += _lgamma_half(nw + 1 - j)
    return out


def primal(alphas, means, icf, x, gamma, m, d, k, n):
    """ADBench's gmm_objective (see the module docstring); a float."""
    icf_sz = d * (d + 1) // 2
    qdiags = np.empty((k, d))
    sum_qs = np.empty(k)
    xcentered = np.empty(d)
    qxcentered = np.empty(d)
    main_term = np.empty(k)
    for ik in range(k):
        s = 0.0
        for i in range(d):
            q = icf[ik, i]
            s += q
            qdiags[ik, i] = math.exp(q)
        sum_qs[ik] = s

    slse = 0.0
    for ix in range(n):
        for ik in range(k):
            for i in range(d):
                xcentered[i] = x[ix, i] - means[ik, i]
            for i in range(d):
                qxcentered[i] = qdiags[ik, i] * xcentered[i]
            li = d
            for i in range(d):
                for j in range(i + 1, d):
                    qxcentered[j] += icf[ik, li] * xcentered[i]
                    li += 1
            sq = 0.0
            for i in range(d):
                sq += qxcentered[i] * qxcentered[i]
            main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sq
        slse += _logsumexp(k, main_term)

    constant = -n * d * 0.5 * math.log(2.0 * PI)
    err = constant + slse - n * _logsumexp(k, alphas)

    nw = d + m + 1
    c = nw * d * (math.log(gamma) - 0.5 * math.log(2.0)) - _log_gamma_distrib_half(nw, d)
    prior = 0.0
    for ik in range(k):
        frobenius = 0.0
        for i in range(d):
            frobenius += qdiags[ik, i] * qdiags[ik, i]
        for i in range(d, icf_sz):
            frobenius += icf[ik, i] * icf[ik, i]
        prior += 0.5 * gamma * gamma * frobenius - m * sum_qs[ik]
    return err + prior - k * c


# --- the JAX form ----------------------------------------------------------------------------


def jax_primal(alphas, means, icf, x, gamma, m, d, k, n):
    """The same objective in jax.numpy (shapes read from the arrays, so ints may be traced)."""
    import jax.numpy as jnp
    from jax.scipy.special import gammaln

    k_, d_ = means.shape
    n_ = x.shape[0]
    rows, cols = np.tril_indices(d_, -1)
    order = np.lexsort((rows, cols))  # column by column, as ADBench stores it
    rows, cols = rows[order], cols[order]

    logdiag = icf[:, :d_]
    qdiags = jnp.exp(logdiag)
    sum_qs = jnp.sum(logdiag, axis=1)
    lower = icf[:, d_:]
    q = jnp.zeros((k_, d_, d_)).at[:, np.arange(d_), np.arange(d_)].set(qdiags)
    q = q.at[:, rows, cols].set(lower)

    xcentered = x[:, None, :] - means[None, :, :]
    qx = jnp.einsum("kji,nki->nkj", q, xcentered)
    main_term = alphas[None, :] + sum_qs[None, :] - 0.5 * jnp.sum(qx * qx, axis=2)
    slse = jnp.sum(_jax_logsumexp(main_term, axis=1))

    constant = -n_ * d_ * 0.5 * math.log(2.0 * PI)
    err = constant + slse - n_ * _jax_logsumexp(alphas, axis=0)

    nw = d_ + m + 1
    j = jnp.arange(1, d_ + 1)
    lgd = 0.25 * d_ * (d_ - 1) * math.log(PI) + jnp.sum(gammaln(0.5 * nw + 0.5 * (1 - j)))
    c = nw * d_ * (jnp.log(gamma) - 0.5 * math.log(2.0)) - lgd
    frobenius = jnp.sum(qdiags * qdiags, axis=1) + jnp.sum(lower * lower, axis=1)
    prior = jnp.sum(0.5 * gamma * gamma * frobenius - m * sum_qs)
    return err + prior - k_ * c


def _jax_logsumexp(v, axis):
    """ADBench's max-shifted logsumexp along `axis`."""
    import jax.numpy as jnp

    mx = jnp.max(v, axis=axis, keepdims=True)
    return jnp.log(jnp.sum(jnp.exp(v - mx), axis=axis)) + jnp.squeeze(mx, axis=axis)
