"""`enzyme-py grad` and `enzyme-py transform`: output that LLVM accepts, stage dumps, one-line
errors, and C programs in Enzyme's C ABI compiled by clang-22, transformed, linked and run."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from enzyme_py.backend import compile_ir, parse_llvm
from enzyme_py.cli import main
from enzyme_py.ir import parse

ROOT = Path(__file__).resolve().parent.parent

CUBE = """
define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  %r = fmul double %m, %x
  ret double %r
}
"""

DOT = """
define double @dot(ptr %x, ptr %w, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr double, ptr %x, i64 %i
  %pw = getelementptr double, ptr %w, i64 %i
  %xv = load double, ptr %px
  %wv = load double, ptr %pw
  %m = fmul double %xv, %wv
  %s.next = fadd double %s, %m
  %i.next = add nsw i64 %i, 1
  br label %head
exit:
  ret double %s
}
"""

UNSUPPORTED = """
declare double @mystery(double)

define double @f(double %x) {
entry:
  %m = call double @mystery(double %x)
  ret double %m
}
"""


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _one_line_error(capsys, argv: list[str], *needles: str) -> str:
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 1
    assert out == ""
    assert "Traceback" not in err and "internal error" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"enzyme-py {argv[0]}: error: "), err
    for n in needles:
        assert n in first, err
    return err


# --- grad --------------------------------------------------------------------------------------


def test_grad_to_stdout_default_activities(tmp_path, capsys) -> None:
    src = _write(tmp_path, "cube.ll", CUBE)
    assert main(["grad", src, "-f", "f"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "define double @f(" in out
    assert "@diffe_f(double %x, double %y, double %dret)" in out
    parse_llvm(out)  # LLVM accepts it
    g = compile_ir(out).function("diffe_f")
    gx, gy = g(2.0, 3.0, 1.0)  # x^2 y
    assert (gx, gy) == (12.0, 4.0)


def test_grad_with_activity_list_and_output_file(tmp_path, capsys) -> None:
    src = _write(tmp_path, "dot.ll", DOT)
    out_path = tmp_path / "g.ll"
    rc = main(["grad", src, "-f", "dot", "-a", "dup, const,const", "-o", str(out_path),
               "--name", "dot_grad", "-O", "1"])
    assert rc == 0
    assert capsys.readouterr().out == ""
    text = out_path.read_text()
    # -O1 adds attributes (readonly, captures(none)) to the pointer parameters
    assert re.search(r"define void @dot_grad\(ptr [^%,]*%x, ptr [^%,]*%x\.shadow, "
                     r"ptr [^%,]*%w, i64 %n, double %dret\)", text), text
    parse_llvm(text)
    module = parse(text)
    assert not module.get_function("dot_grad").is_declaration


def test_grad_const_return(tmp_path, capsys) -> None:
    src = _write(tmp_path, "cube.ll", CUBE)
    assert main(["grad", src, "-f", "f", "--const-return", "-O", "0"]) == 0
    out = capsys.readouterr().out
    assert "define { double, double } @diffe_f(double %x, double %y)" in out
    assert "%dret" not in out


def test_grad_print_after_all_stages(tmp_path, capsys) -> None:
    src = _write(tmp_path, "cube.ll", CUBE)
    out_path = tmp_path / "g.ll"
    assert main(["grad", src, "-f", "f", "--print-after-all", "-o", str(out_path)]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    headers = [ln for ln in err.splitlines() if ln.startswith("; *** IR after ")]
    stages = [h[len("; *** IR after "):-len(" ***")] for h in headers]
    assert stages[0] == "input"
    for stage in ("strip-optnone", "sroa", "instcombine", "simplifycfg", "mergereturn",
                  "loop-simplify", "lcssa"):
        assert stage in stages, stages
    assert stages[-6:] == ["print-activity", "reverse", "dupnoneed", "tape-scopes", "tape-checks",
                           "O2"]
    assert stages.index("lcssa") < stages.index("print-activity")
    # the activity printer's stage shows the annotated function
    activity = err.split("; *** IR after print-activity ***")[1].split("; *** IR after")[0]
    assert "; activity of @f" in activity and "; active" in activity
    gradient = err.split("; *** IR after reverse ***")[1].split("; *** IR after")[0]
    assert "rev.entry:" in gradient and "%x.d = alloca double" in gradient


def test_grad_dump_dir_numbered_files(tmp_path, capsys) -> None:
    src = _write(tmp_path, "cube.ll", CUBE)
    dump = tmp_path / "stages"
    assert main(["grad", src, "-f", "f", "--dump-dir", str(dump), "-o",
                 str(tmp_path / "g.ll")]) == 0
    names = sorted(p.name for p in dump.iterdir())
    assert names[0] == "00-input.ll"
    assert names[-6].endswith("-print-activity.ll") and names[-1].endswith("-O2.ll")
    assert [int(n[:2]) for n in names] == list(range(len(names)))
    assert any(n.endswith("-sroa.ll") for n in names)
    first = (dump / names[0]).read_text()
    assert first[first.index("define"):].strip() == CUBE.strip()
    final = (dump / names[-1]).read_text()
    assert final == (tmp_path / "g.ll").read_text()
    parse_llvm(final)
    assert capsys.readouterr().err == ""


def test_grad_bad_activity_list_length(tmp_path, capsys) -> None:
    src = _write(tmp_path, "cube.ll", CUBE)
    _one_line_error(capsys, ["grad", src, "-f", "f", "-a", "out"],
                    "--activity lists 1 activities but @f has 2 arguments")


def test_grad_unknown_activity(tmp_path, capsys) -> None:
    src = _write(tmp_path, "cube.ll", CUBE)
    _one_line_error(capsys, ["grad", src, "-f", "f", "-a", "out,active"],
                    "unknown activity 'active'")


def test_grad_unknown_function(tmp_path, capsys) -> None:
    src = _write(tmp_path, "cube.ll", CUBE)
    _one_line_error(capsys, ["grad", src, "-f", "g"], "no function @g", "defined: f")


def test_grad_malformed_ir(tmp_path, capsys) -> None:
    src = _write(tmp_path, "bad.ll", "define double @f(double %x) {\n  ret double %y\n}\n")
    err = _one_line_error(capsys, ["grad", src, "-f", "f"], "bad.ll:2:", "%y")
    assert len(err.splitlines()) <= 3  # the message, then the source line and a caret


def test_grad_missing_file(tmp_path, capsys) -> None:
    _one_line_error(capsys, ["grad", str(tmp_path / "nope.ll"), "-f", "f"], "no such file")


def test_grad_unsupported_call(tmp_path, capsys) -> None:
    src = _write(tmp_path, "u.ll", UNSUPPORTED)
    err = _one_line_error(capsys, ["grad", src, "-f", "f"],
                          "in @f, block %entry", "@mystery", "__enzyme_inactivefn")
    assert len(err.splitlines()) == 1


def test_grad_subprocess(tmp_path) -> None:
    src = _write(tmp_path, "dot.ll", DOT)
    res = subprocess.run([sys.executable, "-m", "enzyme_py", "grad", src, "-f", "dot",
                          "-a", "dup,dup,const"], capture_output=True, text=True, cwd=ROOT,
                         timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    assert re.search(r"define void @diffe_dot\(ptr [^%,]*%x, ptr [^%,]*%x\.shadow, "
                     r"ptr [^%,]*%w, ptr [^%,]*%w\.shadow, i64 %n, double %dret\)",
                     res.stdout), res.stdout
    parse_llvm(res.stdout)
    bad = subprocess.run([sys.executable, "-m", "enzyme_py", "grad", src, "-f", "dot",
                          "-a", "dup"], capture_output=True, text=True, cwd=ROOT,
                         timeout=120, check=False)
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


# --- transform ---------------------------------------------------------------------------------

C_PROGRAM = r"""
#include <stdio.h>
#include <math.h>
extern int enzyme_dup, enzyme_const, enzyme_out;
double __enzyme_autodiff(void *, ...);

