"""Derivative rules (see `registry`). Every module in this package registers its rules when
imported; `load_all()` imports them all.

Invariant: `_loaded` becomes true only after every rule module is imported (under `_lock`), so
a thread that sees it true sees the whole table, and a thread that does not waits for the
thread that is loading it."""

from __future__ import annotations

import importlib
import pkgutil
import threading

_loaded = False
_loading = False  # the thread holding `_lock` is importing the rule modules
_lock = threading.RLock()  # reentrant: a rule module may look a rule up while it is imported


def load_all() -> None:
    global _loaded, _loading
    if _loaded:
        return
    with _lock:
        if _loaded or _loading:
            return
        _loading = True
        try:
            for info in pkgutil.iter_modules(__path__):
                if info.name != "registry":
                    importlib.import_module(f"{__name__}.{info.name}")
            _loaded = True
        finally:
            _loading = False
