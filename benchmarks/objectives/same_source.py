"""Run a NumPy-form objective's own source with `np` bound to `jax.numpy`.

`with_jax_numpy(fn, name=replacement, ...)` returns `fn` re-created over a copy of its
module's globals in which `np` is `jax.numpy` and every function of that module is
re-created the same way, so the helpers `fn` calls see `jax.numpy` too.  A keyword names
a helper to swap for another function of the module (its `.at[].set` twin, where the NumPy
form writes into a slice).  Invariants: the module itself is never changed; the code
objects are the NumPy form's, so the JAX reference is the same source line for line.
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any


def with_jax_numpy(fn: Callable[..., Any], **replace: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` with `np` (in it and in its module's functions) bound to `jax.numpy`."""
    import jax.numpy as jnp

    module = fn.__module__
    ns: dict[str, Any] = dict(fn.__globals__)
    ns["np"] = jnp
    for name, value in list(ns.items()):
        if isinstance(value, FunctionType) and value.__module__ == module:
            ns[name] = FunctionType(value.__code__, ns, value.__name__, value.__defaults__,
                                    value.__closure__)
    for name, twin in replace.items():
        ns[name] = ns[twin.__name__]
    return ns[fn.__name__]
