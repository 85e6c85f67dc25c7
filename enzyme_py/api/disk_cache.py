"""The persistent compile cache: `jit(f, cache=True)`, `grad(f, cache=True)` reuse the
optimized code of an earlier process (as Numba's `cache=True`).

An entry is the optimized LLVM text of one specialization and what the caller needs to call
it, in a file under `ENZYME_PY_CACHE_DIR` (default `~/.cache/enzyme_py`) named by a hash of
its **key**: the function's module, qualified name, source text and defaults; the
specialization (argument types, activities ...); the `Config`; and the environment (the
source of every enzyme_py module, Python, NumPy, llvmlite, and the host's CPU and features).
An entry holds the optimized text, its object file and what linking it needs
(`backend.native.LinkManifest`): loading one skips the front end, the AD pipeline, LLVM's -O2,
parsing and code generation — the object is linked as it is.

Invariants: **a stale entry is never used.** Everything else the compiled code depends on is
a global the front end looked up (`Typer.resolve_global` reports each one): the entry stores
each lookup — which function looked it up, the dotted name, a fingerprint of the object — and
is used only if every name still resolves to an object with the same fingerprint (a callee's
fingerprint holds its source, so an edited helper invalidates its callers). A lookup of an
object without a fingerprint (an arbitrary instance, a custom rule) makes the specialization
uncacheable: nothing is written, and it compiles as without the cache. A file that cannot be
read (truncated, another version's) is ignored and replaced. Entries are written whole
(a temporary file renamed), so concurrent processes never read half an entry.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import pickle
import platform
import sys
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from enzyme_py.caches import cache_dir
from enzyme_py.frontend.call_types import _MISSING as FRONTEND_MISSING
from enzyme_py.frontend.session import function_scope

FORMAT = 3  # (2: entries hold the object file; 3: and its link manifest)
_NONE = object()  # "no fingerprint": the specialization is not cached


@functools.cache
def _environment() -> str:
    """Everything outside the user's code that changes what we compile."""
    import llvmlite

    from enzyme_py.backend.target import _host

    h = hashlib.sha256()
    h.update(_package_sources().encode())
    host = _host()
    for part in (FORMAT, sys.version, np.__version__, llvmlite.__version__, platform.machine(),
                 host.triple, host.cpu, host.features):
        h.update(repr(part).encode())
    return h.hexdigest()


def _package_sources() -> str:
    """A hash of the source of every enzyme_py module. Reading them all costs about 20 ms, so
    the hash is kept in the cache directory under a key of their paths, sizes and modification
    times (as Numba keys its cache on its sources' times and sizes): an edited module changes
    the key, and the sources are hashed again."""
    package = Path(__file__).resolve().parent.parent
    paths = sorted(package.rglob("*.py"))
    stats = [(str(p.relative_to(package)), st.st_mtime_ns, st.st_size)
             for p in paths for st in (p.stat(),)]
    key = hashlib.sha256(repr((str(package), stats)).encode()).hexdigest()[:32]
    memo = cache_dir() / f"sources-{key}.txt"
    try:
        text = memo.read_text()
        if len(text) == 64:
            return text
    except OSError:
        pass
    h = hashlib.sha256()
    for path in paths:
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    digest = h.hexdigest()
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(digest)
        os.replace(tmp, memo)
    except OSError:
        pass
    return digest


def _source_hash(obj: Any) -> str | None:
    try:
        return hashlib.sha256(inspect.getsource(obj).encode()).hexdigest()
    except (OSError, TypeError):
        return None


_BUILTIN_MODULES = ("math", "numpy", "builtins", "cmath", "operator")
_PRELUDE = "enzyme_py.frontend.numpy_prelude"  # NumPy's stand-ins (`numpy_prelude*`)


def fingerprint(v: Any) -> Any:
    """What must stay equal for compiled code that looked `v` up to stay valid (`_NONE`:
    nothing safe to compare, so such code is not cached)."""
    if v is None or isinstance(v, bool | int | float | complex | str):
        return ("value", type(v).__name__, repr(v))
    if isinstance(v, np.generic):
        return ("npvalue", str(v.dtype), repr(v.item()))
    if isinstance(v, types.ModuleType):
        return ("module", v.__name__)
    if isinstance(v, tuple | list):
        parts = tuple(fingerprint(x) for x in v)
        return _NONE if any(p is _NONE for p in parts) else (type(v).__name__, parts)
    if isinstance(v, np.ndarray):
        return ("array", str(v.dtype), v.shape, hashlib.sha256(v.tobytes()).hexdigest())
    module = getattr(v, "__module__", None) or ""
    name = getattr(v, "__qualname__", None) or getattr(v, "__name__", None)
    if module.split(".")[0] in _BUILTIN_MODULES and name and callable(v):
        return ("builtin", module, name)  # (their versions are part of the environment)
    if isinstance(v, types.FunctionType):
        source = _source_hash(v)
        defaults = fingerprint(v.__defaults__ or ())
        if source is None or defaults is _NONE:
            return _NONE
        return ("function", module, name, source, defaults,
                bool(getattr(v, "_enzyme_inactive", False)))
    if isinstance(v, type):
        source = _source_hash(v)
        return _NONE if source is None else ("class", module, name, source)
    if v is FRONTEND_MISSING or v is _MISSING:
        return ("missing",)
    return _NONE


