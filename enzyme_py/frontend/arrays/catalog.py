"""Every module that registers NumPy entries (`registry.array_function`), imported in one place.

Importing `catalog` fills `registry.FUNCTIONS` and `registry.METHODS` (re-exported here); the
typer imports it before its first lookup (`call_types`). The entry modules import `registry`,
never `catalog`, so `registry` stays a leaf.

Invariants: a module that registers entries is listed here, and only here.
"""

from __future__ import annotations

from enzyme_py.frontend.arrays import (  # noqa: F401
    assembly,
    constructors,
    contractions,
    functions,
    linalg,
    padding,
    rearrange,
    reductions,
    repetition,
    scans,
)
from enzyme_py.frontend.arrays.registry import FUNCTIONS, METHODS

__all__ = ["FUNCTIONS", "METHODS"]
