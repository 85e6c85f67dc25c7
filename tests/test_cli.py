"""The `enzyme-py` command line: results on success, one clear line on failure."""

from __future__ import annotations

import subprocess
import sys

import pytest

from enzyme_py.cli import main
from tests.conftest import FIXTURES

SRC = FIXTURES / "c_dot.O0.ll"


def test_opt_to_file(tmp_path, capsys):
    out = tmp_path / "out.ll"
    assert main(["opt", str(SRC), "-p", "strip-optnone,sroa,instcombine", "-o", str(out)]) == 0
    text = out.read_text()
    assert "define" in text and "alloca" not in text
    assert capsys.readouterr().err == ""


def test_opt_print_after_all(capsys):
    assert main(["opt", str(SRC), "-p", "sroa,simplifycfg", "--print-after-all"]) == 0
    captured = capsys.readouterr()
    headers = [ln for ln in captured.err.splitlines() if ln.startswith("; *** IR after")]
    assert headers == ["; *** IR after input ***", "; *** IR after sroa ***",
                       "; *** IR after simplifycfg ***"]
    assert "define" in captured.out


def test_opt_dump_dir(tmp_path):
    d = tmp_path / "stages"
    assert main(["opt", str(SRC), "-p", "sroa,instcombine", "--dump-dir", str(d),
                 "-o", str(tmp_path / "o.ll")]) == 0
    assert sorted(p.name for p in d.iterdir()) == ["00-input.ll", "01-sroa.ll",
                                                   "02-instcombine.ll"]


