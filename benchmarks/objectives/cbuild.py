"""Build an objective's C form and call it through ctypes with the Python form's arguments.

    clang-22 -O2 -S -emit-llvm <name>.c  ->  enzyme-py transform  ->  clang-22 -O2 -shared

The C file defines `double <NAME>_primal(...)` with the parameters of the module's `primal`
in the same order (float64 or int64 ndarray -> pointer, Python int -> int64_t, Python float ->
double) and `void <NAME>_gradient(..., double *d_<arg> for each entry of ARGNUMS)`.
Invariants: arrays are checked to be C-contiguous float64/int64 before native code runs;
the gradient shadows are fresh zeroed arrays, so each call returns the gradient itself.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

CLANG = "clang-22"
_DTYPES = (np.dtype(np.float64), np.dtype(np.int64))


def find_clang() -> str | None:
    """Path of clang-22, or None when it is not installed."""
    return shutil.which(CLANG)


def _run(cmd: list[str]) -> None:
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"command failed ({res.returncode}): {' '.join(cmd)}\n"
                           f"{res.stdout}{res.stderr}")


def compile_library(source: Path, workdir: Path) -> Path:
    """The shared library of `source` with every `__enzyme_autodiff` call lowered."""
    clang = find_clang()
    if clang is None:
        raise RuntimeError("clang-22 is not installed (apt-get install clang-22)")
    workdir.mkdir(parents=True, exist_ok=True)
    primal_ll = workdir / f"{source.stem}.ll"
    grad_ll = workdir / f"{source.stem}.grad.ll"
    lib = workdir / f"lib{source.stem}.so"
    _run([clang, "-O2", "-S", "-emit-llvm", str(source), "-o", str(primal_ll)])
    _run([sys.executable, "-m", "enzyme_py", "transform", str(primal_ll), "-o", str(grad_ll)])
    _run([clang, "-O2", "-shared", "-fPIC", str(grad_ll), "-o", str(lib), "-lm"])
    return lib


def _c_arg(a: object) -> tuple[object, object]:
    """(ctypes type, value) for one Python argument."""
    if isinstance(a, np.ndarray):
        if a.dtype not in _DTYPES or not a.flags.c_contiguous:
            raise TypeError(f"arrays must be C-contiguous float64 or int64, got {a.dtype}")
        return ctypes.c_void_p, a.ctypes.data
    if isinstance(a, (bool, np.bool_)):
        raise TypeError("bool arguments have no C form here")
    if isinstance(a, (int, np.integer)):
        return ctypes.c_int64, int(a)
    if isinstance(a, (float, np.floating)):
        return ctypes.c_double, float(a)
    raise TypeError(f"unsupported argument type {type(a).__name__}")


def build_c(module: ModuleType, workdir: Path) -> tuple[Callable[..., float],
                                                        Callable[..., tuple[np.ndarray, ...]]]:
    """(primal_fn, gradient_fn) of `module`'s C form, built in `workdir`.

    Both take the arguments of `module.primal`; `primal_fn` returns a float and `gradient_fn`
    a tuple of arrays, one per entry of `module.ARGNUMS` (shaped like those arguments).

    Example::

        primal_fn, grad_fn = build_c(gmm, Path("/tmp/gmm"))
        args = gmm.make_args(gmm.sizes(quick=True)[0])
        value, grads = primal_fn(*args), grad_fn(*args)
    """
    lib = ctypes.CDLL(str(compile_library(Path(module.C_SOURCE), Path(workdir))))
    c_primal = getattr(lib, f"{module.NAME}_primal")
    c_primal.restype = ctypes.c_double
    c_grad = getattr(lib, f"{module.NAME}_gradient")
    c_grad.restype = None
    argnums = tuple(module.ARGNUMS)

    def primal_fn(*args: object) -> float:
        types, values = zip(*(_c_arg(a) for a in args), strict=True)
        c_primal.argtypes = list(types)
        return float(c_primal(*values))

    def gradient_fn(*args: object) -> tuple[np.ndarray, ...]:
        shadows = []
        for i in argnums:
            a = args[i]
            if not (isinstance(a, np.ndarray) and a.dtype == np.float64):
                raise TypeError(f"argument {i} must be a float64 array to be differentiated")
            shadows.append(np.zeros_like(a))
        types, values = zip(*(_c_arg(a) for a in (*args, *shadows)), strict=True)
        c_grad.argtypes = list(types)
        c_grad(*values)
        return tuple(shadows)

    return primal_fn, gradient_fn
