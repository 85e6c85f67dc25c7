"""Checkpointing on long loops: time and peak memory of the taped gradient, the checkpointed
ones (`checkpoint=True`, `memory_budget="64MB"`) and `jax.jit(jax.grad)`.

RK4 (the `ode` objective) at 10^7 steps, the 1-D heat stencil (n=4096) and the 2-D one
(128x128) at 10^4 steps, each stencil in its loop form and its NumPy form: loops whose tape
grows with the trip count. Each measurement runs
in a fresh process (so one variant's freed memory does not lower another's peak): the median
of 5 timed calls after a warm-up, then the peak resident memory one call adds
(`adbench_worker.peak_extra_bytes`). Every variant's gradient is compared with the taped one
and with JAX's (JAX only in full runs); a difference above 1e-9 (relative) fails the run.

Run: `python benchmarks/bench_checkpoint.py [--quick]` (part of `make bench`, which writes
`benchmarks/CHECKPOINT.md`; `--quick`: short loops, nothing written).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

OUT = ROOT / "benchmarks" / "CHECKPOINT.md"
VARIANTS = {"taped": {}, "checkpoint=True": {"checkpoint": True},
            'memory_budget="64MB"': {"memory_budget": "64MB"}}
RTOL = 1e-9


def cases(quick: bool) -> list[tuple[str, str, dict]]:
    """(objective, size label, the objective's Size fields)."""
    if quick:
        return [("ode", "2e3 steps", {"nsteps": 2000}),
                ("stencil1d", "n=256, 64 steps", {"n": 256, "steps": 64}),
                ("stencil1d_numpy", "n=256, 64 steps", {"n": 256, "steps": 64})]
    return [("ode", "1e7 steps", {"nsteps": 10**7}),
            ("stencil1d", "n=4096, 1e4 steps", {"n": 4096, "steps": 10**4}),
            ("stencil1d_numpy", "n=4096, 1e4 steps", {"n": 4096, "steps": 10**4}),
            ("stencil2d", "128x128, 1e4 steps", {"n": 128, "steps": 10**4}),
            ("stencil2d_numpy", "128x128, 1e4 steps", {"n": 128, "steps": 10**4})]


def _median_ms(fn, args, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def worker(objective: str, label: str, fields: dict, variant: str, repeat: int) -> dict:
    """One variant of one case, in this process."""
    from benchmarks.adbench_worker import peak_extra_bytes

    obj = importlib.import_module(f"benchmarks.objectives.{objective}")
    args = obj.make_args(obj.Size(label, **fields))
    if variant == "jax":
        import jax

        jax.config.update("jax_enable_x64", True)
        static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
        g = jax.jit(jax.grad(obj.jax_primal, argnums=obj.ARGNUMS), static_argnums=static)
        jargs = tuple(a if isinstance(a, (int, float)) else jax.numpy.asarray(a) for a in args)

        def call(*_):
            return jax.block_until_ready(g(*jargs))
    else:
        import enzyme_py as ez

        call = ez.grad(obj.primal, argnums=obj.ARGNUMS, **VARIANTS[variant])
    out = call(*args)  # (compiles)
    ms = _median_ms(call, args, repeat)
    peak = peak_extra_bytes(lambda: call(*args))
    flat = np.concatenate([np.ravel(np.asarray(o, dtype=np.float64)) for o in out])
    return {"ms": ms, "peak_mb": None if peak is None else peak / 1e6, "grad": flat.tolist()}


def _run(objective: str, label: str, fields: dict, variant: str, repeat: int) -> dict:
    env = dict(os.environ)
    env.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
    cmd = [sys.executable, __file__, "--worker", json.dumps([objective, label, fields,
                                                             variant, repeat])]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{objective} {label} {variant}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _error(a: list[float], b: list[float]) -> float:
    x, y = np.asarray(a), np.asarray(b)
    return float(np.max(np.abs(x - y) / np.maximum(1.0, np.abs(x) + np.abs(y))))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="short loops, nothing written")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    opts = ap.parse_args(argv)
    if opts.worker:
        print(json.dumps(worker(*json.loads(opts.worker))))
        return 0
    repeat = 1 if opts.quick else 5
    rows, status = [], 0
    for objective, label, fields in cases(opts.quick):
        variants = [*VARIANTS] + ([] if opts.quick else ["jax"])
        got = {v: _run(objective, label, fields, v, repeat) for v in variants}
        taped = got["taped"]
        for v, r in got.items():
            err = _error(r["grad"], taped["grad"])
            ok = err <= RTOL
            status |= 0 if ok else 1
            peak = "n/a" if r["peak_mb"] is None else f"{r['peak_mb']:.1f}"
            rows.append(f"| {objective} | {label} | {v if v != 'jax' else 'jax.jit(jax.grad)'} "
                        f"| {r['ms']:.4g} | {r['ms'] / taped['ms']:.2f} | {peak} | {err:.1e} | "
                        f"{'ok' if ok else 'FAILED'} |")
            print(rows[-1], flush=True)
    if not opts.quick:
        from benchmarks.bench_adbench import environment

        env = environment()
        head = ["# Checkpointing on long loops", "",
                "Written by `python benchmarks/bench_checkpoint.py` (`make bench`); do not edit.",
                "", f"Machine: {env['cpu']} ({env['cores']} cores); Python {env['python']}, "
                f"jax {env['jax']} (`XLA_FLAGS={env['xla_flags']}`). Median of {repeat} calls "
                "after a warm-up, each "
                "variant in its own process; *peak MB* is the resident memory one gradient "
                "call adds; *error* is max |x - y| / max(1, |x| + |y|) against the taped "
                "gradient.", "",
                "| objective | size | gradient | ms | / taped | peak MB | error | check |",
                "|---|---|---|---:|---:|---:|---:|---|"]
        OUT.write_text("\n".join(head + rows) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
