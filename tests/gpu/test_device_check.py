"""The device check script (`benchmarks/gpu_device_check.py`) without a GPU: it builds every
derivative kernel's PTX and runs the kernels and their derivatives on the simulated grid."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "gpu_device_check.py"


def test_simulate_only_runs_the_corpus(clang: str) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--simulate-only", "--kernels",
                           "saxpy", "block_sum", "warp_sum"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split()[1:] for line in done.stdout.splitlines()[1:]}
    assert set(rows) == {"saxpy", "block_sum", "warp_sum"}
    assert all(r[:2] == ["sim", "ok"] for r in rows.values()), done.stdout


def test_without_a_gpu_it_says_so(clang: str) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--kernels", "saxpy"],
                          capture_output=True, text=True, timeout=600)
    from enzyme_py import gpu

    if gpu.available():  # (a machine with a GPU runs the real check instead)
        assert done.returncode == 0, done.stderr
    else:
        assert done.returncode == 2 and "--simulate-only" in done.stderr
