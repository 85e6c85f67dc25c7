"""LLVM initialization and the host: triple, CPU, features and target machines.

Invariants:

- LLVM is initialized lazily and once, under `_init_lock` (native target, asm printer; libm and
  libgcc_s loaded so that `sin`, `exp`, ... and builtins such as `__powidf2` resolve in JIT
  code, and glibc's libmvec where present).
- Pipelines use one host target machine per opt level, created once, with the host CPU name and
  features: the vectorizers see the real vector width.
- A module without `target triple` / `target datalayout` gets the host's (`_target_host`)
  before it is optimized or compiled.
- A module for another platform (`same_platform` is false: another architecture, operating
  system or object format) is optimized with a target machine for its own triple (generic CPU;
  every LLVM target is initialized on first need), never the host's: the host's would read its
  `"target-cpu"` (`sm_80`, say) as an x86 processor and abort. A triple LLVM has no target
  for gets the host's machine (`foreign_triple`), and `target_check` checks its attributes
  against the host.
- The native asm parser is initialized, so inline asm compiles (without it LLVM aborts).
- `_init_lock`, `_host_info` and `_machines` exist here only; other submodules import them.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from dataclasses import dataclass

import llvmlite.binding as llvm

from enzyme_py.heap import keep_freed_memory


@dataclass(frozen=True)
class _Host:
    triple: str
    cpu: str
    features: str
    data_layout: str


#: The name of text given to the backend without one, in diagnostics (`module:5:17: ...`).
PRINTED_NAME = "module"

_init_lock = threading.Lock()
_host_info: _Host | None = None
_machines: dict[int, llvm.TargetMachine] = {}


def _host() -> _Host:
    """Initialize LLVM once and describe the host."""
    global _host_info
    if _host_info is not None:
        return _host_info
    with _init_lock:
        if _host_info is None:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            llvm.initialize_native_asmparser()  # inline asm; without it LLVM aborts
            keep_freed_memory()  # tapes are malloc'd per call: reuse their pages
            # libm for sin, exp, ...; libgcc_s for builtins the code generator calls
            # (__powidf2 for llvm.powi). Either may already be in the process, or absent.
            # libmvec (glibc's vector libm) for the vectorized calls of `vector_math`.
            paths = [ctypes.util.find_library(library) for library in ("m", "gcc_s")]
            for path in [*paths, "libmvec.so.1"]:
                if path:
                    try:
                        llvm.load_library_permanently(path)
                    except RuntimeError:
                        pass
            triple = llvm.get_process_triple()
            cpu = llvm.get_host_cpu_name()
            try:
                features = llvm.get_host_cpu_features().flatten()
            except RuntimeError:  # not every platform reports features
                features = ""
            machine = _new_machine(triple, cpu, features, 2)
            _machines[2] = machine
            _host_info = _Host(triple, cpu, features, str(machine.target_data))
    return _host_info


def _new_machine(triple: str, cpu: str, features: str, level: int,
                 jit: bool = False) -> llvm.TargetMachine:
    target = llvm.Target.from_triple(triple)
    return target.create_target_machine(cpu=cpu, features=features, opt=level, jit=jit)


def _machine(level: int, triple: str = "") -> llvm.TargetMachine:
    """The shared target machine for opt `level` and a module's `triple` (created once per
    level and triple): the host's for no triple, one of the host's platform or one LLVM has no
    target for (as before there were foreign machines); else a generic-CPU one for it."""
    host = _host()
    if foreign_triple(triple):
        return _foreign_machine(triple, level)
    with _init_lock:
        if level not in _machines:
            _machines[level] = _new_machine(host.triple, host.cpu, host.features, level)
        return _machines[level]


_foreign_machines: dict[tuple[str, int], llvm.TargetMachine] = {}
_all_targets = False  # every LLVM target initialized; under _init_lock


def has_target(triple: str) -> bool:
    """Whether this LLVM can generate code for `triple` (initializes every target once)."""
    global _all_targets
    if triple == _host().triple:
        return True
    with _init_lock:
        if not _all_targets:
            llvm.initialize_all_targets()
            llvm.initialize_all_asmprinters()
            _all_targets = True
    try:
        llvm.Target.from_triple(triple)
    except RuntimeError:
        return False
    return True


def foreign_triple(triple: str) -> bool:
    """Whether a module of `triple` is read with a machine for its own target, not the host's
    (see `_machine`)."""
    return bool(triple) and not same_platform(triple, _host().triple) and has_target(triple)


def _foreign_machine(triple: str, level: int) -> llvm.TargetMachine:
    with _init_lock:
        key = (triple, level)
        if key not in _foreign_machines:
            _foreign_machines[key] = _new_machine(triple, "", "", level)
        return _foreign_machines[key]


def same_platform(triple: str, host_triple: str) -> bool:
    """Whether code for `triple` runs here: the same architecture, operating system (or none
    named) and object format as `host_triple`, and the same pointer size (x32 is not x86-64)."""
    a, b = llvm.get_triple_parts(triple), llvm.get_triple_parts(host_triple)
    return (a.Arch == b.Arch and a.ObjectFormat == b.ObjectFormat
            and a.OS in (b.OS, "unknown") and a.Env.endswith("x32") == b.Env.endswith("x32"))


def _target_host(module: llvm.ModuleRef) -> None:
    """Give a module without a target the host's (the vectorizers need it)."""
    host = _host()
    if not module.triple:
        module.triple = host.triple
    if not module.data_layout:
        module.data_layout = host.data_layout

