"""LLVM initialization and the host: triple, CPU, features and target machines.

Invariants:

- LLVM is initialized lazily and once, under `_init_lock` (native target, asm printer; libm and
  libgcc_s loaded so that `sin`, `exp`, ... and builtins such as `__powidf2` resolve in JIT
  code, and glibc's libmvec where present).
- Pipelines use one host target machine per opt level, created once, with the host CPU name and
  features: the vectorizers see the real vector width.
- A module without `target triple` / `target datalayout` gets the host's (`_target_host`)
  before it is optimized or compiled.
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


def _machine(level: int) -> llvm.TargetMachine:
    """The shared host target machine for opt `level` (created once per level)."""
    host = _host()
    with _init_lock:
        if level not in _machines:
            _machines[level] = _new_machine(host.triple, host.cpu, host.features, level)
        return _machines[level]


def _target_host(module: llvm.ModuleRef) -> None:
    """Give a module without a target the host's (the vectorizers need it)."""
    host = _host()
    if not module.triple:
        module.triple = host.triple
    if not module.data_layout:
        module.data_layout = host.data_layout

