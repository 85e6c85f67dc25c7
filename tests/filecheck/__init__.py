"""Golden tests with FileCheck (the `filecheck` package, a Python clone of LLVM's).

The golden tests are the `.ll` files below this directory, run by lit (`lit.cfg.py`,
`test_lit.py`); `filecheck()` checks output that a Python test builds itself.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path


def filecheck(output: str, checks: str) -> None:
    """Assert that `output` matches the `; CHECK:` lines in `checks` (LLVM FileCheck syntax)."""
    with tempfile.TemporaryDirectory() as d:
        check_file = Path(d) / "checks.txt"
        check_file.write_text(checks)
        res = subprocess.run(
            [sys.executable, "-c", "import sys; from filecheck.main import main; sys.exit(main())",
             str(check_file)],
            input=output, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise AssertionError(f"FileCheck failed:\n{res.stdout}{res.stderr}\n--- output ---\n"
                             f"{output}")
