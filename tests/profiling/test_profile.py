"""`enzyme_py.profile`: stage times, run times, heap per call site and opcode tables that
follow the code (the tape grows with the trip count; the counted copy computes the same)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.backend import compile_ir
from enzyme_py.cli import main
from enzyme_py.ir import parse
from enzyme_py.profiling.allocations import count_allocations, read_counts, reset_counts
from enzyme_py.stage_times import collecting, stage


def recurrence(x, n):
    s = 0.0
    t = 1.0
    for i in range(n):
        t = math.sin(t * x[i])  # every t is needed by the reverse sweep: a tape of n floats
        s += t
    return s


def test_the_report_names_stages_heap_and_opcodes() -> None:
    x = np.linspace(0.1, 1.0, 500)
    p = ez.profile(recurrence, x, 500, repeat=3)
    names = [s.name for s in p.gradient_stages]
    for expected in ("front end", "AD pipeline", "reverse", "LLVM: code generation and linking"):
        assert expected in names, names
    assert [s.depth for s in p.gradient_stages if s.name == "reverse"] == [1]
    assert p.primal_seconds > 0 and p.gradient_seconds > 0 and p.ratio > 0
    assert p.compile_seconds > sum(s.seconds for s in p.gradient_stages if s.name == "reverse")
    assert p.gradient_ops.get("call @llvm.sin.f64") >= 1  # recomputed or cached t_i: sin
    assert p.gradient_ops.get("call @llvm.cos.f64") >= 1  # and its derivative
    assert p.primal_ops.get("call @llvm.cos.f64") == 0
    text = str(p)
    assert "profile of recurrence()" in text and "gradient/primal" in text
    assert "%tape" in text and "call @llvm.cos.f64" in text


def test_tape_bytes_follow_the_trip_count() -> None:
    def tape(n: int) -> int:
        x = np.linspace(0.1, 1.0, n)
        return ez.profile(recurrence, x, n, repeat=1).heap_bytes(prefix="tape")

    small, large = tape(1000), tape(4000)
    assert small >= 8 * 1000  # at least the n floats t_i
    assert 3.5 < large / small < 4.5
    x = np.linspace(0.1, 1.0, 10)
    assert ez.profile(recurrence, x, 10, repeat=1).heap_bytes(gradient=False) == 0


def test_the_callers_arrays_are_not_written() -> None:
    def scale(x):
        s = 0.0
        for i in range(x.shape[0]):
            x[i] = 2.0 * x[i]
            s += x[i] * x[i]
        return s

    x = np.arange(5.0)
    ez.profile(scale, x, repeat=1)
    np.testing.assert_array_equal(x, np.arange(5.0))


def test_options_are_configs() -> None:
    x = np.linspace(0.1, 1.0, 64)
    p = ez.profile(recurrence, x, 64, repeat=1, fastmath=True)
    assert p.gradient_ops.total > 0
    with pytest.raises(ez.ArgumentValueError):
        ez.profile(recurrence, x, 64, repeat=1, errors="c")


COUNTED = """
declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)

define i64 @f(i64 %n) {
entry:
  %a = call ptr @malloc(i64 %n)
  store i8 7, ptr %a
  %b = call ptr @calloc(i64 %n, i64 8)
  %c = call ptr @realloc(ptr %a, i64 96)
  %v = load i8, ptr %c
  %w = zext i8 %v to i64
  %r = add i64 %w, %n
  call void @free(ptr %b)
  call void @free(ptr %c)
  ret i64 %r
}
"""


def test_counters_leave_the_code_computing_the_same() -> None:
    m = parse(COUNTED)
    sites = count_allocations(m)
    assert [(s.name, s.allocator) for s in sites] == [("a", "malloc"), ("b", "calloc"),
                                                      ("c", "realloc")]
    jm = compile_ir(str(m), opt_level=0)
    plain = compile_ir(COUNTED, opt_level=0)
    reset_counts(jm.address, sites)
    assert jm.function("f")(10) == plain.function("f")(10) == 17
    counts = read_counts(jm.address, sites)
    assert [(c.calls, c.bytes) for c in counts] == [(1, 10), (1, 80), (1, 96)]
    jm.function("f")(3)
    assert [c.bytes for c in read_counts(jm.address, sites)] == [13, 104, 192]


def test_stages_are_free_outside_collecting_and_nest() -> None:
    with stage("nobody listens"):
        pass
    with collecting() as outer:
        with stage("a"), stage("b"):
            pass
        with collecting() as inner, stage("c"):
            pass
    assert [(s.name, s.depth) for s in inner] == [("c", 0)]
    assert [(s.name, s.depth) for s in outer] == [("b", 1), ("a", 0), ("c", 0)]


def test_cli_profile_goes_to_stderr_and_keeps_the_output(tmp_path, capsys) -> None:
    src = tmp_path / "f.ll"
    src.write_text("define double @f(double %x) {\nentry:\n  %y = fmul double %x, %x\n"
                   "  ret double %y\n}\n")
    assert main(["grad", str(src), "-f", "f"]) == 0
    plain = capsys.readouterr()
    assert main(["grad", str(src), "-f", "f", "--profile"]) == 0
    profiled = capsys.readouterr()
    assert profiled.out == plain.out
    assert "stages of enzyme-py grad -f f" in profiled.err and "reverse" in profiled.err
    assert "fmul" in profiled.err


def test_copies_of_a_site_are_reported_together() -> None:
    from enzyme_py.profiling.report import _group

    assert [_group(n) for n in ("tape", "tape.3", "buf.i150.shadow", "new.i527", "buf.1.i",
                                "", "index")] == ["tape", "tape", "buf.shadow", "new", "buf",
                                                  "(unnamed)", "index"]
