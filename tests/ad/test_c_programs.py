"""End-to-end reverse-mode tests: self-checking C programs that use Enzyme's C ABI.

Every ``tests/ad/c/*.c`` program calls ``__enzyme_autodiff`` the way Enzyme users do,
compares the gradient with central finite differences of the primal, prints one
``PASS name`` / ``FAIL name ...`` line per check and exits non-zero on any failure.

``test_c_program`` runs the real pipeline for each program at ``-O0`` and ``-O2``::

    clang-22 -O{0,2} -S -emit-llvm prog.c -o prog.ll
    python -m enzyme_py transform prog.ll -o g.ll
    clang-22 -O2 g.ll -o prog -lm && ./prog

``test_reference_gradients`` validates the programs themselves: compiled with
``-DREFERENCE_GRADIENT`` each ``__enzyme_autodiff`` call is replaced by a hand-written
analytic gradient with the same effect, so the program's checks must all pass without
our tool.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
C_DIR = HERE / "c"
ROOT = HERE.parent.parent
PROGRAMS = sorted(C_DIR.glob("*.c"))
OPT_LEVELS = ("-O0", "-O2")

COMPILE_TIMEOUT = 120
RUN_TIMEOUT = 60
MAX_LOG = 6000

pytestmark = pytest.mark.clang


def _clang() -> str:
    path = shutil.which("clang-22")
    if path is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    return path


def _clip(text: str) -> str:
    if len(text) <= MAX_LOG:
        return text
    return text[: MAX_LOG // 3] + "\n[...]\n" + text[-2 * MAX_LOG // 3 :]


def _run(cmd: list[str], what: str, timeout: int,
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             cwd=ROOT, env=env, check=False)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{what} timed out after {timeout}s: {' '.join(cmd)}") from exc
    if res.returncode != 0:
        raise AssertionError(
            f"{what} failed (exit {res.returncode}): {' '.join(cmd)}\n"
            f"--- stdout ---\n{_clip(res.stdout)}\n--- stderr ---\n{_clip(res.stderr)}")
    return res


def _check_program_output(exe: Path, label: str) -> None:
    try:
        res = subprocess.run([str(exe)], capture_output=True, text=True,
                             timeout=RUN_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as exc:
        raise AssertionError(f"{label}: program timed out after {RUN_TIMEOUT}s") from exc
    lines = res.stdout.splitlines()
    fails = [ln for ln in lines if ln.startswith("FAIL")]
    passes = [ln for ln in lines if ln.startswith("PASS")]
    detail = (f"--- stdout ---\n{_clip(res.stdout)}\n--- stderr ---\n{_clip(res.stderr)}")
    assert not fails, f"{label}: {len(fails)} failed check(s)\n{detail}"
    assert res.returncode == 0, f"{label}: exit code {res.returncode}\n{detail}"
    assert passes, f"{label}: no PASS line\n{detail}"


def test_corpus_shape() -> None:
    """The corpus is large enough and every program follows the conventions."""
    assert len(PROGRAMS) >= 45, f"only {len(PROGRAMS)} programs in {C_DIR}"
    for prog in PROGRAMS:
        text = prog.read_text()
        assert '#include "enzyme_test.h"' in text, prog.name
        assert re.search(r"__enzyme_autodiff\(\(void \*\)\w+", text), prog.name
        assert "#ifdef REFERENCE_GRADIENT" in text, prog.name
        assert "return test_exit();" in text, prog.name
        assert "malloc" not in text and "rand()" not in text, prog.name


def transform_in_process(ll: Path, out: Path) -> None:
    """`enzyme-py transform ll -o out`, run in this process (no interpreter start-up per
    program; `tests/test_cli_ad.py` covers the command as a subprocess)."""
    import contextlib
    import io

    from enzyme_py.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main(["transform", str(ll), "-o", str(out)])
    if rc != 0:
        raise AssertionError(f"enzyme_py transform failed (exit {rc}, input kept at {ll}):\n"
                             f"{err.getvalue()}")


@pytest.mark.parametrize("opt", OPT_LEVELS, ids=lambda o: o.lstrip("-"))
@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.stem)
def test_c_program(prog: Path, opt: str, tmp_path: Path) -> None:
    """clang -> enzyme_py transform -> clang -> run: every gradient check passes."""
    clang = _clang()
    ll = tmp_path / f"{prog.stem}{opt}.ll"
    grad_ll = tmp_path / f"{prog.stem}{opt}.grad.ll"
    exe = tmp_path / f"{prog.stem}{opt}"
    _run([clang, opt, "-S", "-emit-llvm", "-I", str(C_DIR), str(prog), "-o", str(ll)],
         "clang (C -> LLVM IR)", COMPILE_TIMEOUT)
    transform_in_process(ll, grad_ll)
    _run([clang, "-O2", str(grad_ll), "-o", str(exe), "-lm"],
         f"clang (link transformed IR {grad_ll})", COMPILE_TIMEOUT)
    _check_program_output(exe, f"{prog.name} {opt}")


@pytest.mark.parametrize("prog", PROGRAMS, ids=lambda p: p.stem)
def test_reference_gradients(prog: Path, tmp_path: Path) -> None:
    """With hand-written gradients (-DREFERENCE_GRADIENT) the program's own checks pass."""
    clang = _clang()
    for opt in OPT_LEVELS:
        exe = tmp_path / f"{prog.stem}{opt}.ref"
        _run([clang, opt, "-DREFERENCE_GRADIENT", "-I", str(C_DIR), str(prog), "-o", str(exe),
              "-lm"], "clang (reference build)", COMPILE_TIMEOUT)
        _check_program_output(exe, f"{prog.name} {opt} -DREFERENCE_GRADIENT")