def _owner_function(owner: Any) -> Any:
    """A nested def looks names up in its enclosing function's globals (its source is part of
    that function's)."""
    while owner is not None and not isinstance(owner, types.FunctionType):
        owner = getattr(owner, "owner", None)
    return owner


def record_reads(root: Callable, reads: Sequence[tuple[Any, tuple[str, ...], Any]]
                 ) -> list[tuple[tuple[tuple[str, ...], ...], tuple[str, ...], Any]] | None:
    """The front end's lookups as (owner path, dotted name, fingerprint), the owner named by
    the lookups that lead from `root` to it; None when one has no fingerprint."""
    paths: dict[int, tuple[tuple[str, ...], ...]] = {id(root): ()}
    out: dict[tuple, Any] = {}
    pending = list(reads)
    while pending:
        progress = False
        rest = []
        for owner, names, value in pending:
            fn = _owner_function(owner)
            if str(getattr(fn, "__module__", None)).startswith(_PRELUDE):
                progress = True  # (enzyme_py's own source: part of the environment)
                continue
            if fn is None or id(fn) not in paths:
                rest.append((owner, names, value))
                continue
            progress = True
            fp = fingerprint(value)
            if fp is _NONE:
                return None
            path = paths[id(fn)]
            out[(path, names)] = fp
            if isinstance(value, types.FunctionType) and id(value) not in paths:
                paths[id(value)] = (*path, names)
        if not progress:
            return None  # a lookup by a function we cannot reach from root
        pending = rest
    return [(p, n, fp) for (p, n), fp in out.items()]


def _lookup(fn: Any, names: tuple[str, ...]) -> Any:
    """What `names` (dotted) refers to from function `fn`, as the front end resolves it."""
    import builtins

    scope = function_scope(fn)
    v = scope[names[0]] if names[0] in scope else getattr(builtins, names[0], _MISSING)
    for part in names[1:]:
        if v is _MISSING:
            break
        v = getattr(v, part, _MISSING)
    return v


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def still_valid(root: Callable, reads: list) -> bool:
    """Every recorded lookup resolves, from `root` today, to the same fingerprint."""
    owners: dict[tuple, Any] = {(): root}
    for path, names, fp in sorted(reads, key=lambda r: len(r[0])):
        owner = owners.get(path)
        if owner is None:
            owner = root
            for step in path:
                owner = _lookup(owner, step)
                if not isinstance(owner, types.FunctionType):
                    return False
            owners[path] = owner
        now = _lookup(owner, names)
        got = ("missing",) if now is _MISSING else fingerprint(now)
        if got != fp:
            return False
    return True


def entry_path(kind: str, f: Callable, specialization: Any, config: Any) -> Path | None:
    """The file of the entry for this request, or None when `f` cannot be cached."""
    if not isinstance(f, types.FunctionType):
        return None
    me = fingerprint(f)
    if me is _NONE:
        return None
    options = (config.bounds_check, config.opt_level, config.errors, config.fast_flags,
               config.inline, config.width, config.name, config.return_primal)
    h = hashlib.sha256(_environment().encode())
    h.update(repr((me, kind, specialization, options)).encode())  # (reprs are stable)
    return cache_dir() / f"{f.__name__}-{h.hexdigest()[:32]}.pkl"


def load(path: Path | None, f: Callable) -> dict | None:
    """The entry's payload if the file holds a valid one (see the module docstring)."""
    if path is None or not path.exists():
        return None
    try:
        with path.open("rb") as fh:
            stored = pickle.load(fh)
        if stored.get("format") != FORMAT or not still_valid(f, stored["reads"]):
            return None
        return stored["payload"]
    except Exception:  # an unreadable entry is a miss (it is rewritten after the compile)
        return None


def store(path: Path | None, f: Callable, reads: Sequence[Any], payload: dict) -> bool:
    """Write the entry (whole, by rename); False when the lookups make it uncacheable."""
    if path is None:
        return False
    recorded = record_reads(f, reads)
    if recorded is None:
        return False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        with tmp.open("wb") as fh:
            pickle.dump({"format": FORMAT, "reads": recorded, "payload": payload}, fh,
                        protocol=4)
        os.replace(tmp, path)
    except (OSError, pickle.PicklingError, TypeError):
        return False
    return True
