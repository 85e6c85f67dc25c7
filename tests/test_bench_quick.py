"""`make bench-quick`: every benchmark script runs end to end at tiny sizes (a smoke test;
timings are never asserted)."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT

ADBENCH = "ADBench-style objectives vs JAX"


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
    from benchmarks.objectives import OBJECTIVES

    for name in OBJECTIVES:  # one table row per objective, every check passed
        assert re.search(rf"^\| {name} \| .* \| ok \|$", adbench, re.M), name
    out = re.search(r"^wrote .* in (.+)$", adbench, re.M)
    assert out is not None and "benchmarks" not in out.group(1)  # not the committed files
    assert (ROOT / "benchmarks" / "RESULTS.md").resolve() != \
        (ROOT / out.group(1) / "RESULTS.md").resolve()
