"""`benchmarks/enzyme_suite.py` (`make enzyme-tests`): the selection of Enzyme's integration
tests (exclusions with reasons, RUN lines read for LLVM 22), the flags taken from the RUN
lines, and one end-to-end run on a fake `Integration` folder of tiny programs."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import enzyme_suite as S
from tests.conftest import ROOT

UTILS = """\
#include <stdio.h>
#include <stdlib.h>
extern int enzyme_const, enzyme_dup, enzyme_out;
#define APPROX_EQ(L, R, T) { if (__builtin_fabs((L) - (R)) > (T)) { \\
    fprintf(stderr, "Assertion Failed: %s\\n", #L); abort(); } }
"""

GOOD = """\
// RUN: %clang -std=c11 -O0 %s -S -emit-llvm -o - | %opt - %OPloadEnzyme %enzyme -S | %lli -
// RUN: %clang -std=c11 -ffast-math -O2 %s -S -emit-llvm -o - | %opt - %OPloadEnzyme %enzyme -S | %lli -
#include "../test_utils.h"
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }
int main() { APPROX_EQ(__enzyme_autodiff((void *)sq, 3.0), 6.0, 1e-12); return 0; }
"""

WRONG = GOOD.replace("6.0, 1e-12", "7.0, 1e-12")
OLD_ONLY = "// RUN: if [ %llvmver -le 11 ]; then %clang -O0 %s -S -emit-llvm -o - | %lli - ; fi\n"
COMPILE_ONLY = """\
// RUN: %clang++ -std=c++11 -fno-exceptions -O0 %s -S -emit-llvm -o - | %opt - %OPloadEnzyme %enzyme -S
int main() { return 3; }
"""


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "Integration"
    for sub in ("ReverseMode", "ForwardMode"):
        (root / sub).mkdir(parents=True)
    (root / "test_utils.h").write_text(UTILS)
    files = {"ReverseMode/good.c": GOOD, "ReverseMode/wrong.c": WRONG,
             "ReverseMode/mpi_reduce.c": GOOD, "ReverseMode/vecmax.c": OLD_ONLY,
             "ReverseMode/cout.cpp": COMPILE_ONLY, "ForwardMode/err_empty.c": GOOD,
             "ReverseMode/CMakeLists.txt": ""}
    for rel, text in files.items():
        (root / rel).write_text(text)
    return root


def test_selection(tmp_path: Path) -> None:
    selected, skipped = S.discover(_tree(tmp_path))
    assert [t.file for t in selected] == ["ReverseMode/cout.cpp", "ReverseMode/good.c",
                                          "ReverseMode/wrong.c"]
    reasons = dict(skipped)
    assert reasons["ReverseMode/mpi_reduce.c"].startswith("MPI")
    assert reasons["ForwardMode/err_empty.c"].startswith("diagnostic only")
    assert reasons["ReverseMode/vecmax.c"] == "no RUN line applies to LLVM 22"
    cout = selected[0]
    assert cout.cxx and cout.compile_only and not cout.plugin


def test_flags_from_run_lines() -> None:
    assert S.clang_flags(GOOD, "-O0") == ["-std=c11"]
    assert S.clang_flags(GOOD, "-O2") == ["-std=c11", "-ffast-math"]
    line = ("// RUN: if [ %llvmver -ge 12 ]; then %clang -std=c11 -O2 %s -S -emit-llvm -o - "
            "%loadClangEnzyme -mllvm -enzyme-inline=1 -Xclang -new-struct-path-tbaa | %lli - ; fi")
    assert S.clang_flags(line, "-O2") == ["-std=c11", "-Xclang", "-new-struct-path-tbaa"]
    assert S._run_lines("// RUN: if [ %llvmver -ne 14 ] && [ %llvmver -ne 15 ]; then "
                        "%clang -O1 %s ; fi\n") == ["%clang -O1 %s"]


def test_every_exclusion_has_a_reason() -> None:
    assert all(pattern and reason for pattern, reason in S.EXCLUDED)


def test_unset_environment_says_how_to_get_the_tests() -> None:
    env = {k: v for k, v in os.environ.items() if k != S.ENV_VAR}
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "enzyme_suite.py")],
                         capture_output=True, text=True, env=env, timeout=60, check=False)
    assert res.returncode == 2
    assert S.ENV_VAR in res.stderr and "git clone" in res.stderr


@pytest.mark.clang
def test_end_to_end(tmp_path: Path) -> None:
    if shutil.which("clang-22") is None or shutil.which("clang++-22") is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    out = tmp_path / "results.json"
    env = dict(os.environ, **{S.ENV_VAR: str(_tree(tmp_path))})
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "enzyme_suite.py"),
                          "--json", str(out)], capture_output=True, text=True, env=env,
                         timeout=600, check=False)
    assert res.returncode == 1, res.stdout + res.stderr  # wrong.c fails
    report = json.loads(out.read_text())
    got = {(r["file"], r["opt"]): r for r in report["results"]}
    assert report["runs"] == 6 and report["passed"] == 4
    assert got[("ReverseMode/good.c", "-O2")]["passed"]
    bad = got[("ReverseMode/wrong.c", "-O0")]
    assert bad["stage"] == "run" and "Assertion Failed" in bad["message"]
    cout = got[("ReverseMode/cout.cpp", "-O0")]  # never executed by its RUN lines
    assert cout["passed"] and cout["message"].startswith("compile-only")
    assert "total: 4 of 6 runs passed" in res.stdout
