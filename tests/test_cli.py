"""The `enzyme-py` command line: results on success, one clear line on failure."""

from __future__ import annotations

import subprocess
import sys

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
