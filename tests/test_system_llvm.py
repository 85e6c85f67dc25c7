"""The system's release LLVM library (`backend/system_llvm.py`): where it is there, LLVM's
pipelines and code generator run in it and give what llvmlite's give; where it is missing,
turned off or failing, llvmlite does the work."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.backend import compile_ir, native, pipelines, system_llvm
from enzyme_py.backend.target import _target_host
from enzyme_py.backend.text import _scratch

LIBRARY = system_llvm.library()
needs_library = pytest.mark.xfail(LIBRARY is None, strict=True, raises=AssertionError,
                                  reason="no release libLLVM of llvmlite's major version here")

# A loop nest with a float sum, a libm call, a copy and a gather-like load: everything that
# the vectorizers, unrolling and ordered reductions act on.
LOOPS = textwrap.dedent("""\
    declare double @exp(double)

    define double @f(ptr noalias %a, ptr noalias %b, ptr noalias %idx, i64 %n) {
    entry:
      br label %loop
    loop:
      %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
      %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
      %pa = getelementptr double, ptr %a, i64 %i
      %x = load double, ptr %pa
      %e = call double @exp(double %x)
      %pi = getelementptr i64, ptr %idx, i64 %i
      %j = load i64, ptr %pi
      %pb = getelementptr double, ptr %b, i64 %j
      %y = load double, ptr %pb
      %t = fmul double %e, %y
      %s1 = fadd double %s, %t
      store double %t, ptr %pa
      %i1 = add nsw i64 %i, 1
      %c = icmp slt i64 %i1, %n
      br i1 %c, label %loop, label %exit
    exit:
      ret double %s1
    }

    define void @g(ptr noalias %a, ptr noalias %b, i64 %n) {
    entry:
      br label %loop
    loop:
      %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
      %pa = getelementptr double, ptr %a, i64 %i
      %x = load double, ptr %pa
      %y = fmul double %x, 2.0
      %pb = getelementptr double, ptr %b, i64 %i
      store double %y, ptr %pb
      %i1 = add nsw i64 %i, 1
      %c = icmp slt i64 %i1, %n
      br i1 %c, label %loop, label %exit
    exit:
      ret void
    }
""")


def _host_text(text: str) -> str:
    with _scratch(text) as module:
        _target_host(module)
        return str(module)


def _code(text: str) -> list[str]:
    """The instructions of `text`, attribute group numbers aside."""
    return [re.sub(r"#\d+", "#N", line) for line in text.splitlines() if line.startswith("  ")]


@needs_library
@pytest.mark.parametrize("tuning", [(False, False, False, False), (True, True, True, False),
                                    (True, True, True, True)],
                         ids=["for-ad", "full", "ordered-reductions"])
def test_a_pipeline_gives_llvmlites_code(tuning):
    assert LIBRARY is not None
    text = _host_text(LOOPS)
    with _scratch(text) as module:
        pipelines._run_pipeline(module, 2, *tuning[:3], ordered_reductions=tuning[3])
        expected = str(module)
    got = system_llvm.optimize(text, "default<O2>", *tuning)
    assert got is not None and _code(got) == _code(expected)
    # (@g's loop vectorizes exactly when asked; the C API's tuning alone left it on)
    assert ("vector.body" in got) == tuning[0]


@needs_library
def test_the_optimized_text_keeps_the_modules_header():
    assert LIBRARY is not None
    text = _host_text(LOOPS)
    got = system_llvm.optimize(text, "default<O1>", False, False, False, False)
    assert got is not None
    assert got.split("\n", 2)[:2] == text.split("\n", 2)[:2]


@needs_library
def test_compiled_code_runs_the_same_as_llvmlites(monkeypatch):
    assert LIBRARY is not None
    rng = np.random.default_rng(0)
    n = 37
    idx = rng.integers(0, n, n).astype(np.int64)
    a0, b = rng.standard_normal(n), rng.standard_normal(n)
    results = []
    for off in ("0", "1"):
        monkeypatch.setenv("ENZYME_PY_NO_SYSTEM_LLVM", off)
        a = a0.copy()
        jm = compile_ir(LOOPS)
        got = jm.function("f")(a, b, idx, n)
        results.append((got, a.copy()))
        assert np.allclose(a, np.exp(a0) * b[idx])
        assert jm.object is None  # (an object file is kept only when asked for)
    assert results[0][0] == results[1][0] and np.array_equal(results[0][1], results[1][1])


@needs_library
def test_code_generation_leaves_out_loop_strength_reduction_of_huge_modules():
    assert LIBRARY is not None

    def chain(n: int) -> str:
        body = "\n".join(f"  %v{k + 1} = add i64 %v{k}, {k}" for k in range(n))
        return f"define i64 @f(i64 %v0) {{\nentry:\n{body}\n  ret i64 %v{n}\n}}\n"

    big = native.LSR_LIMIT + 10
    assert compile_ir(chain(big), opt_level=0).function("f")(1) == 1 + big * (big - 1) // 2
    assert LIBRARY.options["disable-lsr"] == "true"
    assert compile_ir(chain(10), opt_level=0).function("f")(1) == 1 + 45
    assert LIBRARY.options["disable-lsr"] == "false"


@needs_library
def test_a_gradient_is_the_same_with_and_without_the_library(monkeypatch):
    assert LIBRARY is not None

    def f(x, w):
        s = 0.0
        for i in range(x.shape[0]):
            s += w[i] * np.exp(x[i]) * x[i]
        return s

    x, w = np.linspace(-1, 1, 19), np.linspace(0, 2, 19)
    grads = []
    for off in ("0", "1"):
        monkeypatch.setenv("ENZYME_PY_NO_SYSTEM_LLVM", off)
        grads.append(ez.grad(f, argnums=(0, 1))(x, w))
    for g, h in zip(*grads, strict=True):
        assert np.array_equal(g, h)
    assert np.allclose(grads[0][0], w * np.exp(x) * (1 + x))


@needs_library
def test_a_failure_warns_once_and_hands_the_work_to_llvmlite(monkeypatch):
    assert LIBRARY is not None
    monkeypatch.setattr(system_llvm, "_loaded", [LIBRARY])
    text = _host_text(LOOPS)
    with pytest.warns(RuntimeWarning, match="system's LLVM library failed .*no-such-pass"):
        assert system_llvm.optimize(text, "no-such-pass", True, True, True, False) is None
    assert system_llvm.library() is None  # (off for the rest of the process)
    assert "vector.body" in pipelines.optimize(text, 2)  # llvmlite does the work


def test_the_environment_turns_the_library_off(monkeypatch):
    monkeypatch.setenv("ENZYME_PY_NO_SYSTEM_LLVM", "1")
    assert system_llvm.library() is None
    assert system_llvm.optimize(_host_text(LOOPS), "default<O2>", True, True, True,
                                False) is None
    assert system_llvm.emit_object(_host_text(LOOPS), 2, False) is None
    assert compile_ir(LOOPS).function("f") is not None


def test_a_process_without_the_library_compiles_in_llvmlite():
    """No candidate library (as on a machine without libllvm22): nothing is loaded, and the
    code is compiled and runs."""
    code = textwrap.dedent("""\
        import numpy as np
        from enzyme_py.backend import compile_ir, system_llvm
        system_llvm._candidates = lambda major: []
        assert system_llvm.library() is None
        jm = compile_ir('define double @g(double %x) {\\n  %y = fmul double %x, 3.0\\n'
                        '  ret double %y\\n}\\n')
        print(jm.function("g")(2.0))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "6.0"
