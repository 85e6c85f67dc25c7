"""One ADBench-style measurement: one objective at one size, in a fresh process.

Run by `bench_adbench.py` as `python benchmarks/adbench_worker.py NAME INDEX --json FILE`;
a fresh process per (objective, size) makes the first-call compile times honest (no cache of
either tool is warm, beyond two trivial functions that initialize each runtime) and keeps
the memory figures of one objective from another's.

Measured, in this order (float64 throughout, the same arguments for every tool):

1. compile: first call of `enzyme_py.grad(primal, argnums)` and of
   `jax.jit(jax.grad(jax_primal, argnums))`, each minus one steady-state call;
2. the median time of `repeat` timed batches after a warm-up (a batch repeats a call until
   it lasts >= `batch_s`, so sub-millisecond calls are timed reliably) for: our primal and
   gradient (Python path), JAX's jit primal and jit(grad), the C form through
   `enzyme-py transform` and, when `ENZYME_PLUGIN` is set, the C form through Enzyme;
3. correctness: every gradient (and primal) against JAX's with ADBench's metric
   max |x - y| / max(1, |x| + |y|); for a NumPy form also its value against the loop
   form's (`enzyme_py.jit` of `LOOP_FORM`) and against NumPy's own run of its source (the
   C and Enzyme columns are the loop form's, not repeated);
4. the first call in a second process with the persistent cache: two more processes call
   `enzyme_py.grad(primal, argnums, cache=True)` with one new cache directory; the second
   one's first call minus its steady call is *cached compile* (`--cached-compile` mode);
5. peak memory of one gradient call: the rise of the resident set's high-water mark over the
   resident set before the call (`/proc/self/clear_refs` resets the mark), with glibc told to
   serve large blocks by mmap and to trim its heap first, so freed tape memory cannot hide.

Invariants: timed regions contain only the call (JAX results are blocked on); arguments are
never written by any objective; the record is written even when a stage fails (its `error`).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.objectives import load  # noqa: E402

TOL = 1e-8  # ADBench's acceptance threshold for the error metric


# ---------------------------------------------------------------------------- timing


def first_call_s(call: Callable[[], Any]) -> float:
    """Wall time of one call (used for the first, compiling call)."""
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def median_s(call: Callable[[], Any], repeat: int, batch_s: float) -> float:
    """Median seconds per call over `repeat` batches after one warm-up call; a batch repeats
    the call `k` times, `k` chosen from the warm-up so that a batch lasts about `batch_s`."""
    k = max(1, math.ceil(batch_s / max(first_call_s(call), 1e-7)))
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(k):
            call()
        times.append((time.perf_counter() - t0) / k)
    return statistics.median(times)


# ---------------------------------------------------------------------------- memory

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise OSError(f"{field} not in /proc/self/status")


def peak_extra_bytes(call: Callable[[], Any]) -> int | None:
    """Peak resident memory one `call` adds over the resident set before it (None where
    /proc/self/clear_refs or glibc's mallopt are unavailable)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(_M_MMAP_THRESHOLD, 128 * 1024)  # fixed: no dynamic raise after frees
        libc.mallopt(_M_TRIM_THRESHOLD, 128 * 1024)
        libc.malloc_trim(0)
        before = _status_kib("VmRSS")
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current VmRSS
        call()
        return max(0, _status_kib("VmHWM") - before) * 1024
    except (OSError, AttributeError):
        return None


# ---------------------------------------------------------------------------- correctness


def max_error(ours: Any, ref: Any) -> float:
    """ADBench's metric max |x - y| / max(1, |x| + |y|) over all components (a tuple of
    arrays, an array or a float); inf when the shapes differ."""
    if isinstance(ref, (tuple, list)):
        if not isinstance(ours, (tuple, list)) or len(ours) != len(ref):
            return math.inf
        return max((max_error(a, b) for a, b in zip(ours, ref, strict=True)), default=0.0)
    x, y = np.asarray(ours, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    if x.shape != y.shape:
        return math.inf
    if x.size == 0:
        return 0.0
    return float(np.max(np.abs(x - y) / np.maximum(1.0, np.abs(x) + np.abs(y))))


# ---------------------------------------------------------------------------- Enzyme


def build_enzyme(mod: ModuleType, workdir: Path) -> Callable[..., tuple[np.ndarray, ...]]:
    """`<NAME>_gradient` of the C form compiled by clang with Enzyme's plugin
    (`$ENZYME_CLANG -O2 -fpass-plugin=$ENZYME_PLUGIN`), returning one array per ARGNUMS."""
    clang = os.environ.get("ENZYME_CLANG", "clang-22")
    lib = workdir / f"lib{mod.NAME}.enzyme.so"
    cmd = [clang, "-O2", f"-fpass-plugin={os.environ['ENZYME_PLUGIN']}", "-shared", "-fPIC",
           str(mod.C_SOURCE), "-o", str(lib), "-lm"]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr[-2000:]}")
    fn = getattr(ctypes.CDLL(str(lib)), f"{mod.NAME}_gradient")
    fn.restype = None

    def c_value(a: Any) -> Any:
        if isinstance(a, np.ndarray):
            return ctypes.c_void_p(a.ctypes.data)
        return ctypes.c_int64(a) if isinstance(a, int) else ctypes.c_double(a)

    def gradient(*args: Any) -> tuple[np.ndarray, ...]:
        shadows = tuple(np.zeros_like(args[i]) for i in mod.ARGNUMS)
        fn(*map(c_value, (*args, *shadows)))
        return shadows

    return gradient


# ---------------------------------------------------------------------------- one objective


def _as_tuple(g: Any) -> tuple:
    return tuple(g) if isinstance(g, (tuple, list)) else (g,)


def _warm_runtimes(ez: Any, jax: Any) -> None:
    """Initialize LLVM, our AD pipeline and XLA on trivial functions: one of a float and one
    of an array (which loads our NumPy front end's modules, as `import jax.numpy` loads
    JAX's)."""
    def warm(x):
        return x * x

    def warm_array(x):
        return np.sum(x * x)

    ez.jit(warm)(1.0)
    ez.grad(warm)(1.0)
    ez.grad(warm_array)(np.ones(3))
    jax.jit(jax.grad(warm))(1.0).block_until_ready()
    jax.jit(jax.grad(lambda x: jax.numpy.sum(x * x)))(np.ones(3)).block_until_ready()


def measure(name: str, index: int, repeat: int, quick: bool, workdir: Path) -> dict:
    """The record of objective `name` at `sizes(quick)[index]` (see the module docstring)."""
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    import enzyme_py as ez

    mod = load(name)
    size = mod.sizes(quick)[index]
    rec: dict[str, Any] = {"objective": name, "title": mod.TITLE, "size": size.label,
                           "form": getattr(mod, "FORM", "loop")}
    loop_form = getattr(mod, "LOOP_FORM", None)
    if loop_form:
        rec["loop_form"] = loop_form
    batch_s = 0.002 if quick else 0.05
    args = mod.make_args(size)
    static = tuple(i for i, a in enumerate(args) if isinstance(a, int))
    jargs = tuple(a if i in static else jnp.asarray(a) for i, a in enumerate(args))
    _warm_runtimes(ez, jax)

    def run(label: str, stage: Callable[[], None]) -> None:
        try:
            stage()
        except Exception as exc:  # keep measuring the other columns
            rec.setdefault("errors", []).append(f"{label}: {type(exc).__name__}: {exc}")
            traceback.print_exc()

    ours = ez.grad(mod.primal, argnums=mod.ARGNUMS)
    jgrad = jax.jit(jax.grad(mod.jax_primal, argnums=mod.ARGNUMS), static_argnums=static)
    ref: dict[str, Any] = {}

    def jax_stage() -> None:
        first = first_call_s(lambda: jax.block_until_ready(jgrad(*jargs)))
        rec["jax_grad_s"] = median_s(lambda: jax.block_until_ready(jgrad(*jargs)), repeat,
                                     batch_s)
        rec["jax_compile_s"] = max(0.0, first - rec["jax_grad_s"])
        jprimal = jax.jit(mod.jax_primal, static_argnums=static)
        ref["value"] = float(jprimal(*jargs))
        ref["grad"] = tuple(np.asarray(g) for g in jgrad(*jargs))
        rec["jax_primal_s"] = median_s(lambda: jax.block_until_ready(jprimal(*jargs)),
                                       repeat, batch_s)

    def ours_stage() -> None:
        first = first_call_s(lambda: ours(*args))
        rec["grad_s"] = median_s(lambda: ours(*args), repeat, batch_s)
        rec["compile_s"] = max(0.0, first - rec["grad_s"])
        fast = ez.jit(mod.primal)
        rec["primal_s"] = median_s(lambda: fast(*args), repeat, batch_s)
        rec["ratio"] = rec["grad_s"] / rec["primal_s"]
        ref["ours_value"] = fast(*args)
        if "value" in ref:
            rec["err_value"] = max_error(ref["ours_value"], ref["value"])
            rec["err_grad"] = max_error(_as_tuple(ours(*args)), ref["grad"])

    def fastmath_stage() -> None:  # the same gradient with fastmath=True (not checked: info)
        fast_grad = ez.grad(mod.primal, argnums=mod.ARGNUMS, fastmath=True)
        fast_grad(*args)
        rec["fast_grad_s"] = median_s(lambda: fast_grad(*args), repeat, batch_s)
        if "grad" in ref:
            rec["fast_max_err"] = max_error(_as_tuple(fast_grad(*args)), ref["grad"])

    def loop_form_stage() -> None:
        if "ours_value" in ref:
            loop_value = ez.jit(load(loop_form).primal)(*args)
            rec["err_loop_value"] = max_error(ref["ours_value"], loop_value)
        if "value" in ref:
            rec["err_numpy_value"] = max_error(mod.primal(*args), ref["value"])

    def c_stage() -> None:
        from benchmarks.objectives.cbuild import build_c, find_clang

        if mod.C_SOURCE is None:
            rec["c_status"] = f"in the {loop_form} row"
            return
        if find_clang() is None:
            rec["c_status"] = "not run (clang-22 not installed)"
            return
        t0 = time.perf_counter()
        c_primal, c_grad = build_c(mod, workdir / "transform")
        rec["c_build_s"] = time.perf_counter() - t0
        rec["c_primal_s"] = median_s(lambda: c_primal(*args), repeat, batch_s)
        rec["c_grad_s"] = median_s(lambda: c_grad(*args), repeat, batch_s)
        if "value" in ref:
            rec["err_c_value"] = max_error(c_primal(*args), ref["value"])
            rec["err_c_grad"] = max_error(_as_tuple(c_grad(*args)), ref["grad"])

    def enzyme_stage() -> None:
        if mod.C_SOURCE is None:
            rec["enzyme_status"] = f"in the {loop_form} row"
            return
        if not os.environ.get("ENZYME_PLUGIN"):
            rec["enzyme_status"] = "not run (set ENZYME_PLUGIN)"
            return
        e_grad = build_enzyme(mod, workdir)
        rec["enzyme_grad_s"] = median_s(lambda: e_grad(*args), repeat, batch_s)
        if "value" in ref:
            rec["err_enzyme_grad"] = max_error(_as_tuple(e_grad(*args)), ref["grad"])

    def cached_stage() -> None:
        cache = workdir / "cache"
        for _ in range(2):  # the first process fills the cache, the second is measured
            got = cached_compile(name, index, quick, cache, workdir / "cached.json")
        rec["cached_compile_s"] = max(0.0, got["first_s"] - got["steady_s"])

    def memory_stage() -> None:  # last: it changes glibc's allocation policy
        rec["peak_bytes"] = peak_extra_bytes(lambda: ours(*args))
        rec["jax_peak_bytes"] = peak_extra_bytes(lambda: jax.block_until_ready(jgrad(*jargs)))

    run("jax", jax_stage)
    run("ours", ours_stage)
    run("ours, fastmath", fastmath_stage)
    if loop_form:
        run(f"value against the loop form {loop_form}", loop_form_stage)
    run("C (enzyme-py transform)", c_stage)
    run("Enzyme plugin", enzyme_stage)
    run("cached compile", cached_stage)
    run("memory", memory_stage)
    if "jax_grad_s" in rec and "grad_s" in rec:
        rec["ours_over_jax"] = rec["grad_s"] / rec["jax_grad_s"]
    errs = [v for k, v in rec.items() if k.startswith("err_")]
    rec["ok"] = "errors" not in rec and bool(errs) and all(e < TOL for e in errs)
    return rec


def cached_compile(name: str, index: int, quick: bool, cache: Path, out: Path) -> dict:
    """{first_s, steady_s} of `grad(cache=True)` in a fresh process using `cache`."""
    cmd = [sys.executable, str(Path(__file__).resolve()), name, str(index), "--json",
           str(out), "--cached-compile", *(["--quick"] if quick else [])]
    env = dict(os.environ, ENZYME_PY_CACHE_DIR=str(cache))
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200,
                         check=False)
    if res.returncode != 0 or not out.exists():
        raise RuntimeError(f"the cached-compile process exited {res.returncode}: "
                           f"{res.stderr[-800:]}")
    return json.loads(out.read_text())


