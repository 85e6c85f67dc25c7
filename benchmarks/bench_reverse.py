"""Reverse-mode cost: gradient time / primal time for five C kernels (medians).

Each kernel in `benchmarks/kernels/` is compiled by `clang-22 -O2 -S -emit-llvm`, its
gradient is added by `enzyme-py grad`, and both the clang output and the gradient module
are JIT-compiled with `enzyme_py.backend.compile_ir(..., opt_level=2)` in this process and
called with numpy arrays.  Sizes are scaled until one primal call takes >= 10 ms, so the
microseconds of per-call overhead do not matter.  Inputs that a call overwrites are
restored, shadows zeroed and output seeds set *outside* the timed region.  Every gradient
is checked against central finite differences of the primal on a few components before
its time is reported; a failed check makes `main` return 1.

Run: `python benchmarks/bench_reverse.py [--repeat N] [--quick] [--json FILE]`
(also part of `make bench`; `--quick` uses tiny sizes and one run as a smoke test).
Skips (exit 0) when clang-22 is not installed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from enzyme_py import backend as jit  # noqa: E402

KERNELS_DIR = ROOT / "benchmarks" / "kernels"
CLANG = "clang-22"
MIN_PRIMAL_S = 0.010  # one primal call must take at least this long (full runs)
FD_RTOL = 1e-5        # a gradient component further than this from FD is a failure


@dataclass
class Case:
    """One kernel instance: timed callables, their untimed preparation, and an FD check.

    `objective(inputs)` evaluates the scalar loss (the seed-weighted output) with the
    primal on copies of `inputs`; `gradient()` returns the gradient of that loss for every
    entry of `inputs` (scalars as 1-element arrays).  `probes` name the components that
    are checked, each with its absolute FD step.
    """

    size: str
    primal: Callable[[], object]
    primal_prep: Callable[[], None]
    grad: Callable[[], object]
    grad_prep: Callable[[], None]
    inputs: dict[str, np.ndarray]
    objective: Callable[[dict[str, np.ndarray]], float]
    gradient: Callable[[], dict[str, np.ndarray]]
    probes: list[tuple[str, int, float]] = field(default_factory=list)


@dataclass(frozen=True)
class Kernel:
    """A C kernel: where it lives, how to differentiate it, how to build a case.

    `make(primal, grad, scale, rng)` builds a Case; the cost of a call grows like
    `scale ** cost_exp`, which guides the size calibration.
    """

    title: str
    source: str
    function: str
    activity: str
    make: Callable[..., Case]
    base_scale: int
    quick_scale: int
    cost_exp: float = 1.0


def _nop() -> None:
    return None


def _probe_indices(rng: np.random.Generator, n: int, k: int, lo: int = 0) -> list[int]:
    return sorted({int(i) for i in rng.integers(lo, n - lo, size=k)})


# ---------------------------------------------------------------------------- kernels


def make_dot(primal, grad, n: int, rng: np.random.Generator) -> Case:
    x, y = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    dx, dy = np.zeros(n), np.zeros(n)

    def grad_prep() -> None:
        dx.fill(0.0)
        dy.fill(0.0)

    def gradient() -> dict[str, np.ndarray]:
        grad_prep()
        grad(x, dx, y, dy, n, 1.0)
        return {"x": dx.copy(), "y": dy.copy()}

    # bilinear: a large step is exact up to rounding and beats the long sum's rounding
    probes = [(name, i, 1e-3) for name in ("x", "y") for i in _probe_indices(rng, n, 3)]
    return Case(f"n={n:,}", lambda: primal(x, y, n), _nop, lambda: grad(x, dx, y, dy, n, 1.0),
                grad_prep, {"x": x, "y": y}, lambda v: primal(v["x"], v["y"], n), gradient,
                probes)


def make_matvec(primal, grad, n: int, rng: np.random.Generator) -> Case:
    A, x, w = rng.uniform(-1, 1, (n, n)), rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    y, dA, dx, dy = np.zeros(n), np.zeros((n, n)), np.zeros(n), np.zeros(n)

    def grad_prep() -> None:
        dA.fill(0.0)
        dx.fill(0.0)
        dy[:] = w

    def gradient() -> dict[str, np.ndarray]:
        grad_prep()
        grad(A, dA, x, dx, y, dy, n, n)
        return {"A": dA.ravel().copy(), "x": dx.copy()}

    def objective(v: dict[str, np.ndarray]) -> float:
        out = np.zeros(n)
        primal(v["A"].reshape(n, n), v["x"], out, n, n)
        return float(out @ w)

    probes = [("A", i, 1e-3) for i in _probe_indices(rng, n * n, 3)]
    probes += [("x", i, 1e-3) for i in _probe_indices(rng, n, 3)]
    return Case(f"{n}x{n}", lambda: primal(A, x, y, n, n), _nop,
                lambda: grad(A, dA, x, dx, y, dy, n, n), grad_prep,
                {"A": A.ravel(), "x": x}, objective, gradient, probes)


HEAT_N = 1000
HEAT_ALPHA = 0.23


def make_heat(primal, grad, steps: int, rng: np.random.Generator) -> Case:
    n = HEAT_N
    s = np.linspace(0.0, 1.0, n)
    u0 = np.sin(np.pi * s) + 0.3 * np.sin(7 * np.pi * s) + 0.05 * rng.uniform(-1, 1, n)
    u0[0] = u0[-1] = 0.0
    u, v, du, dv = u0.copy(), np.zeros(n), np.zeros(n), np.zeros(n)

    def primal_prep() -> None:  # the kernel overwrites both buffers
        u[:] = u0

    def grad_prep() -> None:
        u[:] = u0
        du.fill(0.0)
        dv.fill(0.0)

    def gradient() -> dict[str, np.ndarray]:
        grad_prep()
        dalpha = grad(u, du, v, dv, HEAT_ALPHA, n, steps, 1.0)
        return {"u0": du.copy(), "alpha": np.array([dalpha])}

    def objective(val: dict[str, np.ndarray]) -> float:
        return primal(val["u0"].copy(), np.zeros(n), float(val["alpha"][0]), n, steps)

    # quadratic in u0 (central differences are exact); polynomial of degree `steps` in alpha
    probes = [("u0", i, 1e-3) for i in _probe_indices(rng, n, 4, lo=n // 8)]
    probes.append(("alpha", 0, 1e-6 * HEAT_ALPHA))
    return Case(f"n={n}, steps={steps:,}", lambda: primal(u, v, HEAT_ALPHA, n, steps),
                primal_prep, lambda: grad(u, du, v, dv, HEAT_ALPHA, n, steps, 1.0), grad_prep,
                {"u0": u0, "alpha": np.array([HEAT_ALPHA])}, objective, gradient, probes)


LV_P = np.array([0.4, 0.8, 0.2])  # b, c, d
LV_A = 0.6
LV_T = 40.0  # integration time, independent of the number of steps


def make_rk4(primal, grad, nsteps: int, rng: np.random.Generator) -> Case:
    h = LV_T / nsteps
    y0, w = np.array([2.0, 1.5]), np.array([0.7, -1.3])
    yT, dy0, dyT = np.zeros(2), np.zeros(2), np.zeros(2)

    def grad_prep() -> None:
        dy0.fill(0.0)
        dyT[:] = w

    def gradient() -> dict[str, np.ndarray]:
        grad_prep()
        da = grad(y0, dy0, yT, dyT, LV_A, LV_P, h, nsteps)
        return {"y0": dy0.copy(), "a": np.array([da])}

    def objective(v: dict[str, np.ndarray]) -> float:
        out = np.zeros(2)
        primal(v["y0"], out, float(v["a"][0]), LV_P, h, nsteps)
        return float(out @ w)

    probes = [("y0", 0, 1e-6 * 2.0), ("y0", 1, 1e-6 * 1.5), ("a", 0, 1e-6 * LV_A)]
    return Case(f"steps={nsteps:,}", lambda: primal(y0, yT, LV_A, LV_P, h, nsteps), _nop,
                lambda: grad(y0, dy0, yT, dyT, LV_A, LV_P, h, nsteps), grad_prep,
                {"y0": y0, "a": np.array([LV_A])}, objective, gradient, probes)


def make_recursion(primal, grad, n: int, rng: np.random.Generator) -> Case:
    x0 = rng.uniform(-1, 1, n)
    x, dx = x0.copy(), np.zeros(n)

    def primal_prep() -> None:  # the kernel overwrites x
        x[:] = x0

    def grad_prep() -> None:
        x[:] = x0
        dx.fill(0.0)

    def gradient() -> dict[str, np.ndarray]:
        grad_prep()
        grad(x, dx, n, 1.0)
        return {"x": dx.copy()}

    # a step large enough to beat the rounding of a sum of n terms; O(h^2) is ~1e-7 here
    probes = [("x", i, 1e-3) for i in _probe_indices(rng, n, 4)]
    return Case(f"n={n:,}", lambda: primal(x, n), primal_prep, lambda: grad(x, dx, n, 1.0),
                grad_prep, {"x": x0}, lambda v: primal(v["x"].copy(), n), gradient, probes)


KERNELS = [
    Kernel("dot", "dot.c", "dot", "dup,dup,const", make_dot, 12_000_000, 1000),
    Kernel("matvec", "matvec.c", "matvec", "dup,dup,dup,const,const", make_matvec,
           3500, 40, cost_exp=2.0),
    Kernel("heat stencil", "heat.c", "heat", "dup,dup,out,const,const", make_heat,
           25_000, 20),
    Kernel("RK4 Lotka-Volterra", "rk4.c", "lv_rk4", "dup,dup,out,const,const,const",
           make_rk4, 500_000, 400),
    Kernel("recursion (split calls)", "recursion.c", "rec_energy", "dup,const",
           make_recursion, 1_000_000, 200),
]


# ---------------------------------------------------------------------------- machinery


def compile_kernel(kernel: Kernel, work: Path) -> tuple[object, object]:
    """(primal, gradient) native callables, both through compile_ir(opt_level=2)."""
    ll, gll = work / f"{kernel.function}.ll", work / f"{kernel.function}.grad.ll"
    subprocess.run([CLANG, "-O2", "-S", "-emit-llvm", str(KERNELS_DIR / kernel.source),
                    "-o", str(ll)], check=True)
    subprocess.run([sys.executable, "-m", "enzyme_py", "grad", str(ll), "-f", kernel.function,
                    "-a", kernel.activity, "-O", "2", "-o", str(gll)], check=True, cwd=ROOT)
    primal = jit.compile_ir(ll.read_text(), opt_level=2).function(kernel.function)
    grad = jit.compile_ir(gll.read_text(), opt_level=2).function(f"diffe_{kernel.function}")
    return primal, grad


def median_seconds(call: Callable[[], object], prep: Callable[[], None], repeat: int) -> float:
    """Median wall time of `call` over `repeat` runs after one warm-up; `prep` is untimed."""
    prep()
    call()
    times = []
    for _ in range(repeat):
        prep()
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def fd_max_rel_error(case: Case) -> float:
    """Max relative error of the probed gradient components against central differences."""
    grads = case.gradient()
    errs = []
    for name, i, h in case.probes:
        plus = {k: v.copy() for k, v in case.inputs.items()}
        minus = {k: v.copy() for k, v in case.inputs.items()}
        plus[name][i] += h
        minus[name][i] -= h
        step = plus[name][i] - minus[name][i]
        fd = (case.objective(plus) - case.objective(minus)) / step
        got = float(grads[name][i])
        errs.append(abs(got - fd) / max(abs(fd), abs(got), 1e-12))
    return max(errs)


def calibrate(kernel: Kernel, primal, grad, rng: np.random.Generator) -> Case:
    """Grow the size until one primal call takes at least MIN_PRIMAL_S (with a margin
    of 20%, since the timed median can come out lower than the calibration's)."""
    scale = kernel.base_scale
    for _ in range(5):
        case = kernel.make(primal, grad, scale, rng)
        t = median_seconds(case.primal, case.primal_prep, 3)
        if t >= 1.2 * MIN_PRIMAL_S:
            return case
        factor = (1.5 * MIN_PRIMAL_S / max(t, 1e-6)) ** (1.0 / kernel.cost_exp)
        scale = int(scale * max(factor, 1.1)) + 1
    return case


def run(repeat: int, quick: bool) -> tuple[list[dict], bool]:
    rows, ok = [], True
    with tempfile.TemporaryDirectory(prefix="bench_reverse.") as tmp:
        for kernel in KERNELS:
            rng = np.random.default_rng(20240611)
            try:
                primal, grad = compile_kernel(kernel, Path(tmp))
            except Exception as exc:  # report, and still run the other kernels
                ok = False
                print(f"FAIL {kernel.title}: could not build the gradient: {exc}")
                rows.append({"kernel": kernel.title, "size": "-", "status": "FAIL",
                             "fd_max_rel_error": float("nan")})
                continue
            case = (kernel.make(primal, grad, kernel.quick_scale, rng) if quick
                    else calibrate(kernel, primal, grad, rng))
            err = fd_max_rel_error(case)
            row = {"kernel": kernel.title, "size": case.size, "fd_max_rel_error": err}
            if not err <= FD_RTOL:
                ok = False
                row["status"] = "FAIL"
                print(f"FAIL {kernel.title} ({case.size}): gradient differs from finite "
                      f"differences (max relative error {err:.2e} > {FD_RTOL:g}); not timed")
            else:
                p = median_seconds(case.primal, case.primal_prep, repeat)
                g = median_seconds(case.grad, case.grad_prep, repeat)
                row.update(status="ok", primal_ms=p * 1e3, gradient_ms=g * 1e3, ratio=g / p)
            rows.append(row)
    return rows, ok


def print_table(rows: list[dict], repeat: int) -> None:
    print(f"Reverse mode vs primal (clang-22 -O2 kernels, JIT at O2, median of {repeat} "
          "after a warm-up; shadows zeroed outside the timed region):\n")
    print("| kernel | size | primal ms | gradient ms | ratio | FD max rel err |")
    print("|---|---|---:|---:|---:|---:|")
    for r in rows:
        if r["status"] == "ok":
            times = f"{r['primal_ms']:.2f} | {r['gradient_ms']:.2f} | {r['ratio']:.2f}"
        else:
            times = "- | - | FAIL"
        print(f"| {r['kernel']} | {r['size']} | {times} | {r['fd_max_rel_error']:.1e} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per measurement (>= 7)")
    ap.add_argument("--quick", action="store_true", help="tiny sizes, one run (smoke test)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = ap.parse_args(argv)
    if shutil.which(CLANG) is None:
        print(f"SKIP bench_reverse: {CLANG} not found on PATH (apt-get install {CLANG})")
        return 0
    repeat = 1 if args.quick else max(args.repeat, 1)
    rows, ok = run(repeat, args.quick)
    print_table(rows, repeat)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