double f(double *x, double s, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) acc += sin(x[i]) * s * x[i];
  return acc;
}

int main(void) {
  double x[4] = {0.5, 1.0, -0.25, 2.0}, dx[4] = {0};
  double ds = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_out, 1.5,
                                enzyme_const, 4);
  printf("ds=%.15g\n", ds);
  for (int i = 0; i < 4; i++) printf("dx%d=%.15g\n", i, dx[i]);
  return 0;
}
"""

PLAIN_C = r"""
#include <stdio.h>
double poly(double x) { return 3.0 * x * x - 2.0 * x + 1.0; }
int main(void) {
  double s = 0;
  for (int i = 0; i < 10; i++) s += poly(i * 0.5);
  printf("s=%.6f\n", s);
  return 0;
}
"""

TOO_FEW = r"""
extern int enzyme_dup;
void __enzyme_autodiff(void *, ...);
double f(double *x, double *y) { return x[0] * y[0]; }
void g(double *x, double *dx) { __enzyme_autodiff((void *)f, enzyme_dup, x, dx); }
"""


def _clang_ll(clang: str, tmp_path: Path, source: str, opt: str, name: str = "p") -> Path:
    c = tmp_path / f"{name}.c"
    c.write_text(source)
    ll = tmp_path / f"{name}{opt}.ll"
    subprocess.run([clang, opt, "-S", "-emit-llvm", str(c), "-o", str(ll)], check=True,
                   capture_output=True, timeout=120)
    return ll


def _link_and_run(clang: str, ll: Path, exe: Path) -> str:
    res = subprocess.run([clang, "-O2", str(ll), "-o", str(exe), "-lm"], capture_output=True,
                         text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_transform_c_program(clang, tmp_path, capsys, opt) -> None:
    ll = _clang_ll(clang, tmp_path, C_PROGRAM, opt)
    out = tmp_path / f"g{opt}.ll"
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    assert capsys.readouterr().err == ""
    text = out.read_text()
    assert not re.search(r"call .*@__enzyme_autodiff", text)
    assert re.search(r"call double @diffe_f\(", text) and "define double @diffe_f(" in text
    stdout = _link_and_run(clang, out, tmp_path / f"prog{opt}")
    got = dict(line.split("=") for line in stdout.split())
    x, s = [0.5, 1.0, -0.25, 2.0], 1.5
    assert math.isclose(float(got["ds"]), sum(math.sin(v) * v for v in x), rel_tol=1e-12)
    for i, v in enumerate(x):
        want = s * (math.cos(v) * v + math.sin(v))
        assert math.isclose(float(got[f"dx{i}"]), want, rel_tol=1e-12), (i, got)


@pytest.mark.clang
def test_transform_print_after_all(clang, tmp_path, capsys) -> None:
    ll = _clang_ll(clang, tmp_path, C_PROGRAM, "-O0")
    assert main(["transform", str(ll), "--print-after-all", "-o", str(tmp_path / "g.ll")]) == 0
    err = capsys.readouterr().err
    stages = [ln[len("; *** IR after "):-len(" ***")] for ln in err.splitlines()
              if ln.startswith("; *** IR after ")]
    assert stages[0] == "input" and "sroa" in stages and "lcssa" in stages
    assert "print-activity" in stages and \
        stages[-4:] == ["lower-enzyme", "tape-scopes", "tape-checks", "O2"]


@pytest.mark.clang
def test_transform_without_autodiff_calls(clang, tmp_path, capsys) -> None:
    ll = _clang_ll(clang, tmp_path, PLAIN_C, "-O0", "plain")
    want = _link_and_run(clang, ll, tmp_path / "direct")
    out = tmp_path / "g.ll"
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    assert "diffe_" not in out.read_text()
    assert _link_and_run(clang, out, tmp_path / "through") == want == "s=178.750000\n"


@pytest.mark.clang
def test_transform_too_few_arguments(clang, tmp_path, capsys) -> None:
    ll = _clang_ll(clang, tmp_path, TOO_FEW, "-O0", "few")
    err = _one_line_error(capsys, ["transform", str(ll), "-o", str(tmp_path / "g.ll")],
                          "in @g", "__enzyme_autodiff", "@f")
    assert "too few arguments" in err or "ran out" in err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "g.ll").exists()


@pytest.mark.clang
def test_transform_subprocess(clang, tmp_path) -> None:
    ll = _clang_ll(clang, tmp_path, C_PROGRAM, "-O2")
    out = tmp_path / "g.ll"
    res = subprocess.run([sys.executable, "-m", "enzyme_py", "transform", str(ll), "-o",
                          str(out)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         check=False)
    assert res.returncode == 0, res.stderr
    stdout = _link_and_run(clang, out, tmp_path / "prog")
    assert stdout.startswith("ds=2.96162959757")


INLINED_RULE = r"""
#include <math.h>
extern int enzyme_dup, enzyme_const;
extern double __enzyme_autodiff(void *, ...);
void norm2(const double *v, double *out) { *out = sqrt(v[0] * v[0] + v[1] * v[1]); }
void norm2_rev(const double *v, double *dv, double *out, double *dout) {
    dv[0] += *dout; dv[1] += *dout; *dout = 0.0;
}
void *__enzyme_register_gradient_norm2[3] = {(void *)norm2, (void *)0, (void *)norm2_rev};
double total(const double *vs, int n) {
    double s = 0.0;
    for (int i = 0; i < n; i++) { double r; norm2(vs + 2 * i, &r); s += r; }
    return s;
}
void g(double *vs, double *d) { __enzyme_autodiff((void *)total, enzyme_dup, vs, d, enzyme_const, 2); }
"""


@pytest.mark.clang
def test_transform_refuses_a_registered_function_that_was_inlined(clang, tmp_path,
                                                                   capsys) -> None:
    """At -O2 clang inlined norm2: its rule would be silently unused (a different
    gradient), so that is an error naming the two ways out."""
    ll = _clang_ll(clang, tmp_path, INLINED_RULE, "-O2", "inlined")
    err = _one_line_error(capsys, ["transform", str(ll), "-o", str(tmp_path / "g.ll")],
                          "@norm2 has a registered derivative", "-disable-llvm-passes",
                          "--preoptimize", "noinline")
    assert not (tmp_path / "g.ll").exists() and "--allow-inlined-rules" in err
    assert main(["transform", str(ll), "--allow-inlined-rules", "-o",
                 str(tmp_path / "g.ll")]) == 0
    assert "warning: @norm2 has a registered derivative that is not used" in \
        capsys.readouterr().err


def _rule_driver() -> str:
    return INLINED_RULE + r"""
