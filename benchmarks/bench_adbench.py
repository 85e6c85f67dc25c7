"""ADBench-style objectives: enzyme_py (Python and C paths) against jax.jit(jax.grad).

For every objective of `benchmarks/objectives` (GMM, BA, LSTM, ODE, 1-D and 2-D stencils,
dot of transcendentals, and the NumPy forms of GMM, LSTM and the stencils next to their loop
forms) and each of its sizes, a fresh worker process
(`benchmarks/adbench_worker.py`) measures primal and gradient times (medians after a
warm-up), JAX's, the C form through `enzyme-py transform` (and through Enzyme's plugin when
`ENZYME_PLUGIN` names it), first-call compile times, the gradient's peak memory, and checks
every gradient against JAX's with ADBench's metric.  The results go to `RESULTS.md` (a
Markdown table), `results.json` and `results.png` in `--out` (default: `benchmarks/`).

Run: `python benchmarks/bench_adbench.py [--quick] [--only NAME]... [--repeat N] [--out DIR]`
(part of `make bench`; `--quick` uses tiny sizes as a smoke test and, unless `--out` is
given, writes to a new temporary directory so the committed results stay as they are).
Exit status 1 when a row fails (an error or a check above the tolerance); skips (exit 0)
when JAX is not installed.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import adbench_report  # noqa: E402
from benchmarks.objectives import OBJECTIVES, load  # noqa: E402

WORKER = ROOT / "benchmarks" / "adbench_worker.py"
OUT_DIR = ROOT / "benchmarks"
TIMEOUT_S = {True: 180, False: 1200}  # per worker, by quick


def worker_env() -> dict[str, str]:
    """The workers' environment: XLA on one thread (like our code) unless XLA_FLAGS is set."""
    env = dict(os.environ)
    env.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def run_worker(name: str, index: int, repeat: int, quick: bool) -> dict:
    """The record of one (objective, size) from a fresh worker process."""
    with tempfile.TemporaryDirectory(prefix="adbench.") as tmp:
        out = Path(tmp) / "rec.json"
        cmd = [sys.executable, str(WORKER), name, str(index), "--json", str(out),
               "--repeat", str(repeat), *(["--quick"] if quick else [])]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, env=worker_env(),
                                 timeout=TIMEOUT_S[quick], check=False)
        except subprocess.TimeoutExpired:
            return {"objective": name, "ok": False,
                    "errors": [f"worker timed out after {TIMEOUT_S[quick]} s"]}
        if not out.exists():
            return {"objective": name, "ok": False,
                    "errors": [f"worker exited {res.returncode}: {res.stderr[-1500:]}"]}
        rec = json.loads(out.read_text())
        if rec.get("errors"):
            sys.stderr.write(res.stderr[-3000:])
        return rec


def sizes_of(name: str, quick: bool) -> list[str] | dict:
    """The size labels of objective `name`, or an error record when it cannot be loaded."""
    try:
        return [s.label for s in load(name).sizes(quick)]
    except Exception as exc:
        return {"objective": name, "ok": False, "errors": [f"{type(exc).__name__}: {exc}"]}


def run(names: list[str], repeat: int, quick: bool) -> list[dict]:
    """One record per (objective, size), in table order; progress on stdout."""
    rows = []
    for name in names:
        labels = sizes_of(name, quick)
        if isinstance(labels, dict):
            print(f"  {name}: ERROR {labels['errors'][0]}", flush=True)
            rows.append(labels)
            continue
        for index, label in enumerate(labels):
            t0 = time.perf_counter()
            rec = run_worker(name, index, repeat, quick)
            status = "ok" if rec.get("ok") else "FAIL " + "; ".join(rec.get("errors", []))
            print(f"  {name} [{label}]: {status} ({time.perf_counter() - t0:.1f} s)",
                  flush=True)
            rows.append(rec)
    return rows


def environment() -> dict[str, str]:
    """Versions and machine, for the report."""
    import jax
    import llvmlite
    import numpy

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"cpu": cpu, "cores": str(os.cpu_count()), "python": platform.python_version(),
            "numpy": numpy.__version__, "llvmlite": llvmlite.__version__,
            "jax": jax.__version__, "xla_flags": worker_env()["XLA_FLAGS"],
            "enzyme_plugin": os.environ.get("ENZYME_PLUGIN", "")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes, 3 runs (smoke test)")
    ap.add_argument("--only", action="append", choices=OBJECTIVES, metavar="NAME",
                    help=f"run only this objective (repeatable): {', '.join(OBJECTIVES)}")
    ap.add_argument("--repeat", type=int, default=7, help="timed batches per median (>= 5)")
    ap.add_argument("--out", type=Path, default=None,
                    help="directory for RESULTS.md, results.json, results.png (default: "
                         "benchmarks/, or a new temporary directory with --quick)")
    args = ap.parse_args(argv)
    if importlib.util.find_spec("jax") is None:
        print("SKIP bench_adbench: jax is not installed (pip install -e '.[test]')")
        return 0
    repeat = 3 if args.quick else max(args.repeat, 5)
    names = args.only or list(OBJECTIVES)
    print(f"ADBench-style objectives ({'quick' if args.quick else 'full'}, "
          f"median of {repeat}):", flush=True)
    # Python's bytecode of the package, as an installed package has it (an environment with
    # PYTHONDONTWRITEBYTECODE=1 would otherwise recompile each module a first call imports).
    compileall.compile_dir(str(ROOT / "enzyme_py"), quiet=1)
    rows = run(names, repeat, args.quick)
    meta = {"repeat": str(repeat), "quick": str(args.quick), **environment()}
    if args.out is None:  # a quick run never overwrites the committed results
        args.out = Path(tempfile.mkdtemp(prefix="adbench-quick.")) if args.quick else OUT_DIR
    args.out.mkdir(parents=True, exist_ok=True)
    table = adbench_report.markdown(rows, meta)
    (args.out / "RESULTS.md").write_text(table)
    (args.out / "results.json").write_text(
        json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    try:
        adbench_report.plot(rows, args.out / "results.png")
        written = "RESULTS.md, results.json, results.png"
    except ImportError:
        written = "RESULTS.md, results.json (no plot: matplotlib is not installed)"
    print(adbench_report.table(rows))
    print(f"\nwrote {written} in {args.out}")
    return 0 if all(r.get("ok") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
