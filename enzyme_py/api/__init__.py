"""The Python API: `jit`, `grad`, `value_and_grad`, `vjp`, Enzyme-style `autodiff`, `show`.

Each decorated function is compiled on first call for the types of its arguments (one native
version per signature, looked up by a dict), differentiated at the LLVM level after
optimization, and run natively.

Example::

    >>> import numpy as np, enzyme_py as ez
    >>> def loss(w, x):
    ...     s = 0.0
    ...     for i in range(x.shape[0]):
    ...         s += (w * x[i] - 1.0) ** 2
    ...     return s
    >>> ez.grad(loss)(2.0, np.array([1.0, 2.0]))  # d/dw
    14.0

Invariants: gradients follow JAX's conventions (a float for a float argument, an array for an
array, a tuple for several `argnums`); shadows are allocated and zeroed here, so users never
see them unless they call `autodiff` with `Duplicated`, which accumulates like Enzyme.
"""

from __future__ import annotations

from enzyme_py.api.autodiff import Active, Const, Duplicated, DuplicatedNoNeed, autodiff, inactive
from enzyme_py.api.compile import build_module, optimize_before_ad, result_node
from enzyme_py.api.grad import GradFunction, grad, value_and_grad
from enzyme_py.api.gradients import GradCache, grad_cache_of, shadow_like
from enzyme_py.api.jit import JitFunction, jit
from enzyme_py.api.show import show
from enzyme_py.api.vjp import vjp
from enzyme_py.config import Config

__all__ = ["Active", "Config", "Const", "Duplicated", "DuplicatedNoNeed", "GradCache",
           "GradFunction", "JitFunction", "autodiff", "build_module", "grad",
           "grad_cache_of", "inactive", "jit", "optimize_before_ad", "result_node",
           "shadow_like", "show", "value_and_grad", "vjp"]
