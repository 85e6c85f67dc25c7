"""PTX out: an NVPTX module (CUDA device code, a kernel and its derivatives) as PTX text,
through LLVM's NVPTX backend in llvmlite.

    ptx = emit_ptx(text, sm=80)           # ".version 8.x / .target sm_80 / .entry saxpy ..."

Invariants: the module must be NVPTX (`nvptx64-nvidia-cuda`; another triple is a
`BackendError` naming it: PTX is not made from host code); it is verified, optimized at
`opt_level` by the NVPTX target machine for `sm_<sm>` (its own `"target-cpu"` attributes
agree, as clang writes them), and printed as assembly; nothing is linked or loaded, so no GPU
or driver is needed. The PTX ISA version is the lowest LLVM 22 accepts for the SM (sm_80:
7.0, sm_90: 7.8), raised to the one the module's `"target-features"` ask for, and to 7.3 when
the module allocates stack memory of a size known only at run time (a derivative's tape).
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm

from enzyme_py.backend import shared_code
from enzyme_py.backend.pipelines import _check_level, _run_pipeline
from enzyme_py.backend.target import _init_lock, has_target
from enzyme_py.backend.text import _scratch
from enzyme_py.errors import BackendError

__all__ = ["emit_ptx"]

_TRIPLES = ("nvptx64-nvidia-cuda", "nvptx-nvidia-cuda")
_MIN_PTX = {70: 60, 75: 63, 80: 70, 86: 71, 87: 74, 89: 78, 90: 78, 100: 86, 120: 87}
_FEATURE = re.compile(r"\+ptx(\d+)")
_DYNAMIC_ALLOCA = re.compile(r"= alloca [^,\n]+, i(?:8|16|32|64) %")
_DYNAMIC_ALLOCA_PTX = 73


def _ptx_version(text: str, sm: int) -> int:
    asked = [int(v) for v in _FEATURE.findall(text)]
    floor = max((v for s, v in _MIN_PTX.items() if s <= sm), default=60)
    if _DYNAMIC_ALLOCA.search(text):
        floor = max(floor, _DYNAMIC_ALLOCA_PTX)
    return max([floor, *asked])


def emit_ptx(text: str, sm: int = 80, opt_level: int = 2) -> str:
    """PTX assembly of an NVPTX module for `sm_<sm>` (see the module docstring)."""
    _check_level(opt_level)
    triple = re.search(r'^target triple = "([^"]*)"', text, re.M)
    if triple is None or triple.group(1) not in _TRIPLES:
        got = triple.group(1) if triple else "none"
        raise BackendError(f"PTX is made from an NVPTX module (target triple "
                           f"nvptx64-nvidia-cuda), not from one for {got}")
    if not isinstance(sm, int) or sm < 50:
        raise BackendError(f"sm must be a compute capability such as 80 or 90, not {sm!r}")
    if not has_target(triple.group(1)):
        raise BackendError("this LLVM has no NVPTX backend")
    _, shared = shared_code.split_off(text)
    if shared:
        raise BackendError(f"@{shared[0]} (a matrix product) runs on the host only: its code "
                           "is linked into host modules, not made for a GPU kernel; write "
                           "the product as a loop in the kernel")
    features = f"+ptx{_ptx_version(text, sm)}"
    with _init_lock:
        machine = llvm.Target.from_triple(triple.group(1)).create_target_machine(
            cpu=f"sm_{sm}", features=features, opt=opt_level)
    with _scratch(text) as module:
        if opt_level:
            _run_pipeline(module, opt_level, True, True)
        return machine.emit_assembly(module)