#include <stdio.h>
int main(void) {
    double vs[4] = {3.0, 4.0, 6.0, 8.0}, d[4] = {0.0, 0.0, 0.0, 0.0};
    g(vs, d);
    printf("%g %g %g %g\n", d[0], d[1], d[2], d[3]);
    return 0;
}
"""


@pytest.mark.clang
@pytest.mark.parametrize("flags", [["-O0"], ["-O2", "-Xclang", "-disable-llvm-passes"]])
def test_registered_rule_is_used_with_unoptimized_input(clang, tmp_path, capsys,
                                                        flags) -> None:
    """clang's -O0 or -O2 -disable-llvm-passes output: the rule's call survives; with
    --preoptimize enzyme-py runs -O2 itself and keeps it (the rule's gradient is all ones,
    the true one is v / |v|)."""
    src = tmp_path / "rule.c"
    src.write_text(_rule_driver())
    ll = tmp_path / "rule.ll"
    subprocess.run([clang, *flags, "-S", "-emit-llvm", str(src), "-o", str(ll)], check=True,
                   capture_output=True)
    for extra in ([], ["--preoptimize"]):
        out = tmp_path / f"rule{len(extra)}.out.ll"
        assert main(["transform", str(ll), *extra, "-o", str(out)]) == 0
        assert capsys.readouterr().err == ""
        assert _link_and_run(clang, out, tmp_path / "rule").split() == ["1", "1", "1", "1"]


FWDDIFF_VOID = r"""
#include <stdio.h>
extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;
__attribute__((noinline)) void square_into(double *x, double *y) { *y = *x * *x; }
int main(void) {
    double x = 3.0, dx = 1.0, y = 0.0, dy = 0.0;
    /* declared as returning double, as Enzyme's ForwardMode loops*.c tests do */
    double r = __enzyme_fwddiff((void *)square_into, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy);
    printf("y=%.17g dy=%.17g r=%.17g\n", y, dy, r);
    return 0;
}
"""


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_fwddiff_declared_double_for_a_void_function(clang, tmp_path, capsys, opt) -> None:
    """Accepted as Enzyme does, with a warning; the tangent lands in the shadow."""
    ll = _clang_ll(clang, tmp_path, FWDDIFF_VOID, opt, "fwdvoid")
    out = tmp_path / f"fwdvoid{opt}.out.ll"
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning" in err and "@square_into returns no floating point value" in err
    got = dict(kv.split("=") for kv in _link_and_run(clang, out, tmp_path / "fv").split())
    assert float(got["y"]) == 9.0 and float(got["dy"]) == 6.0 and float(got["r"]) == 0.0


VIRTUAL_REVERSE = r"""
extern void *__enzyme_todense(void *);
void sq(double *x, double *y) { *y = *x * *x; }
void *run(void) { return __enzyme_todense((void *)sq); }
"""


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_enzyme_calls_never_left_unlowered(clang, tmp_path, capsys, opt) -> None:
    """An entry point not lowered (`__enzyme_todense`; split mode and
    `__enzyme_virtualreverse` are lowered, see test_cli_split.py and
    tests/ad/test_enzyme_suite_regressions.py): an error naming the call, never output that
    fails to link."""
    ll = _clang_ll(clang, tmp_path, VIRTUAL_REVERSE, opt, "virtual")
    out = tmp_path / "virtual.out.ll"
    err = _one_line_error(capsys, ["transform", str(ll), "-o", str(out)],
                          "in @run", "__enzyme_todense")
    assert "not one of the entry points" in err and not out.exists()
