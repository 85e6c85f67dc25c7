"""Functions compiled once per process and shared by every module that calls them.

The matrix kernel (`rules/matrix_kernel.py`) is about 1,200 lines of optimized IR; compiling
it with every module that has a matrix product cost ~120 ms per compile. A module declares
it (the front end never puts its body there; `split_off` declares a definition that text
from elsewhere carries), and `address` compiles the function once per process
and hands its address to the linker (its text is written as the vector code it should be, so
only code generation runs) (`JITLibraryBuilder.import_symbol`), for text compiled now
and for object files of the persistent cache alike. Where the persistent cache is in use,
the compiled copy is kept there too (`shared-<hash>.pkl`, keyed by its text, llvmlite and
the host CPU), so a later process links it in milliseconds.

A module's first compile of a shared function need not wait for it: `prefetch` starts its
compile on a background thread as soon as the front end has made a module that calls it,
so it runs beside the optimization and differentiation of that module (llvmlite releases
the GIL inside LLVM); `address` then finds it compiled, or waits for it.

Invariants: the shared copy is compiled from the same IR text as the definition it stands
for (`SHARED`: name -> the text's maker), so a call behaves exactly as the module's own
copy would; it is never unloaded; a name in `SHARED` is the only thing replaced; a
background compile is joined before the interpreter exits (LLVM must not be torn down
under it), and its failure only means `address` compiles again (and reports the error).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import pickle
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from enzyme_py.caches import cache_dir
from enzyme_py.rules.matrix_kernel import ATTRIBUTES, kernel_name, kernel_text

#: The shared functions: name -> its IR text (which defines it `internal`).
SHARED: dict[str, Callable[[], str]] = {
    kernel_name(elem): (lambda elem=elem: kernel_text(elem)) for elem in ("double", "float")}

#: What the declaration promises LLVM's optimizer about a call (true of the matrix kernel:
#: it touches only memory its pointer arguments reach, and its own stack).
_DECLARED_ATTRIBUTES = " ".join(ATTRIBUTES)

_DEFINE = re.compile(r"^define internal void @(?P<name>[\w.]+)\((?P<params>[^)]*)\)[^\n]*\{$",
                     re.MULTILINE)
_compiled: dict[str, tuple[Any, int]] = {}  # name -> (its JITModule, kept alive; address)
_lock = threading.Lock()
_started: dict[str, threading.Thread] = {}  # background compiles (`prefetch`), by name
_started_lock = threading.Lock()


def split_off(text: str) -> tuple[str, list[str]]:
    """`text` with each shared function it defines declared instead, and the shared
    functions it calls (defined there or already declared)."""
    names: list[str] = []
    out: list[str] = []
    at = 0
    for match in _DEFINE.finditer(text):
        name = match.group("name")
        if name not in SHARED:
            continue
        end = text.index("\n}", match.end())
        params = ", ".join(p.strip().split(" ")[0] for p in match.group("params").split(","))
        out += [text[at:match.start()],
                f"declare void @{name}({params}) {_DECLARED_ATTRIBUTES}"]
        at = end + 2
        names.append(name)
    out.append(text[at:])
    text = "".join(out)
    names += [name for name in SHARED
              if name not in names and f"declare void @{name}(" in text]
    return text, names


def address(name: str, compile_ir: Callable[..., Any], link_object: Callable[..., Any],
            persistent: bool) -> int:
    """The address of the process's copy of the shared function `name`, compiled (by the
    backend's `compile_ir`, without sharing) on first use. `persistent` (the caller uses
    the persistent cache): the copy's object file is kept on disk beside the cache's entries,
    so a later process links it (`link_object`) instead of compiling it."""
    with _lock:
        got = _compiled.get(name)
        if got is None:
            text = SHARED[name]().replace(f"define internal void @{name}(",
                                          f"define void @{name}(")
            path = _entry(text) if persistent else None
            jm = _load(path, link_object)
            if jm is None:
                # (code generation only: the kernel's text is already the vector code it
                # should be; LLVM's -O2 made it no faster, 77 GFLOP/s at 500^3 either way,
                # and took 80 of its 122 ms of compile)
                jm = compile_ir(text, opt_level=2, preoptimized=True, share=False,
                                keep_object=persistent)
                _store(path, jm)
            got = _compiled[name] = (jm, jm.address(name))
        return got[1]


def prefetch(names: list[str], compile_ir: Callable[..., Any], link_object: Callable[..., Any],
             persistent: bool) -> None:
    """Start compiling the shared functions `names` that are neither compiled nor started,
    each on a background thread (`address`'s arguments)."""
    with _started_lock:
        for name in names:
            if name in _compiled or name in _started or name not in SHARED:
                continue
            if not _started:
                atexit.register(_join_started)
            thread = threading.Thread(target=_compile_quietly, name=f"compile @{name}",
                                      args=(name, compile_ir, link_object, persistent),
                                      daemon=True)
            _started[name] = thread
            thread.start()


def _compile_quietly(name: str, compile_ir: Callable[..., Any],
                     link_object: Callable[..., Any], persistent: bool) -> None:
    try:
        address(name, compile_ir, link_object, persistent)
    except Exception:
        pass  # (`address`, called for the module, compiles it again and reports the error)


def _join_started() -> None:
    for thread in list(_started.values()):
        thread.join()


def _entry(text: str) -> Path:
    """The cache file of the shared function compiled from `text` on this host."""
    import llvmlite
    import llvmlite.binding as llvm

    h = hashlib.sha256()
    for part in (text, llvmlite.__version__, llvm.get_process_triple(),
                 llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()):
        h.update(part.encode())
        h.update(b"\0")
    return cache_dir() / f"shared-{h.hexdigest()[:32]}.pkl"


def _load(path: Path | None, link_object: Callable[..., Any]) -> Any:
    """The copy linked from its cache file; None when there is none or it cannot be used."""
    if path is None or not path.exists():
        return None
    try:
        with open(path, "rb") as f:
            entry = pickle.load(f)
        return link_object(entry["text"], entry["object"], entry["manifest"], 2)
    except Exception:  # (a truncated file, another version's): compiled anew and replaced
        return None


def _store(path: Path | None, jm: Any) -> None:
    """Write the copy's object file to `path` whole (a temporary file renamed)."""
    if path is None or jm.object is None or jm.manifest is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        with open(tmp, "wb") as f:
            pickle.dump({"text": jm.ir, "object": jm.object, "manifest": jm.manifest}, f)
        os.replace(tmp, path)
    except OSError:
        pass  # (a read-only cache directory: the next process compiles it again)
