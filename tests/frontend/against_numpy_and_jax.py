"""The check the NumPy-function tests share: `ez.jit(f)` against `f` run by NumPy, and
`ez.grad(f)` against `jax.grad` of the same source run on jax.numpy (`numpy_as_jax`); a
gradient that JAX finds to be zero everywhere is refused as a check (it would test nothing)."""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend.errors import FrontendError
from enzyme_py.testing import numpy_as_jax


def check(f, *args, argnums=0, rtol=1e-12):
    """Values as NumPy's (shape too); for a float result, gradients as JAX's; returns ours
    (or the value, for an array result)."""
    got = ez.jit(f)(*[np.copy(a) if isinstance(a, np.ndarray) else a for a in args])
    want_value = f(*args)
    assert np.shape(got) == np.shape(want_value)
    np.testing.assert_allclose(got, want_value, rtol=rtol, atol=1e-14)
    if not isinstance(want_value, float):
        return got
    ours = ez.grad(f, argnums=argnums)(*args)
    with jax.enable_x64(True):
        jargs = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        want = jax.grad(numpy_as_jax(f), argnums=argnums)(*jargs)
    ours_t = ours if isinstance(argnums, tuple) else (ours,)
    want_t = want if isinstance(argnums, tuple) else (want,)
    for g, w in zip(ours_t, want_t, strict=True):
        assert not np.allclose(np.asarray(w), 0.0), "a zero gradient checks nothing"
        np.testing.assert_allclose(g, np.asarray(w), rtol=rtol, atol=1e-13)
    return ours


def refused(f, *args, match):
    """Compiling `f` for these arguments is a FrontendError matching `match`."""
    with pytest.raises(FrontendError, match=match):
        ez.jit(f)(*args)


def module_copy(module: types.ModuleType, **replaced: object) -> types.ModuleType:
    """A module with `module`'s names, some of them `replaced` (`jnp` with `fix=jnp.trunc`,
    say: a reference where JAX lacks NumPy's function or computes another one)."""
    out = types.ModuleType(module.__name__)
    for name in dir(module):
        try:
            setattr(out, name, getattr(module, name))
        except AttributeError:  # (deprecated names)
            pass
    for name, value in replaced.items():
        setattr(out, name, value)
    return out
