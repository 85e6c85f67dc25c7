"""End-to-end reverse-mode tests: self-checking C programs that use Enzyme's C ABI.

Every ``tests/ad/c/*.c`` program calls ``__enzyme_autodiff`` the way Enzyme users do,
compares the gradient with central finite differences of the primal, prints one
``PASS name`` / ``FAIL name ...`` line per check and exits non-zero on any failure.

The programs are the kernel corpus shared with forward mode: each holds its kernel once,
and most also hold, behind ``#ifdef FORWARD_MODE`` (see ``kernel_test.h``), a
``__enzyme_fwddiff`` driver that ``tests/ad/forward/test_fwd_c_programs.py`` builds with
``-DFORWARD_MODE``; built as here, without the flag, the reverse-mode driver runs.

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
from pathlib import Path

import pytest

from tests.ad.harness import check_program_output as _check_program_output
from tests.ad.harness import clang_or_skip as _clang
from tests.ad.harness import run as _run
from tests.ad.harness import transform_in_process

HERE = Path(__file__).resolve().parent
C_DIR = HERE / "c"
ROOT = HERE.parent.parent
PROGRAMS = sorted(C_DIR.glob("*.c"))
OPT_LEVELS = ("-O0", "-O2")

COMPILE_TIMEOUT = 120

pytestmark = pytest.mark.clang


def test_corpus_shape() -> None:
    """The corpus is large enough and every program follows the conventions."""
    assert len(PROGRAMS) >= 45, f"only {len(PROGRAMS)} programs in {C_DIR}"
    for prog in PROGRAMS:
        text = prog.read_text()
        assert '#include "kernel_test.h"' in text, prog.name
        assert re.search(r"__enzyme_autodiff\(\(void \*\)\w+", text), prog.name
        assert "#ifdef REFERENCE_GRADIENT" in text, prog.name
        assert "return test_exit();" in text, prog.name
        assert "malloc" not in text and "rand()" not in text, prog.name
        if "#ifdef FORWARD_MODE" in text:  # the driver of each mode, the kernel shared
            assert "#else /* reverse mode */" in text, prog.name


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