def test_malformed_input_is_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "bad.ll"
    bad.write_text("define double @f(double %x) {\n  %y = fmul double %x,\n  ret double %y\n}\n")
    assert main(["opt", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:3:3: error: expected a constant of type double" in err
    assert "Traceback" not in err


def test_missing_file_and_unknown_pass(capsys):
    assert main(["opt", "/nonexistent/x.ll"]) == 1
    assert "/nonexistent/x.ll: no such file" in capsys.readouterr().err
    assert main(["opt", str(SRC), "-p", "nosuchpass"]) == 1
    assert "unknown pass 'nosuchpass'" in capsys.readouterr().err


def test_module_entry_point_no_traceback(tmp_path):
    bad = tmp_path / "bad.ll"
    bad.write_text("this is not IR\n")
    res = subprocess.run([sys.executable, "-m", "enzyme_py", "opt", str(bad)],
                         capture_output=True, text=True, check=False)
    assert res.returncode == 1
    assert "error: expected a top-level entity" in res.stderr
    assert "Traceback" not in res.stderr
    res = subprocess.run([sys.executable, "-m", "enzyme_py", "--help"], capture_output=True,
                         text=True, check=False)
    assert res.returncode == 0 and "opt" in res.stdout and "demo" in res.stdout


def test_demo_runs(capsys):
    assert main(["demo", "--quiet"]) == 0
    assert "demo: all checks passed" in capsys.readouterr().out


# --------------------------------------------------------------------------- bad input


def _cli(tmp_path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`enzyme-py ARGS user.ll` in a child process (LLVM ending it fails the test only)."""
    path = tmp_path / "user.ll"
    path.write_text(text)
    argv = [a if a != "%s" else path.name for a in args]
    return subprocess.run([sys.executable, "-m", "enzyme_py", *argv], capture_output=True,
                          text=True, check=False, cwd=tmp_path, timeout=300)


def test_literal_of_the_wrong_type_names_file_line_col(tmp_path):
    res = _cli(tmp_path, "define void @f(ptr %p) {\n  store double 64, ptr %p\n  ret void\n}\n",
               "opt", "%s")
    assert res.returncode == 1
    assert "user.ll:2:16: error: integer constant must have integer type" in res.stderr
    assert "store double 64, ptr %p" in res.stderr and "Traceback" not in res.stderr


def test_use_before_definition_names_the_users_line(tmp_path):
    res = _cli(tmp_path, "define double @f(double %x) {\nentry:\n  %y = fadd double %z, 1.0\n"
               "  %z = fmul double %x, %x\n  ret double %y\n}\n", "grad", "%s", "-f", "f")
    assert res.returncode == 1
    assert "user.ll:3: in function @f, block %entry" in res.stderr
    assert "(at user.ll:4)" in res.stderr


def test_llvm_errors_name_the_users_line_not_the_reprinted_one(tmp_path):
    text = ("; comments the printer drops\n\n\ndefine double @f(i32 %x) {\nentry:\n  ; more\n"
            "  %y = fptosi i32 %x to double\n  ret double %y\n}\n")
    for args in (("opt", "%s"), ("grad", "%s", "-f", "f")):
        res = _cli(tmp_path, text, *args)
        assert res.returncode == 1, res.stderr
        assert "user.ll:7: error: invalid cast opcode for cast from 'i32' to 'double'" \
            in res.stderr
        assert "module:" not in res.stderr


def test_unterminated_string_quotes_only_its_line(tmp_path):
    res = _cli(tmp_path, 'source_filename = "abc\n\ndefine void @f() {\n  ret void\n}\n'
               'attributes #0 = { "a"="b" }\n', "opt", "%s")
    assert res.returncode == 1
    assert "user.ll:1:19: error: expected file name, found a quoted string with no closing" \
        in res.stderr
    assert "ret void" not in res.stderr and "attributes" not in res.stderr


def test_unknown_target_cpu_is_a_warning_not_a_crash(tmp_path):
    text = ("define double @f(double %x) #0 {\n  %y = fmul double %x, %x\n  ret double %y\n}\n"
            'attributes #0 = { "target-cpu"="nonsense" "target-features"="+sse2" }\n')
    res = _cli(tmp_path, text, "grad", "%s", "-f", "f")
    assert res.returncode == 0, res.stderr
    warning = ("enzyme-py grad: warning: attributes #0: 'nonsense' is not a recognized "
               "processor for target")
    assert res.stderr.count(warning) == 1, res.stderr
    assert "LLVM ERROR" not in res.stderr and "@diffe_f" in res.stdout


def test_module_for_another_target_is_differentiated_for_it(tmp_path):
    text = ('target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"\n'
            'target triple = "nvptx64-nvidia-cuda"\n\n'
            "define double @sq(double %x) #0 {\n  %y = fmul double %x, %x\n  ret double %y\n}\n"
            'attributes #0 = { "target-cpu"="sm_80" "target-features"="+ptx88,+sm_80" }\n')
    res = _cli(tmp_path, text, "grad", "%s", "-f", "sq")
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    assert 'target triple = "nvptx64-nvidia-cuda"' in res.stdout
    assert "define double @diffe_sq(" in res.stdout


# --------------------------------------------------------------------------- pipelines


CUBE = """define double @f(double %x, ptr %p) {
entry:
  %v = load double, ptr %p, align 8
  %s = fmul double %x, %x
  %c = fmul double %s, %v
  ret double %c
}
"""


def _cube(tmp_path):
    src = tmp_path / "cube.ll"
    src.write_text(CUBE)
    return str(src)


@pytest.mark.parametrize("mode", [[], ["--mode", "forward", "--width", "2"]],
                         ids=["reverse", "forward"])
def test_opt_runs_the_pipeline_grad_prints(tmp_path, capsys, mode):
    """`grad --print-pipeline` prints what grad runs: `opt -p` with it writes the same module."""
    src = _cube(tmp_path)
    assert main(["grad", src, "-f", "f", *mode, "--print-pipeline"]) == 0
    pipeline = capsys.readouterr().out.strip()
    assert pipeline.startswith("posix-memalign,inline-callees{fn=f},strip-optnone")
    assert main(["grad", src, "-f", "f", *mode, "-o", str(tmp_path / "grad.ll")]) == 0
    assert main(["opt", src, "-p", pipeline, "-o", str(tmp_path / "opt.ll")]) == 0
    assert (tmp_path / "opt.ll").read_text() == (tmp_path / "grad.ll").read_text()


def test_opt_printers_report_before_the_module(tmp_path, capsys):
    src = _cube(tmp_path)
    assert main(["opt", src, "-p", "print-loops,print-activity{fn=f,acts=out,dup}"]) == 0
    out = capsys.readouterr().out
    assert out.index("loops of @f:") < out.index("; activity of @f") < out.index("define double")
    assert main(["opt", src, "-p", "print-types", "--disable-output"]) == 0
    assert capsys.readouterr().out == ("; memory types of @f\n;   %p: double  ; float*\n"
                                       "; float kind of memory in @f\n;   argument %p: double\n")


def test_opt_list_passes_needs_no_input(capsys):
    assert main(["opt", "--list-passes"]) == 0
    out = capsys.readouterr().out
    assert "reverse{fn=,acts=,ret=,name=,primal=,atomics=}" in out and "print-types{fn=}" in out


def test_opt_without_input_is_one_line(capsys):
    assert main(["opt"]) == 1
    assert "no input file" in capsys.readouterr().err
