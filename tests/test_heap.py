"""`enzyme_py.heap`: glibc keeps freed tape memory for the next gradient call."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from enzyme_py import heap


@pytest.mark.xfail(not sys.platform.startswith("linux"), strict=True,
                   reason="glibc's mallopt (Linux only)")
def test_thresholds_applied_once_and_can_be_turned_off() -> None:
    code = "from enzyme_py import heap; print(heap.keep_freed_memory(), heap._applied)"
    env = dict(os.environ)
    env.pop("ENZYME_PY_KEEP_HEAP", None)
    on = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                        env=env, check=True, timeout=60)
    assert on.stdout.split() == ["True", "True"]
    env["ENZYME_PY_KEEP_HEAP"] = "0"
    off = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, timeout=60)
    assert off.stdout.split() == ["False", "False"]


def test_backend_applies_it() -> None:
    from enzyme_py import backend

    backend.compile_ir("define double @f(double %x) {\n  ret double %x\n}\n")
    assert heap._applied is not None  # the JIT host set the thresholds up (or tried)
