"""`--fast-math` on `enzyme-py grad` / `transform` and the `fast-math` pass: the flags reach the
primal and the derivative code through the pipeline, the default stays IEEE-exact."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from enzyme_py.backend import compile_ir
from enzyme_py.cli import main
from enzyme_py.ir import parse
from enzyme_py.passes import Pipeline

SUMSQ = """
define double @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %m = fmul double %v, %v
  %s1 = fadd double %s, %m
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s1
}
"""


def _grad(tmp_path, capsys, *flags: str) -> str:
    src = tmp_path / "f.ll"
    src.write_text(SUMSQ)
    assert main(["grad", str(src), "-f", "f", *flags]) == 0
    return capsys.readouterr().out


def test_the_pipeline_flags_the_primal_and_the_adjoint(tmp_path, capsys) -> None:
    text = _grad(tmp_path, capsys, "--fast-math", "reassoc,contract", "--print-pipeline")
    steps = text.strip().split(",")
    assert steps[0] == "fast-math{flags=reassoc" and steps[1] == "contract}"
    assert "fast-math{flags=reassoc,contract},O2" in text  # after the derivative is made


def test_every_float_operation_of_the_gradient_is_flagged(tmp_path, capsys) -> None:
    out = _grad(tmp_path, capsys, "--fast-math", "-O0")
    grad = out[out.index("define double @diffe_f") if "define double @diffe_f" in out
               else out.index("@diffe_f("):]
    ops = re.findall(r"= (fadd|fmul|fsub)( fast)? double", grad)
    assert ops and all(fast for _, fast in ops), ops


def test_default_is_ieee_exact(tmp_path, capsys) -> None:
    """The primal's arithmetic keeps no flags; the one flag of the gradient is `reassoc`, on
    the sums of adjoints (the chain rule adds a value's contributions in no order the source
    gives, so they may be reordered)."""
    out = _grad(tmp_path, capsys, "-O0")
    assert " fast " not in out
    assert "%m = fmul double %v, %v" in out and "%s1 = fadd double %s, %m" in out
    flagged = re.findall(r"= (\w+) ((?:(?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc) )+)"
                         r"double", out)
    assert flagged and set(flagged) == {("fadd", "reassoc ")}, flagged


def test_flagged_gradient_is_still_right(tmp_path, capsys) -> None:
    out = _grad(tmp_path, capsys, "--fast-math", "reassoc,contract")
    jm = compile_ir(out)
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                          ctypes.c_double)(jm.address("diffe_f"))
    x = np.linspace(-1.0, 2.0, 37)
    dx = np.zeros_like(x)
    fn(x.ctypes.data, dx.ctypes.data, x.size, 1.0)
    np.testing.assert_allclose(dx, 2 * x, rtol=1e-14)


def test_an_unknown_flag_is_a_one_line_error(tmp_path, capsys) -> None:
    src = tmp_path / "f.ll"
    src.write_text(SUMSQ)
    assert main(["grad", str(src), "-f", "f", "--fast-math=bogus"]) == 1
    err = capsys.readouterr().err
    assert "unknown flag(s) bogus" in err and "Traceback" not in err


@pytest.mark.parametrize(("flags", "expect"), [("", "fast"), ("{flags=nnan,arcp}", "nnan arcp")])
def test_the_pass_by_hand(flags: str, expect: str) -> None:
    out = Pipeline.parse(f"fast-math{flags}").run(parse(SUMSQ))
    assert f"fmul {expect} double %v, %v" in str(out)
