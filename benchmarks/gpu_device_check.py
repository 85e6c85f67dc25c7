"""The device check: every kernel of the CUDA test corpus and its derivative kernels, run on a
real GPU against the simulated grid, and timed (gradient-kernel time / kernel time, the figure
of Enzyme's SC21 paper: within 10x).

    .venv/bin/python benchmarks/gpu_device_check.py              # on a machine with a GPU
    .venv/bin/python benchmarks/gpu_device_check.py --simulate-only   # PTX + simulation only

For each kernel: build `@diffe_k` and `@fwddiffe_k` (`enzyme_py.api.kernels`), emit PTX for the
device's SM, run the kernel, the gradient kernel and the tangent kernel on the device and on the
simulated grid from the same inputs (every shadow and tangent random), compare every array, then
time the kernel and the gradient kernel at a larger size (medians of CUDA-event timings). Exit
status 1 when any comparison fails; the table goes to stdout.

Needs clang-22, and for the device part `pip install 'enzyme_py[gpu]'` (cuda-bindings), the
NVIDIA driver and a GPU; `--simulate-only` needs neither and checks the rest.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from enzyme_py.ad.activity_arguments import default_activity  # noqa: E402
from enzyme_py.api.kernels import KernelDerivatives, kernel_derivatives  # noqa: E402
from enzyme_py.ir import parse  # noqa: E402
from enzyme_py.testing.grid import SimulatedGrid  # noqa: E402

CORPUS = ROOT / "tests" / "gpu" / "kernels" / "corpus.cu"
CUDA = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc",
        "-nocudalib", "-emit-llvm", "-S", "-O2", "-Wno-unknown-cuda-version"]
RNG = np.random.default_rng(5)
F32, F64, I32 = np.float32, np.float64, np.int32

Args = list[Any]


@dataclass(frozen=True)
class Case:
    """A kernel at a size: its arguments, grid and block; `acts` for the gradient."""

    make: Callable[[int], tuple[Args, Any, Any]]
    check_size: int  # small enough for the simulated grid
    time_size: int  # the device timing
    acts: tuple[str, ...] | None = None
    rtol: float = 1e-10


def _r(n: int, dtype=F64) -> np.ndarray:
    return RNG.random(n).astype(dtype)


def _blocks(n: int, b: int = 256) -> int:
    return max(1, (n + b - 1) // b)


def _xs(n: int) -> tuple[Args, Any, Any]:
    m = 64
    grid = np.sort(RNG.random(m)) * 10
    grid[0], grid[-1] = 0.0, 10.0
    return [n, m, grid, _r(m), RNG.uniform(0.1, 9.9, n), np.zeros(n)], _blocks(n), 256


def _stencil2d(n: int) -> tuple[Args, Any, Any]:
    nx = ny = n
    return [nx, ny, _r(nx * ny), np.zeros(nx * ny)], (_blocks(nx, 16), _blocks(ny, 16)), (16, 16)


CASES: dict[str, Case] = {
    "saxpy": Case(lambda n: ([n, F32(2.5), _r(n, F32), _r(n, F32)], _blocks(n), 256),
                  500, 1 << 22, rtol=1e-4),
    "gather_scatter": Case(lambda n: ([n, RNG.integers(0, 64, n).astype(I32), _r(n),
                                       np.zeros(64)], _blocks(n), 256), 500, 1 << 20,
                           acts=("const", "const", "dup", "dup")),
    "block_sum": Case(lambda n: ([_r(64 * n), np.zeros(n)], n, 64), 4, 1 << 14),
    "warp_sum": Case(lambda n: ([n, _r(n, F32), np.zeros(1, F32)], _blocks(n), 256), 300,
                     1 << 20, rtol=1e-3),
    "warp_modes": Case(lambda n: ([_r(64 * n, F32), np.zeros(64 * n, F32),
                                   np.zeros(64 * n, F32), np.zeros(64 * n, F32)], n, 64),
                       1, 1 << 12, rtol=1e-4),
    "stencil1d": Case(lambda n: ([n, _r(n), np.zeros(n)], _blocks(n), 256), 700, 1 << 22),
    "stencil2d": Case(_stencil2d, 40, 2048),
    "element_update": Case(lambda n: ([n, _r(n), _r(n), np.zeros(n)], _blocks(n), 256), 500,
                           1 << 22, rtol=1e-9),
    "horner": Case(lambda n: ([n, 8, _r(9), _r(n), np.zeros(n)], _blocks(n), 256), 500,
                   1 << 20, acts=("const", "const", "dup", "dup", "dup")),
    "xs_lookup": Case(_xs, 500, 1 << 20),
    "sum_squares": Case(lambda n: ([n, 1.5, _r(n), np.zeros(1)], _blocks(n), 256), 500,
                        1 << 22),
    # (no bounds test in the kernel: n is a multiple of the block)
    "shared_weight": Case(lambda n: ([64, (np.arange(64) % 4).astype(I32), _r(4), _r(n),
                                      np.zeros(n)], _blocks(n), 256), 512, 1 << 20,
                          acts=("const", "const", "dup", "dup", "dup")),
}


def compile_corpus() -> str:
    clang = shutil.which("clang-22")
    if clang is None:
        sys.exit("clang-22 is needed (apt-get install clang-22)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "corpus.ll"
        subprocess.run([clang, *CUDA, str(CORPUS), "-o", str(out)], check=True)
        return out.read_text()


def _activities(d: KernelDerivatives, kernel: str, case: Case, forward: bool) -> list[str]:
    fn = parse(d.ir).get_function(kernel)
    if case.acts is not None and not forward:
        return list(case.acts)
    return [str(a) for a in default_activity(fn, forward)]


def derivative_arguments(d: KernelDerivatives, kernel: str, case: Case, args: Args,
                         forward: bool) -> Args:
    """The derivative kernel's arguments: each primal argument, then its shadow or tangent
    (random, so that a wrong accumulation shows); an `out` scalar gets a 1-element array its
    adjoint is added to."""
    out: Args = []
    for value, act in zip(args, _activities(d, kernel, case, forward), strict=True):
        out.append(value.copy() if isinstance(value, np.ndarray) else value)
        if act == "dup" and isinstance(value, np.ndarray):
            out.append(RNG.random(value.shape).astype(value.dtype) if value.dtype.kind == "f"
                       else np.zeros_like(value))
        elif act == "dup":  # a float scalar's tangent
            out.append(type(value)(0.5))
        elif act == "out":
            out.append(np.zeros(1, value.dtype if isinstance(value, np.generic) else F64))
    return out


def _copies(args: Args) -> Args:
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _check(d: KernelDerivatives, kernel: str, case: Case, ptx: str, gpu: Any) -> str:
    """Run the kernel and both derivatives on the simulated grid (and the device): 'ok', or
    what differs."""
    args, grid, block = case.make(case.check_size)
    runs = [(kernel, list(args)),
            (d.gradient, derivative_arguments(d, kernel, case, args, forward=False)),
            (d.tangent, derivative_arguments(d, kernel, case, args, forward=True))]
    module = gpu.load(ptx) if gpu is not None else None
    for which, values in runs:
        sim = _copies(values)
        SimulatedGrid(d.ir, which).run(sim, grid=grid, block=block)
        if module is None:
            continue
        dev = _copies(values)
        module.kernel(which)(*dev, grid=grid, block=block)
        for k, (a, b) in enumerate(zip(dev, sim, strict=True)):
            if isinstance(a, np.ndarray) and not np.allclose(a, b, rtol=case.rtol,
                                                            atol=case.rtol):
                err = float(np.max(np.abs(a - b)))
                return f"@{which} argument {k} differs by {err:.3g}"
    return "ok" if module is not None else "sim ok"


def _time(d: KernelDerivatives, kernel: str, case: Case, ptx: str, gpu: Any,
          repeats: int) -> tuple[float, float]:
    """Median milliseconds of the kernel and of its gradient kernel at `case.time_size`."""
    args, grid, block = case.make(case.time_size)
    module = gpu.load(ptx)
    grad_args = derivative_arguments(d, kernel, case, args, forward=False)
    device = [gpu.DeviceBuffer.from_array(a) if isinstance(a, np.ndarray) else a
              for a in args]
    device_grad = [gpu.DeviceBuffer.from_array(a) if isinstance(a, np.ndarray) else a
                   for a in grad_args]
    t_kernel = module.kernel(kernel).time(*device, grid=grid, block=block, repeats=repeats)
    t_grad = module.kernel(d.gradient).time(*device_grad, grid=grid, block=block,
                                            repeats=repeats)
    return statistics.median(t_kernel), statistics.median(t_grad)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--simulate-only", action="store_true",
                   help="build the PTX and run the simulated grid only (no GPU needed)")
    p.add_argument("--kernels", nargs="*", default=list(CASES), help="which kernels")
    p.add_argument("--repeats", type=int, default=20)
    args = p.parse_args()
    corpus = compile_corpus()
    gpu = None
    sm = 80
    if not args.simulate_only:
        from enzyme_py import gpu as gpu_module
        if not gpu_module.available():
            print("no GPU here (or no cuda-bindings / driver): run with --simulate-only, or "
                  f"install the extra: {gpu_module.INSTALL}", file=sys.stderr)
            return 2
        gpu = gpu_module
        sm = gpu.device_info().sm
    failures = 0
    print(f"{'kernel':16} {'check':>8} {'kernel ms':>10} {'grad ms':>10} {'grad/kernel':>12}")
    for name in args.kernels:
        case = CASES[name]
        d = kernel_derivatives(corpus, name, activities=case.acts)
        ptx = d.ptx(sm=sm)
        status = _check(d, name, case, ptx, gpu)
        failures += not status.endswith("ok")
        if gpu is not None and status == "ok":
            t_k, t_g = _time(d, name, case, ptx, gpu, args.repeats)
            print(f"{name:16} {status:>8} {t_k:10.4f} {t_g:10.4f} {t_g / t_k:12.2f}")
        else:
            print(f"{name:16} {status:>8} {'-':>10} {'-':>10} {'-':>12}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
