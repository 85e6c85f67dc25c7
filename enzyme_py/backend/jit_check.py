"""Checks before code is generated for this host (`compile_ir`): refuse what LLVM would stop
the process on, or what would crash when called.

Invariants of `check_jit(text, level)`:

- a module for another platform (its `target triple`, see `target.same_platform`) or with
  another `target datalayout` than the host's is a `BackendError` naming them (LLVM would abort,
  or generate code for the wrong machine); its IR can still be optimized and differentiated;
- a call of another target's intrinsic (`@llvm.nvvm.*` on x86-64: LLVM aborts with "Cannot
  select") is a `BackendError`;
- a function whose `"target-features"` enable a CPU feature this host lacks is a `BackendError`
  (its code would die of an illegal instruction), and so is an x86-64 function without SSE
  (LLVM ends the process: "SSE register return with SSE disabled");
- a module whose code generation LLVM may still end the process on (inline asm it cannot
  assemble, a host intrinsic the function's features do not allow) is compiled once in a
  child process first, and a child that dies is a `BackendError` with LLVM's message. Set
  ENZYME_PY_JIT_CHILD=1 to skip that check (the child itself runs with it).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import llvmlite.binding as llvm

from enzyme_py.backend.target import _host, same_platform
from enzyme_py.errors import BackendError

_DATALAYOUT = re.compile(r'^target datalayout = "([^"\n]*)"', re.MULTILINE)
_TRIPLE = re.compile(r'^target triple = "([^"\n]*)"', re.MULTILINE)
_INTRINSIC = re.compile(r'@(llvm\.([a-z0-9]+)\.[-\w.$]*)')
_FEATURES = re.compile(r'"target-features"="([^"\n]*)"')
# (two patterns that each start with a literal, which `re` finds fast: one alternation, or a
# leading \b, would try every position of a large module)
_ASM_CALL = re.compile(r'asm(?: sideeffect| alignstack| inteldialect| unwind)* "')
_MODULE_ASM = re.compile(r"^module asm ", re.MULTILINE)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.$-")
#: The prefixes of LLVM's target-specific intrinsics (`llvm.<prefix>.*`, Intrinsics*.td) and
#: the architectures (as `get_triple_parts` names them) each belongs to.
TARGET_INTRINSICS = {
    "aarch64": ("aarch64", "aarch64_be"), "amdgcn": ("amdgcn",), "arm": ("arm", "thumb"),
    "bpf": ("bpfel", "bpfeb"), "dx": ("dxil",), "hexagon": ("hexagon",),
    "loongarch": ("loongarch32", "loongarch64"), "mips": ("mips", "mipsel", "mips64",
                                                          "mips64el"),
    "nvvm": ("nvptx", "nvptx64"), "ppc": ("ppc", "ppcle", "ppc64", "ppc64le"),
    "r600": ("r600", "amdgcn"), "riscv": ("riscv32", "riscv64"), "s390": ("systemz",),
    "spv": ("spirv", "spirv32", "spirv64"), "ve": ("ve",), "wasm": ("wasm32", "wasm64"),
    "x86": ("i386", "x86_64"), "xcore": ("xcore",),
}
#: Features every x86-64 processor has (host detection does not always report them: x87).
_X86_64_BASELINE = frozenset({"64bit", "x87", "cmov", "cx8", "fxsr", "mmx", "sse", "sse2"})
CHILD_ENV = "ENZYME_PY_JIT_CHILD"
_CHILD = """
import sys
try:
    from enzyme_py.backend import compile_ir
    compile_ir(sys.stdin.read(), int(sys.argv[1]))
except Exception:
    pass  # an ordinary error: the parent meets it again and raises it
"""


def check_jit(text: str, level: int) -> None:
    """Raise `BackendError` if `text` cannot be compiled for this host without a crash."""
    host = _host()
    arch = llvm.get_triple_parts(host.triple).Arch
    m = _TRIPLE.search(text)
    if m and not same_platform(m.group(1), host.triple):
        raise BackendError(
            f"the module is for target '{m.group(1)}', so it cannot be compiled to run on this "
            f"host ('{host.triple}'); its IR can still be optimized and differentiated "
            "(`enzyme-py grad`, `enzyme-py transform`)")
    m = _DATALAYOUT.search(text)
    if m and m.group(1) != host.data_layout:
        raise BackendError(
            f"the module's target datalayout '{m.group(1)}' is not this host's "
            f"('{host.data_layout}'), so it cannot be compiled to run here")
    risky = []
    for name, prefix in _intrinsics(text).items():
        if prefix not in TARGET_INTRINSICS:
            continue
        if arch not in TARGET_INTRINSICS[prefix]:
            raise BackendError(f"@{name} is an intrinsic of another target ({prefix}), which "
                               f"this host ({arch}) cannot compile (LLVM would abort)")
        risky.append(f"the {prefix} intrinsic @{name}")
    _check_features(text, arch, host.features)
    if _has_inline_asm(text):
        risky.append("inline asm")
    if risky and os.environ.get(CHILD_ENV, "0") in ("", "0"):
        _compile_in_child(text, level, risky[0])


def _has_inline_asm(text: str) -> bool:
    """Does `text` hold module-level asm or a call of inline asm (`asm` as a word, not the
    end of a name such as `%x.asm`)?"""
    if _MODULE_ASM.search(text):
        return True
    return any(m.start() == 0 or text[m.start() - 1] not in _NAME_CHARS
               for m in _ASM_CALL.finditer(text))


def _intrinsics(text: str) -> dict[str, str]:
    """Intrinsic names used or declared in `text` -> their prefix (`llvm.x86.sse2.pause` ->
    `x86`)."""
    return {m.group(1): m.group(2) for m in _INTRINSIC.finditer(text)}


def _check_features(text: str, arch: str, host_features: str) -> None:
    have = {f[1:]: f[0] == "+" for f in host_features.split(",") if f}
    for m in _FEATURES.finditer(text):
        listed = [f for f in m.group(1).split(",") if f]
        if arch == "x86_64" and ({"-sse", "-sse2"} & set(listed)):
            raise BackendError(
                f"a function has \"target-features\"=\"{m.group(1)}\": x86-64 code without "
                "SSE cannot be compiled to run here (LLVM ends the process on a floating point "
                "argument or result: SSE register return with SSE disabled)")
        missing = [f[1:] for f in listed if f[0] == "+" and have.get(f[1:]) is False
                   and not (arch == "x86_64" and f[1:] in _X86_64_BASELINE)]
        if missing:
            raise BackendError(
                f"a function needs CPU features this host lacks ({', '.join(missing)}): it was "
                "compiled for another processor (clang -march=...), and its code would stop "
                "with an illegal instruction here; recompile it for this host or without "
                "-march")


def _compile_in_child(text: str, level: int, reason: str) -> None:
    """Compile `text` in a child process; raise `BackendError` if LLVM ends it."""
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, CHILD_ENV: "1",
           "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH"))
                                         if p)}
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, str(level)], input=text,
                              capture_output=True, text=True, env=env, timeout=600,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return  # no verdict: compile in this process, as without the check
    if done.returncode != 0:
        said = "\n".join(done.stderr.strip().splitlines()[-6:]) or f"exit status " \
            f"{done.returncode}"
        raise BackendError(f"LLVM ends the process compiling this module (tried in a child "
                           f"process first, because of {reason}):\n{said}")
