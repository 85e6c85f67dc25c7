"""The system's release LLVM library (`libLLVM` of llvmlite's major version) for `-O` pipelines.

llvmlite 0.50's LLVM is built with assertions, which makes its optimization pipelines slow:
LLVM's `-O2` on the gradients of the benchmarks took 1.5-2.5x as long in it as in a release
build of the same LLVM version, with the same options and the same resulting code (LSTM's
NumPy-form gradient: 628 ms against 255 ms; GMM's: 182 against 89 ms); its code generator
took 1.1-1.3x as long (304 against 260 ms, 111 against 86 ms). Where the system has that
release library (Debian's `libllvm22`, which clang-22 depends on), `optimize` runs a pipeline
and `emit_object` the code generator there, through LLVM's C API, on the module's text, in
this process; else callers do the work in llvmlite as before.

Invariants:

- The library is used only if its major version is llvmlite's (`LLVMGetVersion`), the host's
  architecture is one it is initialized for here (`_TARGETS`), and the environment does not set
  ENZYME_PY_NO_SYSTEM_LLVM=1. It is loaded privately (`RTLD_LOCAL`, as llvmlite's own), so
  neither copy of LLVM sees the other's symbols or command-line options.
- A run gets what llvmlite's pipeline gets (`pipelines._run_pipeline`): the host's target
  machine (CPU, features), the same tuning (vectorizers, interleaving, unrolling) and the same
  options (`-hoist-runtime-checks=false`, `-force-ordered-reductions` per run; code
  generation: `-disable-lsr` per run, the large code model). Runs are serialized by one
  lock: the options are process-wide in the library.
- The text given was parsed and verified by llvmlite first, so a diagnostic about bad input
  is always the backend's usual one. Anything the library reports (its parser, an unknown pass)
  makes `optimize` return None, so the caller runs the pipeline in llvmlite; the first such
  failure warns once (`RuntimeWarning`) and turns the library off for the process.
- Every LLVM object made for a run (context, module, options, buffers, messages) is disposed
  before the run returns; the target machines (one per level) are made once and kept.
"""

from __future__ import annotations

import ctypes
import glob
import os
import threading
import warnings
from collections.abc import Callable
from typing import Any

import llvmlite.binding as llvm

from enzyme_py.backend.target import _host

#: Host architecture (the triple's first part) -> LLVM's name for its target.
_TARGETS = {"x86_64": "X86", "aarch64": "AArch64", "arm64": "AArch64", "powerpc64le": "PowerPC",
            "riscv64": "RISCV", "s390x": "SystemZ"}

_P = ctypes.c_void_p
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "LLVMGetVersion": (None, [ctypes.POINTER(ctypes.c_uint)] * 3),
    "LLVMContextCreate": (_P, []),
    "LLVMContextDispose": (None, [_P]),
    "LLVMCreateMemoryBufferWithMemoryRangeCopy": (_P, [ctypes.c_char_p, ctypes.c_size_t,
                                                      ctypes.c_char_p]),
    "LLVMParseIRInContext": (ctypes.c_int, [_P, _P, ctypes.POINTER(_P), ctypes.POINTER(_P)]),
    "LLVMDisposeModule": (None, [_P]),
    "LLVMPrintModuleToString": (_P, [_P]),
    "LLVMDisposeMessage": (None, [_P]),
    "LLVMCreatePassBuilderOptions": (_P, []),
    "LLVMDisposePassBuilderOptions": (None, [_P]),
    "LLVMPassBuilderOptionsSetLoopVectorization": (None, [_P, ctypes.c_int]),
    "LLVMPassBuilderOptionsSetSLPVectorization": (None, [_P, ctypes.c_int]),
    "LLVMPassBuilderOptionsSetLoopInterleaving": (None, [_P, ctypes.c_int]),
    "LLVMPassBuilderOptionsSetLoopUnrolling": (None, [_P, ctypes.c_int]),
    "LLVMRunPasses": (_P, [_P, ctypes.c_char_p, _P, _P]),
    "LLVMGetErrorMessage": (_P, [_P]),
    "LLVMDisposeErrorMessage": (None, [_P]),
    "LLVMGetTargetFromTriple": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(_P),
                                               ctypes.POINTER(_P)]),
    "LLVMCreateTargetMachine": (_P, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.c_int, ctypes.c_int, ctypes.c_int]),
    "LLVMParseCommandLineOptions": (None, [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                           ctypes.c_char_p]),
    "LLVMTargetMachineEmitToMemoryBuffer": (ctypes.c_int, [_P, _P, ctypes.c_int,
                                                           ctypes.POINTER(_P), ctypes.POINTER(_P)]),
    "LLVMGetBufferStart": (_P, [_P]),
    "LLVMGetBufferSize": (ctypes.c_size_t, [_P]),
    "LLVMDisposeMemoryBuffer": (None, [_P]),
}

