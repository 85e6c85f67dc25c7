"""Shared pieces of the C/C++ program harnesses (reverse, forward, whole programs): run a
command with a clear failure message, run the transform in-process, and read a self-checking
program's PASS/FAIL lines."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT = 60
MAX_LOG = 6000


def clang_or_skip() -> str:
    path = shutil.which("clang-22")
    if path is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    return path


def clip(text: str) -> str:
    if len(text) <= MAX_LOG:
        return text
    return text[: MAX_LOG // 3] + "\n[...]\n" + text[-2 * MAX_LOG // 3 :]


def run(cmd: list[str], what: str, timeout: int,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             cwd=ROOT, env=env, check=False)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{what} timed out after {timeout}s: {' '.join(cmd)}") from exc
    if res.returncode != 0:
        raise AssertionError(
            f"{what} failed (exit {res.returncode}): {' '.join(cmd)}\n"
            f"--- stdout ---\n{clip(res.stdout)}\n--- stderr ---\n{clip(res.stderr)}")
    return res


def tool_env() -> dict[str, str]:
    """The environment for `python -m enzyme_py` subprocesses (the checkout importable)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def transform_in_process(ll: Path, out: Path, *options: str) -> None:
    """`enzyme-py transform [options] ll -o out`, run in this process (no interpreter
    start-up per program; `tests/test_cli_ad.py` covers the command as a subprocess)."""
    from enzyme_py.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main(["transform", *options, str(ll), "-o", str(out)])
    if rc != 0:
        raise AssertionError(f"enzyme_py transform failed (exit {rc}, input kept at {ll}):\n"
                             f"{err.getvalue()}")


def transform_error_in_process(ll: Path, out: Path, *options: str) -> tuple[int, str]:
    """`enzyme-py transform [options] ll -o out` in this process, for an input that must
    fail: (exit code, what it wrote to stderr)."""
    from enzyme_py.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main(["transform", *options, str(ll), "-o", str(out)])
    return rc, err.getvalue()


def check_program_output(exe: Path, label: str, env: dict[str, str] | None = None) -> None:
    """The program printed at least one PASS line, no FAIL line, and exited 0."""
    try:
        res = subprocess.run([str(exe)], capture_output=True, text=True,
                             timeout=RUN_TIMEOUT, env=env, check=False)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{label}: program timed out after {RUN_TIMEOUT}s") from exc
    lines = res.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    passes = [ln for ln in lines if ln.startswith("PASS")]
    detail = f"--- stdout ---\n{clip(res.stdout)}\n--- stderr ---\n{clip(res.stderr)}"
    assert not fails, f"{label}: {len(fails)} failed check(s)\n{detail}"
    assert res.returncode == 0, f"{label}: exit code {res.returncode}\n{detail}"
    assert passes, f"{label}: no PASS line\n{detail}"
