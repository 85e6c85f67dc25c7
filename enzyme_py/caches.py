"""Caches of compiled code keyed by the user's function, which never keep it alive.

`cache_dir()` is where the persistent caches keep their files (`api/disk_cache.py`, and the
backend's shared copy of the matrix kernel, `backend/shared_code.py`).

`FunctionCache` maps a function to a dict of entries (per argument signature and the like)
through a weak reference: when the function is collected its entries, and the native code
they hold, go with it. Functions that cannot be weakly referenced get a strong entry.

Invariant: a lookup and an insertion are each atomic (a lock); two threads compiling the
same entry at once both compile, and one result wins — never a half-built entry.
"""

from __future__ import annotations

import os
import threading
import weakref
from pathlib import Path
from typing import Any

__all__ = ["FunctionCache", "cache_dir"]


def cache_dir() -> Path:
    """Where persistent entries live (`ENZYME_PY_CACHE_DIR`, else `~/.cache/enzyme_py`)."""
    env = os.environ.get("ENZYME_PY_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "enzyme_py"


class FunctionCache:
    def __init__(self) -> None:
        self._weak: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._strong: dict[Any, dict] = {}
        self._lock = threading.Lock()

    def _entries(self, f: Any) -> dict:
        with self._lock:
            try:
                return self._weak.setdefault(f, {})
            except TypeError:  # not weakly referenceable
                return self._strong.setdefault(f, {})

    def get(self, f: Any, key: Any) -> Any:
        return self._entries(f).get(key)

    def put(self, f: Any, key: Any, value: Any) -> Any:
        self._entries(f)[key] = value
        return value
