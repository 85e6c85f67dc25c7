"""Bundle adjustment objective of ADBench, summed to a scalar loss.

ADBench's `ba_objective` (src/cpp/shared/ba.h) computes, for each observation i of point
obs[i, 1] by camera obs[i, 0], the reprojection error w_i (proj - feat_i) with

    Xcam = R(rot) (X - C)            Rodrigues rotation; rot itself when |rot| = 0
    proj = distort(Xcam[:2] / Xcam[2]) f + (u0, v0),   distort(p) = p (1 + k1 r^2 + k2 r^4)

(camera = [r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2]) and the weight error 1 - w_i^2.  The loss here
is the sum of squares of all 2p reprojection errors and p weight errors, so it has a
gradient with respect to cams (n x 11), X (m x 3) and w (p).  Data are replicated the way
ADBench reads its files: one camera, one point, one weight and one feature copied n, m, p
and p times, observations (i mod n, i mod m).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

NAME = "ba"
TITLE = "BA (ADBench)"
ARGNUMS = (0, 1, 2)
C_SOURCE = Path(__file__).with_suffix(".c")

NCAMPARAMS = 11


@dataclass(frozen=True)
class Size:
    """n cameras, m points, p observations."""

    label: str
    n: int
    m: int
    p: int


def sizes(quick: bool) -> list[Size]:
    """ADBench's ba2 (n=21, m=11315, p=36455), or a tiny instance when `quick`."""
    if quick:
        return [Size("n3 m7 p20", 3, 7, 20)]
    return [Size("n21 m11315 p36455", 21, 11315, 36455)]


def make_args(size: Size, seed: int = 0) -> tuple:
    """(cams, X, w, obs, feats, n, m, p): one random base instance replicated as ADBench does.

    The base camera has a small rotation, a focal length near 400 and small distortion; the
    point lies in front of it (Xcam[2] < 0, ADBench's convention has no sign requirement)
    and the feature is near its projection.
    """
    rng = np.random.default_rng(seed)
    cam = np.concatenate([
        rng.uniform(-0.05, 0.05, 3),            # rotation (angle-axis)
        rng.uniform(-1.0, 1.0, 3),              # camera centre
        [rng.uniform(350.0, 450.0)],            # focal length
        rng.uniform(-1.0, 1.0, 2),              # principal point
        rng.uniform(-1e-3, 1e-3, 2),            # radial distortion
    ])
    point = rng.uniform(-1.0, 1.0, 3) + np.array([0.0, 0.0, -6.0])
    w = rng.uniform(0.5, 1.5)
    feat = rng.uniform(-100.0, 100.0, 2)
    n, m, p = size.n, size.m, size.p
    cams = np.ascontiguousarray(np.tile(cam, (n, 1)))
    xs = np.ascontiguousarray(np.tile(point, (m, 1)))
    ws = np.full(p, w)
    feats = np.ascontiguousarray(np.tile(feat, (p, 1)))
    i = np.arange(p, dtype=np.int64)
    obs = np.ascontiguousarray(np.stack([i % n, i % m], axis=1))
    return cams, xs, ws, obs, feats, n, m, p


# --- the Python-subset form ------------------------------------------------------------------


def _project(cams, c, xs, j):
    """ADBench's project(&cams[c], &X[j]): the two image coordinates, as a tuple."""
    xo0 = xs[j, 0] - cams[c, 3]
    xo1 = xs[j, 1] - cams[c, 4]
    xo2 = xs[j, 2] - cams[c, 5]
    r0 = cams[c, 0]
    r1 = cams[c, 1]
    r2 = cams[c, 2]
    sqtheta = r0 * r0 + r1 * r1 + r2 * r2
    if sqtheta != 0.0:
        theta = math.sqrt(sqtheta)
        costheta = math.cos(theta)
        sintheta = math.sin(theta)
        theta_inverse = 1.0 / theta
        w0 = r0 * theta_inverse
        w1 = r1 * theta_inverse
        w2 = r2 * theta_inverse
        tmp = (w0 * xo0 + w1 * xo1 + w2 * xo2) * (1.0 - costheta)
        xc0 = xo0 * costheta + (w1 * xo2 - w2 * xo1) * sintheta + w0 * tmp
        xc1 = xo1 * costheta + (w2 * xo0 - w0 * xo2) * sintheta + w1 * tmp
        xc2 = xo2 * costheta + (w0 * xo1 - w1 * xo0) * sintheta + w2 * tmp
    else:
        xc0 = xo0 + (r1 * xo2 - r2 * xo1)
        xc1 = xo1 + (r2 * xo0 - r0 * xo2)
        xc2 = xo2 + (r0 * xo1 - r1 * xo0)
    p0 = xc0 / xc2
    p1 = xc1 / xc2
    rsq = p0 * p0 + p1 * p1
    distort = 1.0 + cams[c, 9] * rsq + cams[c, 10] * rsq * rsq
    p0 = p0 * distort
    p1 = p1 * distort
    return p0 * cams[c, 6] + cams[c, 7], p1 * cams[c, 6] + cams[c, 8]


def primal(cams, xs, w, obs, feats, n, m, p):
    """Sum of squares of ADBench's 2p reprojection errors and p weight errors; a float."""
    total = 0.0
    for i in range(p):
        proj0, proj1 = _project(cams, obs[i, 0], xs, obs[i, 1])
        e0 = w[i] * (proj0 - feats[i, 0])
        e1 = w[i] * (proj1 - feats[i, 1])
        total += e0 * e0 + e1 * e1
    for i in range(p):
        we = 1.0 - w[i] * w[i]
        total += we * we
    return total


# --- the JAX form ----------------------------------------------------------------------------


def jax_primal(cams, xs, w, obs, feats, n, m, p):
    """The same loss in jax.numpy, vectorized over observations (differentiable at rot = 0)."""
    import jax.numpy as jnp

    cam = cams[obs[:, 0]]
    pt = xs[obs[:, 1]]
    rot = cam[:, 0:3]
    xo = pt - cam[:, 3:6]
    sqtheta = jnp.sum(rot * rot, axis=1)
    nonzero = sqtheta != 0.0
    theta = jnp.sqrt(jnp.where(nonzero, sqtheta, 1.0))  # the safe branch keeps grads finite
    costheta = jnp.cos(theta)[:, None]
    sintheta = jnp.sin(theta)[:, None]
    wv = rot / theta[:, None]
    tmp = jnp.sum(wv * xo, axis=1, keepdims=True) * (1.0 - costheta)
    rotated = xo * costheta + jnp.cross(wv, xo) * sintheta + wv * tmp
    small = xo + jnp.cross(rot, xo)
    xcam = jnp.where(nonzero[:, None], rotated, small)
    proj = xcam[:, 0:2] / xcam[:, 2:3]
    rsq = jnp.sum(proj * proj, axis=1, keepdims=True)
    proj = proj * (1.0 + cam[:, 9:10] * rsq + cam[:, 10:11] * rsq * rsq)
    proj = proj * cam[:, 6:7] + cam[:, 7:9]
    reproj = w[:, None] * (proj - feats)
    werr = 1.0 - w * w
    return jnp.sum(reproj * reproj) + jnp.sum(werr * werr)
