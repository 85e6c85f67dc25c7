"""The Python corpus in forward mode: every differentiable case's `jvp` against `jax.jvp` of the
same function (run on JAX values), and the identity `<vjp(u), v> == <u, jvp(v)>` between our
two transforms, at random directions `v` over the case's `argnums` and a random cotangent `u`.
Functions that write their results into arrays are checked on the arrays they leave."""

from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py import Active, Const, Duplicated, autodiff
from enzyme_py.testing import jax_version_of
from tests.frontend.corpus import CASES, WRITER_CASES, Case

jax.config.update("jax_enable_x64", True)


def _params(cases: list[Case]) -> list:
    seen: dict[str, int] = {}
    out = []
    for c in cases:
        n = seen.get(c.id, 0)
        seen[c.id] = n + 1
        reason = c.xfail_value or c.xfail_grad
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(c, id=c.id if n == 0 else f"{c.id}-{n}", marks=marks))
    return out


def _copies(args: tuple) -> list:
    return [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]


def _directions(case: Case, seed: int) -> tuple[list, list[int]]:
    """A random tangent for each differentiated argument, zero for the other floats, 0 for
    integers; and the indices of the differentiated arguments."""
    nums = (case.argnums,) if isinstance(case.argnums, int) else tuple(case.argnums)
    nums = [k % len(case.args) for k in nums]
    rng = np.random.default_rng(seed)
    tangents: list = []
    for k, a in enumerate(case.args):
        if isinstance(a, np.ndarray):
            t = rng.uniform(-1.0, 1.0, a.shape) if k in nums else np.zeros(a.shape)
            tangents.append(t.astype(a.dtype))
        elif isinstance(a, float):
            tangents.append(float(rng.uniform(-1.0, 1.0)) if k in nums else 0.0)
        else:
            tangents.append(0)
    return tangents, nums


def _close(a: float, b: float, rtol: float, what: str) -> None:
    assert abs(a - b) <= 1e-9 + rtol * max(abs(a), abs(b)), f"{what}: {a!r} vs {b!r}"


@pytest.mark.parametrize("case", _params([c for c in CASES if c.argnums is not None]))
def test_jvp_matches_jax_and_vjp(case: Case) -> None:
    seed = zlib.crc32(case.id.encode())
    tangents, nums = _directions(case, seed)
    value, slope = ez.jvp(case.f, _copies(case.args), _copies(tuple(tangents)))

    # JAX: the same function on JAX values, as a function of the differentiated arguments
    jf = jax_version_of(case.f)
    base = _copies(case.args)

    def of_diff(*diff):
        full = list(base)
        for k, v in zip(nums, diff, strict=True):
            full[k] = v
        return jf(*full)

    ref_value, ref_slope = jax.jvp(of_diff, tuple(np.asarray(base[k]) for k in nums),
                                   tuple(np.asarray(tangents[k]) for k in nums))
    rtol = max(case.rtol, 1e-9)
    _close(float(value), float(ref_value), rtol, f"{case.id}: value")
    _close(slope, float(ref_slope), rtol, f"{case.id}: jvp")

    # <vjp(u), v> == u * jvp(v): reverse and forward mode agree with each other
    u = float(np.random.default_rng(seed + 1).uniform(0.5, 1.5))
    _, pullback = ez.vjp(case.f, *_copies(case.args))
    cots = pullback(u)
    cots = cots if isinstance(cots, tuple) else (cots,)
    inner = sum(float(np.sum(np.asarray(cots[k], dtype=np.float64) *
                             np.asarray(tangents[k], dtype=np.float64)))
                for k in nums if cots[k] is not None)
    _close(inner, u * slope, rtol, f"{case.id}: <vjp(u), v> vs u * jvp(v)")


@pytest.mark.parametrize("case", _params(WRITER_CASES))
def test_writer_jvp_matches_jax_and_autodiff(case: Case) -> None:
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    args = case.args
    diff = [i for i, a in enumerate(args) if isinstance(a, float | np.ndarray)]
    v = [rng.uniform(-1.0, 1.0, a.shape) if isinstance(a, np.ndarray) else
         float(rng.uniform(-1.0, 1.0)) if isinstance(a, float) else 0 for a in args]
    finals, tangents = ez.jvp(case.f, _copies(args), _copies(tuple(v)))

    run = jax_version_of(case.f, return_args=True)

    def jax_finals(*vals):
        full = list(args)
        for i, x in zip(diff, vals, strict=True):
            full[i] = x
        return run(*full)[1]

    ref, ref_t = jax.jvp(jax_finals, tuple(jnp.asarray(args[i]) for i in diff),
                         tuple(jnp.asarray(v[i]) for i in diff))
    for k in range(len(finals)):
        np.testing.assert_allclose(finals[k], np.asarray(ref[k]), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(tangents[k], np.asarray(ref_t[k]), rtol=1e-10, atol=1e-12)

    # <u, jvp(v)> over the final arrays == <autodiff(u), v> over the initial values
    arrays = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    u = {i: rng.uniform(-1.0, 1.0, args[i].shape) for i in arrays}
    marked = [Duplicated(a.copy(), u[i].copy()) if isinstance(a, np.ndarray) else
              Active(a) if isinstance(a, float) else Const(a) for i, a in enumerate(args)]
    adjoints = autodiff(case.f, *marked)
    adjoints = list(adjoints) if isinstance(adjoints, tuple | list) else [adjoints]
    floats = [i for i, a in enumerate(args) if isinstance(a, float)]
    lhs = sum(float(np.sum(u[i] * t)) for i, t in zip(arrays, tangents, strict=True))
    rhs = sum(float(np.sum(marked[i].dval * v[i])) for i in arrays)
    rhs += sum(float(adjoints[k]) * v[i] for k, i in enumerate(floats))
    _close(lhs, rhs, 1e-10, f"{case.id}: <u, jvp(v)> vs <autodiff(u), v>")