def _cached_call(name: str, index: int, quick: bool) -> dict:
    """The `--cached-compile` mode: one first call and one steady call, nothing else."""
    import enzyme_py as ez

    mod = load(name)
    args = mod.make_args(mod.sizes(quick)[index])
    grad = ez.grad(mod.primal, argnums=mod.ARGNUMS, cache=True)
    first = first_call_s(lambda: grad(*args))
    return {"first_s": first, "steady_s": min(first_call_s(lambda: grad(*args))
                                              for _ in range(3))}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name")
    ap.add_argument("index", type=int)
    ap.add_argument("--json", required=True, metavar="FILE", help="where the record goes")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--cached-compile", action="store_true",
                    help="only time the first call of grad(cache=True) (ENZYME_PY_CACHE_DIR)")
    args = ap.parse_args(argv)
    if args.cached_compile:
        Path(args.json).write_text(json.dumps(_cached_call(args.name, args.index, args.quick)))
        return 0
    with tempfile.TemporaryDirectory(prefix=f"adbench.{args.name}.") as tmp:
        try:
            rec = measure(args.name, args.index, args.repeat, args.quick, Path(tmp))
        except Exception as exc:
            traceback.print_exc()
            rec = {"objective": args.name, "ok": False,
                   "errors": [f"{type(exc).__name__}: {exc}"]}
    Path(args.json).write_text(json.dumps(rec, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
