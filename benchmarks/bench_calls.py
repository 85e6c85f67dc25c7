"""Per-call overhead of compiled functions and gradients (microseconds, medians).

Compares `enzyme_py.jit(f)(a, b, c)` on three small arrays with a raw ctypes call of the same
native code, and times `grad(f)` on the same arguments, with bounds checks on and off.
Run: `python benchmarks/bench_calls.py [--quick]` (also part of `make bench`).
"""

from __future__ import annotations

import argparse
import ctypes
import statistics
import sys
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import enzyme_py as ez  # noqa: E402
from enzyme_py import backend  # noqa: E402


def three(a, b, c):
    return a[0] + b[0] + c[0]


def _median_us(fn, number: int, repeat: int) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def run(quick: bool = False) -> dict[str, float]:
    number, repeat = (2000, 3) if quick else (20000, 9)
    a, b, c = np.ones(4), np.ones(4), np.ones(4)
    out: dict[str, float] = {}
    for checks in (True, False):
        f = ez.jit(three, bounds_check=checks)
        f(a, b, c)
        tag = "checked" if checks else "unchecked"
        out[f"jit call ({tag})"] = _median_us(lambda f=f: f(a, b, c), number, repeat)
    # The same native code called through raw ctypes, the floor of any Python call.
    f = ez.jit(three, bounds_check=False)
    f(a, b, c)
    spec = next(iter(f._cache.values()))
    text = backend.optimize(str(spec.module), 2)
    jm = backend.compile_ir(text)
    cfunc = jm.function(spec.compiled.function.name)._cfunc
    pa, pb, pc = (ctypes.c_void_p(x.ctypes.data) for x in (a, b, c))
    out["raw ctypes call"] = _median_us(lambda: cfunc(pa, 4, pb, 4, pc, 4), number, repeat)
    g = ez.grad(three)
    g(a, b, c)
    out["grad call (allocates the shadow)"] = _median_us(lambda: g(a, b, c), number // 4,
                                                        repeat)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    res = run(args.quick)
    floor = res["raw ctypes call"]
    print("Call overhead, three 4-element float64 arrays, median (us):")
    for k, v in res.items():
        extra = "" if k == "raw ctypes call" else f"  (+{v - floor:.2f} over raw ctypes)"
        print(f"  {k:36s} {v:7.2f}{extra}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
