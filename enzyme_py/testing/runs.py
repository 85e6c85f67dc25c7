"""Our side of a check: the compiled functions (cached per function), copies of the arguments
(so no check mutates the caller's arrays), and `numpy_as_jax`."""

from __future__ import annotations

import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py.testing.jax_shims import jax_module

_JIT: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_GRAD: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def our_jit(f: Callable) -> Callable:
    import enzyme_py

    j = _JIT.get(f)
    if j is None:
        j = enzyme_py.jit(f)
        _JIT[f] = j
    return j


def our_grad(f: Callable, argnums: int | tuple[int, ...]) -> Callable:
    import enzyme_py

    per_f = _GRAD.setdefault(f, {})
    g = per_f.get(argnums)
    if g is None:
        g = enzyme_py.grad(f, argnums=argnums)
        per_f[argnums] = g
    return g


def copies(args: Sequence[Any]) -> list[Any]:
    """Copies of the array arguments with their strides (a view stays a view, so strided
    arguments are checked as passed)."""
    return [_strided_copy(a) if isinstance(a, np.ndarray) else a for a in args]


def copy_leaf(a: Any) -> Any:
    return _strided_copy(a) if isinstance(a, np.ndarray) else a


def _strided_copy(a: np.ndarray) -> np.ndarray:
    if a.flags.c_contiguous:
        return np.copy(a)
    from enzyme_py.api import shadow_like

    out = shadow_like(a)  # zeros with a's strides
    out[...] = a
    return out


def numpy_as_jax(f: Callable, numpy: types.ModuleType | None = None) -> Callable:
    """NumPy-style `f` with `numpy` bound to `jax.numpy` (in its globals, and in the other
    functions of its module it calls): the same source run by JAX. `numpy`: the module to
    bind instead (jax.numpy with a name replaced, say).

    Example::

        >>> import numpy as np
        >>> def energy(x):
        ...     return np.sum((x[1:] - x[:-1]) ** 2)
        >>> float(numpy_as_jax(energy)(np.array([0.0, 1.0, 3.0])))
        5.0
    """
    _, jnp = jax_module()
    if numpy is not None:
        jnp = numpy
    env = dict(f.__globals__)  # type: ignore[attr-defined]
    for k, v in f.__globals__.items():  # type: ignore[attr-defined]
        if v is np:
            env[k] = jnp
    for k, v in f.__globals__.items():  # type: ignore[attr-defined]
        if isinstance(v, types.FunctionType) and v.__module__ == f.__module__ and v is not f:
            env[k] = types.FunctionType(v.__code__, env, v.__name__, v.__defaults__,
                                        v.__closure__)
    return types.FunctionType(f.__code__, env, f.__name__,  # type: ignore[attr-defined]
                              f.__defaults__, f.__closure__)  # type: ignore[attr-defined]
