"""Checking enzyme_py against plain Python, JAX and finite differences.

`check_value(f, *args)` runs `enzyme_py.jit(f)` and plain Python `f` on copies of the arguments
and compares the results (and the arrays `f` writes into). `check_grad(f, *args, argnums=...)`
compares `enzyme_py.grad(f, argnums)` with JAX's gradient of *the same Python function* and with
central finite differences of `enzyme_py.jit(f)`. `check_vjp` does the same for `vjp` (tuple
results).

How the same function runs under JAX: a copy of `f` is made with `types.FunctionType` whose
globals (and closure cells) map the `math` and `numpy` modules, and functions taken from them
(`from math import sin`), by object identity to shims backed by `jax.numpy`; other Python
functions `f` calls are copied the same way (recursively, once each). Arrays become
`ShimArray`s: `__getitem__` reads an element, `__setitem__` (and so `a[i] += v`) replaces one,
functionally as far as JAX is concerned; `.shape`, `.size`, `.ndim`, `len()` work. A shim
function runs the original math/numpy function on plain numbers and the `jax.numpy` one as
soon as a JAX value is involved, so constant work stays exact and cheap.

Invariants:

- JAX runs eagerly (never under `jax.jit`). Under `jax.grad`/`jax.vjp` the tracers carry
  concrete primal values, so Python `if`, `while`, `and`/`or`, `min`/`max` and `int(x)` on
  traced floats work (checked by the tests). `float(tracer)` raises ConcretizationTypeError
  even there (it would drop the derivative), so the shim's `float` keeps tracers as float64
  arrays.
- Integers never become JAX values: int arguments stay Python ints and integer array
  elements read as Python ints, so `//`, `%` and `**` on integers have Python's semantics
  exactly. Float `//` and `%` on JAX values are `jnp.floor_divide`/`jnp.remainder`, which
  round toward minus infinity like Python.
- Eager JAX costs about 0.3-0.5 ms per traced scalar operation; float array arguments are
  passed to `jax.grad` as lists of scalars (no gather/scatter per element access). Size
  checked cases to a few thousand operations.
- 64-bit JAX is enabled only inside the checks (`with jax.enable_x64(True)`, a thread-local
  context); the caller's JAX configuration is left as it was.
- No check mutates the caller's arrays: every run gets its own copies.
- Finite differences are central, of `enzyme_py.jit(f)`, with step
  `h = eps**(1/3) * max(1, |x|)` per element; an element passes when
  `|ours - fd| <= fd_rtol * max(|fd_i|, max|fd|) + 10 * eps * (|f| + 1) / h` (relative to the
  gradient's largest entry, plus the rounding error of the difference quotient). When any
  argument is a float32 array, `eps` is float32's and `fd_rtol` is at least 1e-3.
"""

from __future__ import annotations

from enzyme_py.testing.checks import check_grad, check_value, check_vjp
from enzyme_py.testing.jax_shims import ShimArray, jax_version_of
from enzyme_py.testing.runs import numpy_as_jax

__all__ = ["ShimArray", "check_grad", "check_value", "check_vjp", "jax_version_of",
           "numpy_as_jax"]