#: LLVM-C's `LLVMCodeModelLarge`: the code model of llvmlite's target machines for the JIT
#: (code and data may lie more than 2 GiB apart), so objects made here link the same way.
_LARGE_CODE_MODEL = 6


class _Library:
    """The loaded library, its functions typed, the host's target (and its target machines,
    one per optimization level) and the last value of each command-line option set here."""

    def __init__(self, lib: ctypes.CDLL, target: _P) -> None:
        self.lib = lib
        self.target = target
        self.machines: dict[int, int] = {}
        self.options: dict[str, str] = {}

    def machine(self, level: int) -> int:
        """The host's target machine at codegen `level` (large code model); under `_lock`."""
        if level not in self.machines:
            host = _host()
            made = self.lib.LLVMCreateTargetMachine(
                self.target, host.triple.encode(), host.cpu.encode(), host.features.encode(),
                level, 0, _LARGE_CODE_MODEL)
            if not made:
                raise OSError("LLVMCreateTargetMachine made no target machine")
            self.machines[level] = made
        return self.machines[level]

    def set_option(self, name: str, value: str) -> None:
        if self.options.get(name) != value:
            argv = (ctypes.c_char_p * 2)(b"enzyme_py", f"-{name}={value}".encode())
            self.lib.LLVMParseCommandLineOptions(2, argv, None)
            self.options[name] = value


_lock = threading.Lock()
_loaded: list[_Library | None] = []  # [] until looked for; then [the library or None]


def _candidates(major: int) -> list[str]:
    found: list[str] = []
    for pattern in (f"/usr/lib/llvm-{major}/lib/libLLVM.so.{major}*",
                    f"/usr/lib/llvm-{major}/lib/libLLVM-{major}.so",
                    f"/usr/lib/*/libLLVM.so.{major}*", f"/usr/lib/*/libLLVM-{major}.so*",
                    f"/usr/lib64/libLLVM.so.{major}*", f"/usr/lib64/libLLVM-{major}.so*"):
        found += sorted(glob.glob(pattern))
    return found


def _open(major: int) -> _Library | None:
    """The first candidate library of LLVM `major` that loads and has a target machine for
    the host."""
    host = _host()
    target = _TARGETS.get(host.triple.split("-", 1)[0])
    if target is None:
        return None
    for path in _candidates(major):
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
            for name, (restype, argtypes) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = restype, argtypes
            version = [ctypes.c_uint() for _ in range(3)]
            lib.LLVMGetVersion(*map(ctypes.byref, version))
            if version[0].value != major:
                continue
            for part in ("TargetInfo", "Target", "TargetMC", "AsmPrinter"):
                getattr(lib, f"LLVMInitialize{target}{part}")()
        except (OSError, AttributeError):
            continue
        found, error = _P(), _P()
        if lib.LLVMGetTargetFromTriple(host.triple.encode(), ctypes.byref(found),
                                       ctypes.byref(error)):
            lib.LLVMDisposeMessage(error)
            continue
        library = _Library(lib, found)
        try:
            library.machine(2)
        except OSError:
            continue
        library.set_option("hoist-runtime-checks", "false")  # (see `pipelines`)
        return library
    return None


def library() -> _Library | None:
    """The release library, looked for once; None where it is missing or turned off."""
    if os.environ.get("ENZYME_PY_NO_SYSTEM_LLVM", "0") not in ("", "0"):
        return None
    with _lock:
        if not _loaded:
            _loaded.append(_open(llvm.llvm_version_info[0]))
        return _loaded[0]


def _give_up(why: str) -> None:
    with _lock:
        _loaded[:] = [None]
    warnings.warn(f"enzyme_py: the system's LLVM library failed ({why}); LLVM's pipelines run "
                  "in llvmlite from now on (ENZYME_PY_NO_SYSTEM_LLVM=1 skips the library)",
                  RuntimeWarning, stacklevel=3)


def _message(pointer: int | None, dispose: Any) -> str:
    if not pointer:
        return "no message"
    text = ctypes.string_at(pointer).decode(errors="replace").strip()
    dispose(pointer)
    return text


