"""Enzyme's C ABI in forward mode: `__enzyme_fwddiff` calls (markers as loads of the marker
globals, Enzyme's forward defaults, `enzyme_width`) lowered to `@fwddiffe_f`, run natively;
the errors; and `enzyme-py grad --mode forward` / `enzyme-py transform` on the command line."""

from __future__ import annotations

import math

import pytest

from enzyme_py.ad.driver import prepare
from enzyme_py.ad.enzyme_abi_fwd import fwddiff_calls, lower_fwddiff_calls, plan_fwddiff_call
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.backend import compile_ir
from enzyme_py.cli import main
from enzyme_py.ir import parse

HEAD = """
@enzyme_dup = external global i32
@enzyme_const = external global i32
@enzyme_out = external global i32
@enzyme_width = external global i32

declare double @llvm.sin.f64(double)

define double @f(double %x, ptr %a, i32 %n) {
entry:
  %v = load double, ptr %a
  %s = call double @llvm.sin.f64(double %x)
  %m = fmul double %s, %v
  %nf = sitofp i32 %n to double
  %r = fmul double %m, %nf
  store double %m, ptr %a
  ret double %r
}
"""


def _module(body: str, decl: str = "declare double @__enzyme_fwddiff(ptr, ...)") -> str:
    return HEAD + decl + "\n" + body


MARKED = _module("""
define double @caller(double %x, double %dx, ptr %a, ptr %da) {
entry:
  %d = load i32, ptr @enzyme_dup
  %c = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %d, double %x, double %dx, i32 %d, ptr %a, ptr %da, i32 %c, i32 3)
  ret double %r
}
""")

UNMARKED = _module("""
define double @caller(double %x, double %dx, ptr %a, ptr %da) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, ptr %a, ptr %da, i32 3)
  ret double %r
}
""")


def _lowered(text: str):
    work = prepare(parse(text))
    made = lower_fwddiff_calls(work)
    assert not fwddiff_calls(work)
    return work, made


@pytest.mark.parametrize("text", [MARKED, UNMARKED], ids=["marked", "defaults"])
def test_scalar_and_pointer_dup(text) -> None:
    import numpy as np

    plan = plan_fwddiff_call(fwddiff_calls(parse(text))[0])
    assert plan.activities == ("dup", "dup", "const") and plan.width == 1
    work, made = _lowered(text)
    assert made == ["fwddiffe_f"]
    jm = compile_ir(str(work))
    caller = jm.function("caller")
    a, da = np.array([1.5]), np.array([0.25])
    t = caller(0.3, 2.0, a, da)
    want = 3 * (math.cos(0.3) * 2.0 * 1.5 + math.sin(0.3) * 0.25)
    assert math.isclose(t, want, rel_tol=1e-14)
    assert a[0] == math.sin(0.3) * 1.5  # the primal ran
    assert math.isclose(da[0], math.cos(0.3) * 2.0 * 1.5 + math.sin(0.3) * 0.25, rel_tol=1e-14)
    assert "@enzyme_dup = global i32" in str(work)  # markers defined: links with clang


WIDTH = _module("""
define { double, double } @caller(double %x, ptr %a, ptr %da0, ptr %da1) {
entry:
  %w = load i32, ptr @enzyme_width
  %r = call { double, double } (ptr, ...) @__enzyme_fwddiff(ptr @f, i32 %w, i32 2, double %x, double 1.0, double 0.0, ptr %a, ptr %da0, ptr %da1, i32 5)
  ret { double, double } %r
}
""", "declare { double, double } @__enzyme_fwddiff(ptr, ...)")


def test_width_two() -> None:
    import numpy as np

    plan = plan_fwddiff_call(fwddiff_calls(parse(WIDTH))[0])
    assert plan.width == 2 and plan.activities == ("dup", "dup", "const")
    work, _ = _lowered(WIDTH)
    assert "@fwddiffe_f(double %x, double %x.t0, double %x.t1, ptr %a, ptr %a.shadow0, " \
           "ptr %a.shadow1, i32 %n)" in str(work)
    assert "define [2 x double] @fwddiffe_f" in str(work)
    caller = compile_ir(str(work)).function("caller")
    a, d0, d1 = np.array([2.0]), np.array([0.0]), np.array([1.0])
    t0, t1 = caller(0.4, a, d0, d1)
    assert math.isclose(t0, 5 * math.cos(0.4) * 2.0, rel_tol=1e-14)  # direction x
    assert math.isclose(t1, 5 * math.sin(0.4), rel_tol=1e-14)  # direction a
    assert math.isclose(d1[0], math.sin(0.4), rel_tol=1e-14)


