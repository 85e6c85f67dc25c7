"""`make bench-quick`: every benchmark script runs end to end at tiny sizes (a smoke test;
timings are never asserted), and the ADBench table pairs each NumPy-form row with its loop
form's row."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT

ADBENCH = "ADBench-style objectives vs JAX"
_NUMBER = r"[0-9]+\.[0-9]+"  # a ratio, as the report prints it
_MS = r"[0-9.e+-]+"  # a time in ms (%.3g)


def test_bench_quick_runs():
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--quick"],
                         capture_output=True, text=True, timeout=600, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    for title in ("IR parse/print", "reverse mode vs primal", "call overhead", ADBENCH):
        assert f"=== {title} ===" in res.stdout
    assert "lines/s" in res.stdout
    adbench = res.stdout.split(f"=== {ADBENCH} ===", 1)[1]
    if "SKIP bench_adbench" in adbench:
        return
    from benchmarks.objectives import OBJECTIVES, load

    for name in OBJECTIVES:  # one table row per objective, every check passed
        assert re.search(rf"^\| {name} \| .* \| ok \|$", adbench, re.M), name
        if getattr(load(name), "FORM", "loop") == "numpy":  # with its time over the loop form's
            assert re.search(rf"^\| {name} \| numpy \| [^|]+ \| {_MS} \| {_MS} "
                             rf"\| {_NUMBER} \| {_NUMBER} \|", adbench, re.M), name
    out = re.search(r"^wrote .* in (.+)$", adbench, re.M)
    assert out is not None and "benchmarks" not in out.group(1)  # not the committed files
    assert (ROOT / "benchmarks" / "RESULTS.md").resolve() != \
        (ROOT / out.group(1) / "RESULTS.md").resolve()


def test_numpy_forms_pair_with_loop_forms():
    """Every NumPy form names an existing loop form and shares its sizes."""
    from benchmarks.objectives import OBJECTIVES, load

    forms = [n for n in OBJECTIVES if getattr(load(n), "FORM", "loop") == "numpy"]
    assert {"gmm_numpy", "lstm_numpy", "stencil1d_numpy", "stencil2d_numpy"} <= set(forms)
    for name in forms:
        mod, loop = load(name), load(load(name).LOOP_FORM)
        assert getattr(loop, "FORM", "loop") == "loop", name
        for quick in (True, False):
            assert [s.label for s in mod.sizes(quick)] == [s.label for s in loop.sizes(quick)]


def test_report_compares_numpy_rows_with_loop_rows():
    """The report divides a NumPy row's gradient time by its loop row's at the same size,
    lists a ratio above the target as missed, and shows a failed row's error."""
    from benchmarks import adbench_report as rep

    def row(name: str, size: str, grad_s: float, **more) -> dict:
        return {"objective": name, "size": size, "grad_s": grad_s, "primal_s": grad_s / 2,
                "ratio": 2.0, "ok": True, "err_grad": 0.0, **more}

    rows = [row("st", "a", 1.0, form="loop"), row("st", "b", 2.0, form="loop"),
            row("st_np", "a", 1.5, form="numpy", loop_form="st"),
            row("st_np", "b", 2.2, form="numpy", loop_form="st"),
            {"objective": "gm_np", "size": "a", "form": "numpy", "loop_form": "gm", "ok": False,
             "errors": ["ours: FrontendError: f.py:3:4: slices are not supported"]}]
    assert rep.over_loop(rows[2], rows) == 1.5 and rep.over_loop(rows[0], rows) is None
    assert abs(rep.over_loop(rows[3], rows) - 1.1) < 1e-12
    missed = rep.misses(rows)
    assert any(m.startswith("st_np [a]: gradient 1.50x the st (loop) form's") for m in missed)
    assert not any(m.startswith("st_np [b]: gradient") for m in missed)
    assert any(m.startswith("gm_np [a]: FAILED: ours: FrontendError") for m in missed)
    table = rep.table(rows)
    assert re.search(r"^\| st_np \| numpy \| a \| .* \| 1\.50 \|", table, re.M)
    assert re.search(r"^\| gm_np \| numpy \| a \| .*ERROR: ours: FrontendError: f\.py:3:4",
                     table, re.M)
