"""Checkpointing through `enzyme-py transform`: self-checking C programs of the reverse-mode
corpus (`tests/ad/c/`) whose differentiated functions have time loops, transformed with
`--snapshots=1` (every step run again from the start: the most recomputation; clang -O0 and
-O2 input) and with `--memory-budget` (the forward sweep keeps every state; -O2 input), must
pass their own gradient
checks; a loop checkpointing refuses is an error naming it, never a wrong gradient."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ad.harness import (
    check_program_output,
    clang_or_skip,
    run,
    transform_error_in_process,
    transform_in_process,
)

C_DIR = Path(__file__).resolve().parent / "c"
PROGRAMS = ("rk4_ode", "loop_triangular", "buffer_reuse_loop", "softmax_xent",
            "loop_break_continue", "smooth_max")
OPTIONS = (("--snapshots=1",), ("--memory-budget=1MB",))

pytestmark = pytest.mark.clang


def _ir(clang: str, prog: str, opt: str, tmp: Path) -> Path:
    ll = tmp / f"{prog}{opt}.ll"
    run([clang, opt, "-S", "-emit-llvm", "-I", str(C_DIR), str(C_DIR / f"{prog}.c"), "-o",
         str(ll)], "clang (C -> LLVM IR)", 120)
    return ll


CASES = [(prog, opt, options) for prog in PROGRAMS for opt in ("-O0", "-O2")
         for options in OPTIONS if opt == "-O2" or options == OPTIONS[0]]


@pytest.mark.parametrize("prog,opt,options", CASES,
                         ids=lambda v: v if isinstance(v, str) else v[0].split("=")[0])
def test_checkpointed_c_program(prog: str, opt: str, options: tuple[str, ...],
                                tmp_path: Path) -> None:
    clang = clang_or_skip()
    ll = _ir(clang, prog, opt, tmp_path)
    out, exe = tmp_path / "g.ll", tmp_path / prog
    transform_in_process(ll, out, "-O", "0", *options)  # (clang optimizes it when linking)
    if (prog, opt) != ("loop_break_continue", "-O2"):  # (-O2 leaves it no time loop)
        assert '"enzyme_py-checkpoint"=' in out.read_text(), "no loop was checkpointed"
    run([clang, "-O2", str(out), "-o", str(exe), "-lm"], "clang (link)", 120)
    check_program_output(exe, f"{prog} {opt} {' '.join(options)}")


def test_a_loop_checkpointing_refuses_is_named(tmp_path: Path) -> None:
    clang = clang_or_skip()
    ll = _ir(clang, "heat_stencil", "-O2", tmp_path)
    rc, err = transform_error_in_process(ll, tmp_path / "g.ll", "--checkpoint")
    assert rc == 1 and "@heat" in err and "cannot checkpoint this loop" in err
