"""The ADBench-style objectives, in table order.

Each objective is a module of this package with the same mathematics in three forms: a
function of the Python subset (`primal`, for `enzyme_py.jit` / `enzyme_py.grad`), a C file
(`C_SOURCE`, for `enzyme-py transform`) and a jax.numpy function (`jax_primal`).  Module
interface: `NAME`, `TITLE`, `ARGNUMS`, `C_SOURCE`, `sizes(quick) -> list[Size]` (`Size` has a
`label`), `make_args(size, seed=0) -> tuple` and `primal` / `jax_primal` of those arguments;
the C file defines `double <NAME>_primal(...)` and `void <NAME>_gradient(..., d_arg...)`.

A NumPy form (`<name>_numpy`) is the same objective written with array expressions; it
also has `FORM = "numpy"` and `LOOP_FORM` (the loop form's module name, whose sizes and
data it shares and whose value it must equal), and `C_SOURCE = None` (the C form is the
loop form's).  A module without `FORM` is a loop form.

Modules are imported lazily (`load`), so one broken or missing objective becomes an error
row of the benchmark instead of stopping it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

#: Objective module names in the order of the results table.
OBJECTIVES: tuple[str, ...] = ("gmm", "gmm_numpy", "ba", "lstm", "lstm_numpy", "ode",
                               "stencil1d", "stencil1d_numpy", "stencil2d", "stencil2d_numpy",
                               "dotsin")


def load(name: str) -> ModuleType:
    """The objective module `name` (ImportError and the module's own errors propagate)."""
    if name not in OBJECTIVES:
        raise KeyError(f"unknown objective {name!r}; known: {', '.join(OBJECTIVES)}")
    return importlib.import_module(f"{__name__}.{name}")