def test_one_derivative_per_request() -> None:
    text = MARKED + """
define double @caller2(double %x, ptr %a, ptr %da) {
entry:
  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0, ptr %a, ptr %da, i32 1)
  ret double %r
}
"""
    work, made = _lowered(text)
    assert made == ["fwddiffe_f"]
    assert str(work).count("define double @fwddiffe_f(") == 1


def _lower_error(body: str, decl: str = "declare double @__enzyme_fwddiff(ptr, ...)") -> str:
    with pytest.raises(DifferentiationError) as exc:
        _lowered(_module(body, decl))
    return str(exc.value)


def test_errors() -> None:
    call = "call double (ptr, ...) @__enzyme_fwddiff(ptr @f, {})"

    def body(args: str, pre: str = "") -> str:
        return ("define double @caller(double %x, ptr %a, ptr %da) {\nentry:\n"
                "  %o = load i32, ptr @enzyme_out\n  %w = load i32, ptr @enzyme_width\n"
                f"{pre}  %r = {call.format(args)}\n  ret double %r\n}}\n")

    msg = _lower_error(body("i32 %o, double %x, ptr %a, ptr %da, i32 1"))
    assert "in @caller, block %entry, the call to __enzyme_fwddiff" in msg
    assert "enzyme_out" in msg and "forward mode" in msg
    msg = _lower_error(body("i32 %w, i32 %n, double %x, double 1.0",
                            "  %n = fptosi double %x to i32\n"))
    assert "positive integer constant" in msg
    msg = _lower_error(body("double %x, double 1.0, i32 %w, i32 2, ptr %a, ptr %da, i32 1"))
    assert "enzyme_width must come right after the function" in msg
    msg = _lower_error(body("double %x, double 1.0, ptr %a"))
    assert "needs 2 value(s)" in msg
    msg = _lower_error(body("double %x, double 1.0, ptr %a, ptr %da, i32 1, i32 2"))
    assert "1 argument(s) left over" in msg
    msg = _lower_error(body("i32 %w, i32 2, double %x, double 1.0, double 0.0, ptr %a, "
                            "ptr %da, ptr %da, i32 1"))
    assert "declared return type double has 1 value(s)" in msg and "2 tangent" in msg


# --- command line -------------------------------------------------------------------------------


def test_cli_grad_mode_forward(tmp_path, capsys) -> None:
    src = tmp_path / "f.ll"
    src.write_text(HEAD)
    assert main(["grad", str(src), "-f", "f", "--mode", "forward", "-O", "0"]) == 0
    out = capsys.readouterr().out
    assert "define { double, double } @fwddiffe_f(double %x, double %x.t, ptr %a, " \
           "ptr %a.shadow, i32 %n)" in out  # forward defaults: floats and pointers dup
    assert main(["grad", str(src), "-f", "f", "--mode", "forward", "-a", "dup,dup,const",
                 "--width", "2", "--name", "jvp2", "-O", "0"]) == 0
    out = capsys.readouterr().out
    assert "@jvp2(double %x, double %x.t0, double %x.t1, ptr %a, ptr %a.shadow0, " \
           "ptr %a.shadow1, i32 %n)" in out
    compile_ir(out)


def test_cli_grad_forward_rejects_out(tmp_path, capsys) -> None:
    src = tmp_path / "f.ll"
    src.write_text(HEAD)
    assert main(["grad", str(src), "-f", "f", "--mode", "forward", "-a", "out,dup,const"]) == 1
    assert "'out' is a reverse-mode activity" in capsys.readouterr().err


def test_cli_transform_lowers_fwddiff(tmp_path, capsys) -> None:
    src, out = tmp_path / "m.ll", tmp_path / "o.ll"
    src.write_text(MARKED)
    assert main(["transform", str(src), "-o", str(out)]) == 0
    text = out.read_text()
    assert "@__enzyme_fwddiff(" not in text.replace("declare", "")
    assert "caller" in compile_ir(text).functions
