"""The ADBench-style objectives, in table order.

Each objective is a module of this package with the same mathematics in three forms: a
function of the Python subset (`primal`, for `enzyme_py.jit` / `enzyme_py.grad`), a C file
(`C_SOURCE`, for `enzyme-py transform`) and a jax.numpy function (`jax_primal`).  Module
interface: `NAME`, `TITLE`, `ARGNUMS`, `C_SOURCE`, `sizes(quick) -> list[Size]` (`Size` has a
`label`), `make_args(size, seed=0) -> tuple` and `primal` / `jax_primal` of those arguments;
the C file defines `double <NAME>_primal(...)` and `void <NAME>_gradient(..., d_arg...)`.

Modules are imported lazily (`load`), so one broken or missing objective becomes an error
row of the benchmark instead of stopping it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Objective module names in the order of the results table.
OBJECTIVES: tuple[str, ...] = ("gmm", "ba", "lstm", "ode", "stencil1d", "stencil2d", "dotsin")


def load(name: str) -> ModuleType:
    """The objective module `name` (ImportError and the module's own errors propagate)."""
    if name not in OBJECTIVES:
        raise KeyError(f"unknown objective {name!r}; known: {', '.join(OBJECTIVES)}")
    return importlib.import_module(f"{__name__}.{name}")
