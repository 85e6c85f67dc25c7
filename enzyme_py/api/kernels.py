"""GPU kernels and their derivative kernels, from the NVPTX IR clang-22 emits for CUDA device
code (`-x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -emit-llvm`).

    k = kernel_derivatives(open("k.ll").read(), "saxpy")   # @diffe_saxpy and @fwddiffe_saxpy
    ptx = k.ptx(sm=80)                                     # all three kernels, as PTX text

The gradient kernel takes each argument followed by its shadow when it is `dup`, and for an
active scalar (`out`) a pointer its adjoint is added to (atomically: every thread adds its
part); it returns nothing. Shadows accumulate, so they start as the caller's seeds (an output's
adjoint) or zeros (an input's gradient); the seed of memory the kernel overwrites is consumed
(read and zeroed), as in Enzyme, and one it only adds to (`atomicAdd`) is kept. The tangent
kernel takes each argument followed by its tangent (`dup`); floats and pointers are `dup` by
default there.

Invariants: the source is never changed; both derivatives are built from the same canonical
kernel and live in one module with it; the module stays NVPTX (it is not runnable on the
CPU: `enzyme_py.testing.SimulatedGrid` runs it there, `enzyme_py.gpu` on a device).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from enzyme_py.ad.activity_arguments import default_activity
from enzyme_py.ad.driver import forward_module, gradient_module
from enzyme_py.analysis.gpu import is_kernel, on_device
from enzyme_py.backend.ptx import emit_ptx
from enzyme_py.config import Config
from enzyme_py.errors import ArgumentValueError
from enzyme_py.ir import parse
from enzyme_py.ir.module import Module

__all__ = ["KernelDerivatives", "kernel_derivatives"]


@dataclass(frozen=True)
class KernelDerivatives:
    """A kernel and its derivative kernels, in one NVPTX module (`ir`)."""

    ir: str
    kernel: str
    gradient: str | None  # `@diffe_<kernel>` (reverse mode), if asked for
    tangent: str | None  # `@fwddiffe_<kernel>` (forward mode), if asked for

    def ptx(self, sm: int = 80, opt_level: int = 2) -> str:
        """The module as PTX for `sm_<sm>` (no GPU needed); `opt_level` is the NVPTX target's
        own pipeline (which, among others, turns generic pointers into global ones)."""
        return emit_ptx(self.ir, sm=sm, opt_level=opt_level)


def kernel_derivatives(source: str | Path | Module, kernel: str, *,
                       activities: Sequence[str] | None = None,
                       tangent_activities: Sequence[str] | None = None,
                       reverse: bool = True, forward: bool = True,
                       config: Config | None = None) -> KernelDerivatives:
    """The gradient kernel and/or the tangent kernel of `kernel` (see the module docstring).
    `activities`: per argument, for the gradient (default: integers const, floats out,
    pointers dup); `tangent_activities` for the tangent kernel (default: integers const,
    the rest dup)."""
    module = _module(source)
    try:
        fn = module.get_function(kernel)
    except KeyError:
        raise ArgumentValueError(f"the module has no function @{kernel}") from None
    if not on_device(module) or not is_kernel(fn):
        raise ArgumentValueError(f"@{kernel} is not a GPU kernel (an NVPTX module's "
                                 "`ptx_kernel` function); differentiate host code with "
                                 "enzyme-py grad or the Python API")
    cfg = config or Config()
    gradient = tangent = None
    if reverse:
        acts = list(activities) if activities is not None else default_activity(fn, False)
        module, gradient = gradient_module(module, kernel, acts, False, cfg)
        fn = module.get_function(kernel)
    if forward:
        acts = list(tangent_activities) if tangent_activities is not None else \
            default_activity(fn, True)
        module, tangent = forward_module(module, kernel, acts, cfg)
    return KernelDerivatives(str(module), kernel, gradient, tangent)


def _module(source: str | Path | Module) -> Module:
    if isinstance(source, Module):
        return parse(str(source))
    if isinstance(source, Path):
        return parse(source.read_text())
    return parse(source)