def optimize(text: str, pipeline: str, loop_vectorize: bool, slp_vectorize: bool,
             unroll: bool, ordered_reductions: bool) -> str | None:
    """`text` (verified, for the host) after LLVM's textual `pipeline` (`default<O2>`, or a
    list of passes) with the given tuning, in the release library; None where the library is
    missing or failed (the caller then runs the pipeline in llvmlite)."""
    found = library()
    if found is None:
        return None
    with _lock:
        # (LLVM 22's C API leaves the loop vectorizer on when the tuning turns it off; the
        # library's own switches for both vectorizers and interleaving hold)
        for name, value in (("force-ordered-reductions", ordered_reductions),
                            ("vectorize-loops", loop_vectorize),
                            ("interleave-loops", loop_vectorize),
                            ("vectorize-slp", slp_vectorize)):
            found.set_option(name, "true" if value else "false")
        out, why = _on_module(found, text, lambda module: _run(
            found.lib, found.machine(2), module, pipeline,
            (loop_vectorize, slp_vectorize, loop_vectorize, unroll)))
    if out is None:
        _give_up(why)
        return None
    return _same_header(out, text)


def emit_object(text: str, level: int, without_lsr: bool) -> bytes | None:
    """The host's object file of `text` (verified, optimized) from the release library's code
    generator at `level` (`without_lsr`: loop strength reduction off, see `native`), for the
    large code model as llvmlite's JIT makes them; None where the library is missing or
    failed (the caller then generates the code in llvmlite)."""
    found = library()
    if found is None:
        return None
    with _lock:
        found.set_option("disable-lsr", "true" if without_lsr else "false")
        obj, why = _on_module(found, text, lambda module: _emit(found, module, level))
    if obj is None:
        _give_up(why)
    return obj


def _on_module(found: _Library, text: str,
               work: Callable[[_P], tuple[Any, str]]) -> tuple[Any, str]:
    """`work(module)` on `text` parsed into a fresh context of the library, both disposed
    after; (None, why) where the library's parser refuses the text. Under `_lock`."""
    lib = found.lib
    data = text.encode()
    context = lib.LLVMContextCreate()
    try:
        # (the parser takes the buffer over, and frees it)
        buffer = lib.LLVMCreateMemoryBufferWithMemoryRangeCopy(data, len(data), b"module")
        module, error = _P(), _P()
        if lib.LLVMParseIRInContext(context, buffer, ctypes.byref(module), ctypes.byref(error)):
            return None, _message(error.value, lib.LLVMDisposeMessage)
        try:
            return work(module)
        finally:
            lib.LLVMDisposeModule(module)
    finally:
        lib.LLVMContextDispose(context)


def _emit(found: _Library, module: _P, level: int) -> tuple[bytes | None, str]:
    """(the object file of `module` at codegen `level`, "") or (None, why)."""
    lib = found.lib
    error, out = _P(), _P()
    if lib.LLVMTargetMachineEmitToMemoryBuffer(found.machine(level), module, 1,
                                               ctypes.byref(error), ctypes.byref(out)):
        return None, _message(error.value, lib.LLVMDisposeMessage)
    obj = ctypes.string_at(lib.LLVMGetBufferStart(out), lib.LLVMGetBufferSize(out))
    lib.LLVMDisposeMemoryBuffer(out)
    return obj, ""


def _run(lib: ctypes.CDLL, machine: int, module: _P, pipeline: str,
         tuning: tuple[bool, bool, bool, bool]) -> tuple[str | None, str]:
    """(`module`'s text after `pipeline`, "") or (None, why)."""
    options = lib.LLVMCreatePassBuilderOptions()
    try:
        for setting, value in zip(("LoopVectorization", "SLPVectorization", "LoopInterleaving",
                                   "LoopUnrolling"), tuning, strict=True):
            getattr(lib, f"LLVMPassBuilderOptionsSet{setting}")(options, int(value))
        error = lib.LLVMRunPasses(module, pipeline.encode(), machine, options)
    finally:
        lib.LLVMDisposePassBuilderOptions(options)
    if error:
        return None, _message(lib.LLVMGetErrorMessage(error), lib.LLVMDisposeErrorMessage)
    printed = lib.LLVMPrintModuleToString(module)
    return _message(printed, lib.LLVMDisposeMessage) + "\n", ""


def _same_header(out: str, given: str) -> str:
    """`out` with the `; ModuleID` and `source_filename` lines of `given` (the library names
    the module after its buffer)."""
    keep = {line.split(" ", 1)[0]: line for line in given.split("\n", 3)[:3]
            if line.startswith(("; ModuleID", "source_filename"))}
    lines = out.split("\n", 3)
    for i, line in enumerate(lines[:3]):
        key = line.split(" ", 1)[0]
        if key in keep and line.startswith(("; ModuleID", "source_filename")):
            lines[i] = keep[key]
    return "\n".join(lines)
