"""The ADBench-style results as a Markdown table, a Markdown report and a PNG bar chart.

Rows are the worker records of `adbench_worker.py` (times in seconds, memory in bytes; a
missing key is a stage that did not run).  A NumPy-form row (`form` "numpy") is compared
with the row of its `loop_form` at the same size label.  Formatting only: nothing here
measures.
"""

from __future__ import annotations

import math
from pathlib import Path

RATIO_TARGET = 3.0  # gradient / primal
FORM_TARGET = 1.2  # NumPy form's gradient / loop form's
CACHED_TARGET_S = 0.05  # first call in a second process with the persistent cache


def over_loop(rec: dict, rows: list[dict]) -> float | None:
    """A NumPy-form row's gradient time over its loop form's at the same size (else None)."""
    loop = next((r for r in rows if r.get("objective") == rec.get("loop_form")
                 and r.get("size") == rec.get("size") and "grad_s" in r), None)
    if loop is None or "grad_s" not in rec:
        return None
    return rec["grad_s"] / loop["grad_s"]


def _ms(rec: dict, key: str) -> str:
    v = rec.get(key)
    return "-" if v is None else f"{v * 1e3:.3g}"


def _x(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _mb(v: int | None) -> str:
    return "-" if v is None else f"{v / 2**20:.1f}"


def _err(rec: dict) -> str:
    errs = [v for k, v in rec.items() if k.startswith("err_")]
    return f"{max(errs):.1e}" if errs else "-"


def _enzyme(rec: dict) -> str:
    return _ms(rec, "enzyme_grad_s") if "enzyme_grad_s" in rec else \
        rec.get("enzyme_status", "-")


def _c(rec: dict) -> str:
    return _ms(rec, "c_grad_s") if "c_grad_s" in rec else rec.get("c_status", "-")


def _fast(rec: dict) -> str:
    if "fast_grad_s" not in rec:
        return "-"
    jax_s = rec.get("jax_grad_s")
    over = f" ({_x(rec['fast_grad_s'] / jax_s)})" if jax_s else ""
    return _ms(rec, "fast_grad_s") + over


def table(rows: list[dict]) -> str:
    """The results table in Markdown (one line per objective and size)."""
    lines = ["| objective | form | size | primal ms | gradient ms | grad/primal "
             "| grad / loop form's | JAX grad ms "
             "| ours/JAX | fastmath grad ms (/JAX) | C via transform, grad ms "
             "| Enzyme (plugin), grad ms "
             "| compile s, ours / JAX | cached compile ms "
             "| grad peak MB, ours / JAX | max err | check |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        form = r.get("form", "-")
        if "grad_s" not in r and "jax_grad_s" not in r:
            why = "; ".join(r.get("errors", ["no result"])).replace("|", "/").splitlines()[0]
            lines.append(f"| {r['objective']} | {form} | {r.get('size', '-')} | - | - | - | - "
                         f"| - | - | - | - | - | - | - | - | - | ERROR: {why[:160]} |")
            continue
        compile_ = f"{r.get('compile_s', math.nan):.2f} / {r.get('jax_compile_s', math.nan):.2f}"
        peak = f"{_mb(r.get('peak_bytes'))} / {_mb(r.get('jax_peak_bytes'))}"
        check = "ok" if r.get("ok") else \
            "FAIL " + "; ".join(r.get("errors", [])).replace("|", "/").replace("\n", " ")[:160]
        lines.append(f"| {r['objective']} | {form} | {r['size']} | {_ms(r, 'primal_s')} "
                     f"| {_ms(r, 'grad_s')} | {_x(r.get('ratio'))} | {_x(over_loop(r, rows))} "
                     f"| {_ms(r, 'jax_grad_s')} "
                     f"| {_x(r.get('ours_over_jax'))} | {_fast(r)} | {_c(r)} | {_enzyme(r)} "
                     f"| {compile_} | {_ms(r, 'cached_compile_s')} "
                     f"| {peak} | {_err(r)} | {check} |")
    return "\n".join(lines) + "\n"


def misses(rows: list[dict]) -> list[str]:
    """One line per missed target (ratio <= 3, faster than JAX, compiles faster than JAX;
    a NumPy form's gradient within 1.2x of its loop form's) or failed row."""
    out = []
    for r in rows:
        name = f"{r['objective']} [{r.get('size', '-')}]"
        if not r.get("ok"):
            errors = [e.splitlines()[0] for e in r.get("errors", ["a check failed"]) if e]
            out.append(f"{name}: FAILED: " + "; ".join(errors))
        vs_loop = over_loop(r, rows)
        if vs_loop is not None and vs_loop > FORM_TARGET:
            out.append(f"{name}: gradient {vs_loop:.2f}x the {r['loop_form']} (loop) form's "
                       f"> {FORM_TARGET:g}")
        if r.get("ratio", 0.0) > RATIO_TARGET:
            out.append(f"{name}: gradient/primal {r['ratio']:.2f} > {RATIO_TARGET:g}")
        if r.get("ours_over_jax", 0.0) > 1.0:
            out.append(f"{name}: gradient {r['ours_over_jax']:.2f}x JAX's time")
        if r.get("compile_s", 0.0) > r.get("jax_compile_s", math.inf):
            out.append(f"{name}: compile {r['compile_s']:.2f} s > JAX's "
                       f"{r['jax_compile_s']:.2f} s")
        if r.get("cached_compile_s", 0.0) > CACHED_TARGET_S:
            out.append(f"{name}: cached compile {1e3 * r['cached_compile_s']:.0f} ms > "
                       f"{1e3 * CACHED_TARGET_S:.0f} ms")
    return out


def markdown(rows: list[dict], meta: dict[str, str]) -> str:
    """The whole RESULTS.md: method, table, missed targets."""
    missed = misses(rows)
    return "\n".join([
        "# ADBench-style objectives: enzyme_py vs jax.jit(jax.grad)",
        "",
        "Written by `python benchmarks/bench_adbench.py` (`make bench`); do not edit.",
        "",
        f"Machine: {meta['cpu']} ({meta['cores']} cores); Python {meta['python']}, "
        f"numpy {meta['numpy']}, llvmlite {meta['llvmlite']}, jax {meta['jax']} "
        f"(`XLA_FLAGS={meta['xla_flags']}`).",
        "",
        "Method: float64; one fresh process per objective and size, both tools in it, the "
        "same arguments. Times are medians of "
        f"{meta['repeat']} timed batches after a warm-up (a batch repeats a short call so "
        "it lasts >= 50 ms); JAX results are blocked on. *gradient* is "
        "`enzyme_py.grad(primal, argnums)` on the Python form, *primal* `enzyme_py.jit`; "
        "*C via transform* is the C form through `clang-22 -O2 -emit-llvm`, "
        "`enzyme-py transform`, `clang-22 -O2 -shared`, called with ctypes; *Enzyme* is the "
        "same C through `clang -O2 -fpass-plugin=$ENZYME_PLUGIN`. *compile* is the first "
        "call minus a steady call, after each runtime compiled two trivial functions (of a "
        "float, of an array), with our package's Python bytecode compiled beforehand; "
        "*cached compile* is the same in a second process using the persistent cache "
        "(`grad(..., cache=True)`) that a first process filled. "
        "*grad peak MB* is the rise of the resident high-water mark (VmHWM, reset through "
        "`/proc/self/clear_refs`) during one gradient call over the resident set before "
        "it, with glibc serving blocks >= 128 KiB by mmap and its heap trimmed first. "
        "*max err* is ADBench's max |x-y| / max(1, |x|+|y|) of every gradient (and primal) "
        "against JAX's and, for a NumPy form, of its value against the loop form's and "
        "against NumPy running the same source; *check* passes below 1e-8. A *numpy* row "
        "is the objective written with array expressions (`benchmarks/objectives/"
        "<name>_numpy.py`), on the data of its loop row; *grad / loop form's* divides its "
        "gradient time by the loop row's; its C columns are the loop row's. *fastmath "
        "grad* is the same gradient with `fastmath=True` (LLVM's fast-math flags: sums may "
        "be reordered), its time over JAX's in brackets; it is not part of the check (its "
        "max err is in results.json as `fast_max_err`).",
        "",
        table(rows),
        "Targets: gradient/primal <= 3; gradient faster than JAX; compile faster than JAX; "
        f"cached compile <= {1e3 * CACHED_TARGET_S:.0f} ms; "
        f"a NumPy form's gradient within {FORM_TARGET:g}x of its loop form's.",
        "",
        *(f"- missed: {m}" for m in missed),
        *(["- all met"] if not missed else []),
        "",
    ])


def plot(rows: list[dict], path: Path) -> None:
    """Gradient times per objective and size, log-scale bars: ours (Python), ours (C),
    JAX, and Enzyme where it ran."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if "grad_s" in r or "jax_grad_s" in r]
    series = [("enzyme_py (Python)", "grad_s"), ("enzyme_py (C, transform)", "c_grad_s"),
              ("jax.jit(jax.grad)", "jax_grad_s"), ("Enzyme (plugin)", "enzyme_grad_s")]
    series = [s for s in series if any(s[1] in r for r in rows)]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(rows) + 2), 4.5))
    width = 0.8 / max(len(series), 1)
    for k, (label, key) in enumerate(series):
        xs = [i + (k - (len(series) - 1) / 2) * width for i, r in enumerate(rows) if key in r]
        ys = [r[key] * 1e3 for r in rows if key in r]
        ax.bar(xs, ys, width, label=label)
    ax.set_yscale("log")
    ax.set_ylabel("gradient time, ms (log)")
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['objective']}\n{r.get('size', '')}" for r in rows], fontsize=7,
                       rotation=30, ha="right")
    ax.legend(fontsize=8)
    ax.set_title("Gradient time: enzyme_py vs jax.jit(jax.grad) (lower is better)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
