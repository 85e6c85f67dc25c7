"""`make bench-quick`: every benchmark script runs end to end at tiny sizes (a smoke test;
timings are never asserted)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_bench_quick_runs():
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "run_all.py"), "--quick"],
                         capture_output=True, text=True, timeout=600, check=False)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    for title in ("IR parse/print", "reverse mode vs primal", "call overhead"):
        assert f"=== {title} ===" in res.stdout
    assert "lines/s" in res.stdout
