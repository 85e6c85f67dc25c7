"""The ODE, stencil and dot-of-transcendentals objectives at tiny sizes: our jit value and
gradient agree with JAX's (ADBench's metric), and the C form through `enzyme-py transform`
agrees with the Python form.  No timings."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from benchmarks.adbench_worker import TOL, max_error
from benchmarks.objectives import dotsin, load, ode, stencil1d, stencil2d
from benchmarks.objectives.cbuild import build_c, find_clang

TINY = {"ode": ode.Size("50 steps", 50), "stencil1d": stencil1d.Size("n=16", 16, 6),
        "stencil2d": stencil2d.Size("8x8", 8, 4), "dotsin": dotsin.Size("n=100", 100)}


def _args(name: str) -> tuple:
    return load(name).make_args(TINY[name], seed=3)


@pytest.fixture(scope="module")
def jax():
    import jax as jax_module  # (a dependency: always installed)

    jax_module.config.update("jax_enable_x64", True)
    return jax_module


def _jax_value_and_grad(jax, mod, args):
    static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
    value = jax.jit(mod.jax_primal, static_argnums=static)(*args)
    grads = jax.jit(jax.grad(mod.jax_primal, argnums=mod.ARGNUMS), static_argnums=static)(*args)
    return float(value), tuple(np.asarray(g) for g in grads)


@pytest.mark.parametrize("name", sorted(TINY))
def test_python_form_matches_jax(jax, name):
    import enzyme_py as ez

    mod = load(name)
    args = _args(name)
    value, grads = _jax_value_and_grad(jax, mod, args)
    assert max_error(ez.jit(mod.primal)(*args), value) < TOL
    ours = ez.grad(mod.primal, argnums=mod.ARGNUMS)(*args)
    assert max_error(tuple(ours), grads) < TOL
    assert all(np.any(g != 0.0) for g in grads)  # the check is not vacuous


@pytest.mark.skipif(find_clang() is None, reason="clang-22 not installed (apt-get install "
                    "clang-22)")
@pytest.mark.parametrize("name", sorted(TINY))
def test_c_form_matches_python_form(name, tmp_path):
    import enzyme_py as ez

    mod = load(name)
    args = _args(name)
    c_primal, c_grad = build_c(mod, tmp_path)
    assert max_error(c_primal(*args), ez.jit(mod.primal)(*args)) < TOL
    assert max_error(c_grad(*args), tuple(ez.grad(mod.primal, argnums=mod.ARGNUMS)(*args))) < TOL


@pytest.mark.parametrize("name", sorted(TINY))
def test_objective_interface(name):
    """The module interface the runner relies on; arguments are never written."""
    mod = load(name)
    assert mod.NAME == name and mod.C_SOURCE.exists()
    for quick in (True, False):
        assert mod.sizes(quick) and all(isinstance(s.label, str) for s in mod.sizes(quick))
    assert dataclasses.is_dataclass(TINY[name])
    args = _args(name)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    mod.primal(*args)  # plain Python, so a write would show
    for a, b in zip(args, before, strict=True):
        assert np.array_equal(a, b)
        if isinstance(a, np.ndarray):
            assert a.dtype == np.float64 and a.flags.c_contiguous


def test_max_error_metric():
    assert max_error(2.0, 2.0) == 0.0
    assert max_error(np.array([1e9]), np.array([1e9 + 1.0])) == pytest.approx(5e-10)
    assert max_error((np.zeros(2),), (np.zeros(3),)) == float("inf")
