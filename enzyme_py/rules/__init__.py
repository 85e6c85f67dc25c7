"""Derivative rules (see `registry`). Every module in this package registers its rules when
imported; `load_all()` imports them all."""

from __future__ import annotations

import importlib
import pkgutil

_loaded = False


def load_all() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for info in pkgutil.iter_modules(__path__):
        if info.name != "registry":
            importlib.import_module(f"{__name__}.{info.name}")
