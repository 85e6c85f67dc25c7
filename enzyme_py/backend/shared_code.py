"""Functions compiled once per process and shared by every module that calls them.

The matrix kernel (`rules/matrix_kernel.py`) is about 1,200 lines of optimized IR, and each
module with a matrix product carries its definition (the AD reads its body and the rule
calls it). Compiling it with every such module cost ~120 ms per compile; instead,
`split_off` replaces a module's definition of a shared function with a declaration before
LLVM sees the text, and `address` compiles the function once per process (at -O2) and
hands its address to the linker (`JITLibraryBuilder.import_symbol`), for text compiled now
and for object files of the persistent cache alike. Where the persistent cache is in use,
the compiled copy is kept there too (`shared-<hash>.pkl`, keyed by its text, llvmlite and
the host CPU), so a later process links it in milliseconds.

Invariants: the shared copy is compiled from the same IR text as the definition it stands
for (`SHARED`: name -> the text's maker), so a call behaves exactly as the module's own
copy would; it is never unloaded; a name in `SHARED` is the only thing replaced.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from enzyme_py.caches import cache_dir
from enzyme_py.rules.matrix_kernel import kernel_name, kernel_text

#: The shared functions: name -> its IR text (which defines it `internal`).
SHARED: dict[str, Callable[[], str]] = {
    kernel_name(elem): (lambda elem=elem: kernel_text(elem)) for elem in ("double", "float")}

#: What the declaration promises LLVM's optimizer about a call (true of the matrix kernel:
#: it touches only memory its pointer arguments reach, and its own stack).
_DECLARED_ATTRIBUTES = "nounwind memory(argmem: readwrite)"

_DEFINE = re.compile(r"^define internal void @(?P<name>[\w.]+)\((?P<params>[^)]*)\)[^\n]*\{$",
                     re.MULTILINE)
_compiled: dict[str, tuple[Any, int]] = {}  # name -> (its JITModule, kept alive; address)
_lock = threading.Lock()


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
                jm = compile_ir(text, opt_level=2, share=False, keep_object=persistent)
                _store(path, jm)
            got = _compiled[name] = (jm, jm.address(name))
        return got[1]


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
