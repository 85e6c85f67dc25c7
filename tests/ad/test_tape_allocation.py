"""A gradient whose tape cannot be allocated stops with an error, never writing past it
(`ad/tape_checks.py`): `MemoryError` from Python, a message and abort() from code with no
caller to report to. Before, such a tape's size wrapped around or malloc's null was written
through, and the process crashed (SIGSEGV)."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import enzyme_py as ez

HUGE = 2 ** 60  # iterations: a tape of 2^64 bytes and more, saturated at 2^48 (not allocated)


def recurrence(x, n):
    s = 0.0
    for i in range(n):
        s += math.sin(x[i % 3] * s + 1.0)
    return s


def triangle(x, m, n):
    """The inner loop's tape is a segment of the tape stream (its trip count changes)."""
    s = 0.0
    for j in range(m):
        for i in range(j * n):
            s += math.sin(x[i % 3] * s + 1.0)
    return s


def test_a_tape_too_large_for_memory_is_a_memory_error_naming_the_function():
    g = ez.grad(recurrence)
    x = np.ones(3)
    with pytest.raises(MemoryError, match=r"(?s)tape needs 2\*\*48 bytes or more.*"
                                          r"test_tape_allocation\.py:\d+: def recurrence"):
        g(x, HUGE)
    got = g(x, 10)  # the record was cleared: the same gradient runs again
    h = 1e-6
    fd = [(recurrence(x + h * e, 10) - recurrence(x - h * e, 10)) / (2 * h) for e in np.eye(3)]
    assert np.allclose(got, fd, atol=1e-6)


def test_a_tape_stream_segment_too_large_is_a_memory_error():
    g = ez.grad(triangle)
    x = np.ones(3)
    with pytest.raises(MemoryError, match="tape needs 2\\*\\*48 bytes or more"):
        g(x, 3, HUGE)
    assert np.all(np.isfinite(g(x, 3, 4)))


def checkpointed_steps(x, n, steps):
    """Checkpointed, the inner loop's tape is allocated in the block's derivative."""
    s = 0.0
    for _ in range(steps):
        for i in range(n):
            s += math.sin(x[i % 3] * s + 1.0)
    return s


def recursive_sum(x, n, depth):
    """The innermost call's tape is allocated in the callee's own (not inlined) gradient."""
    if depth == 0:
        s = 0.0
        for i in range(n):
            s += math.sin(x[i % 3] * s + 1.0)
        return s
    return 2.0 * recursive_sum(x, n, depth - 1)


@pytest.mark.parametrize("f, options, extra, hint", [
    (checkpointed_steps, {"checkpoint": True}, 3, "checkpointed already"),
    (checkpointed_steps, {"memory_budget": "64MB"}, 3, "checkpointed already"),
    (recursive_sum, {}, 2, r"checkpoint=True or memory_budget="),
])
def test_a_tape_too_large_in_a_called_derivative_is_a_memory_error(f, options, extra, hint):
    """A function the gradient calls (a checkpoint block's derivative, a recursive callee's
    gradient) whose tape cannot be allocated: `MemoryError`, where the process aborted. Its
    hint suggests checkpointing only where it is off."""
    g = ez.grad(f, **options)
    x = np.ones(3)
    want = g(x, 4, extra)
    with pytest.raises(MemoryError, match=rf"(?s)tape needs 2\*\*48 bytes or more.*{hint}.*"
                                          rf"test_tape_allocation\.py:\d+: def {f.__name__}"):
        g(x, HUGE, extra)
    assert np.array_equal(g(x, 4, extra), want)


LOOP_BODY = """
declare double @llvm.sin.f64(double)

define double @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %v = load double, ptr %x
  %p = fmul double %v, %s
  %q = fadd double %p, 1.0
  %s1 = call double @llvm.sin.f64(double %q)
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s1
}
"""
LOOP = 'target triple = "x86_64-pc-linux-gnu"\n' + LOOP_BODY


def test_without_an_error_record_the_process_reports_and_aborts():
    """C through Enzyme's ABI has no caller to report to: a message on stderr, then abort()
    (as C code does when memory runs out), instead of a segmentation fault."""
    code = textwrap.dedent("""\
        from enzyme_py.ad.driver import gradient_module
        from enzyme_py.backend import compile_ir
        from enzyme_py.ir import parse
        import ctypes, numpy as np
        text = LOOP_TEXT
        out, name = gradient_module(parse(text), "f", ["dup", "const"], True)
        fn = compile_ir(str(out)).function(name)
        x, dx = np.ones(1), np.zeros(1)
        fn(x, dx, 10, 1.0)
        print("small ok", flush=True)
        fn(x, dx, 2 ** 60, 1.0)
        print("not reached", flush=True)
    """).replace("LOOP_TEXT", repr(LOOP_BODY))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert "small ok" in done.stdout and "not reached" not in done.stdout
    assert done.returncode == -6, done.stderr  # SIGABRT, not SIGSEGV (-11)
    assert "the gradient's tape needs more memory than could be allocated" in done.stderr


LOOP_ABI = LOOP + """
@enzyme_dup = external global i32
@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)

define void @g(ptr %x, ptr %dx, i64 %n) {
entry:
  %dup = load i32, ptr @enzyme_dup
  %const = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, i32 %dup, ptr %x, ptr %dx,
                                                 i32 %const, i64 %n)
  ret void
}
"""


def test_large_tape_frames_of_c_programs_ask_for_huge_pages_on_linux():
    """`enzyme-py transform`'s gradients (C programs, whose glibc maps a large tape afresh on
    every call) follow a frame of `HUGE_TAPE_BYTES` or more with madvise(MADV_HUGEPAGE) on
    its whole 2 MiB pages, on Linux only; Python's gradients, which keep their tapes' pages,
    do not. The advice changes no contents: the same gradient as without it."""
    from enzyme_py.ad.driver import enzyme_pipeline, gradient_module, run_pipeline
    from enzyme_py.ad.runtime import HUGE_TAPE_BYTES, huge_pages_function
    from enzyme_py.backend import compile_ir
    from enzyme_py.ir import parse

    c_form = run_pipeline(parse(LOOP_ABI), enzyme_pipeline(["f"]))
    assert "@enzyme_py.huge_pages(" in str(c_form) and "i32 14)" in str(c_form)
    python_form, name = gradient_module(parse(LOOP), "f", ["dup", "const"], True)
    assert "huge_pages" not in str(python_form)
    mac = parse(LOOP_ABI.replace("x86_64-pc-linux-gnu", "arm64-apple-macosx14.0.0"))
    assert huge_pages_function(mac) is None
    assert "huge_pages" not in str(run_pipeline(mac, enzyme_pipeline(["f"])))

    n = 2 * HUGE_TAPE_BYTES // 8  # one double per iteration: a frame of 8 MiB
    advised = compile_ir(str(c_form)).function("g")
    plain = compile_ir(str(python_form)).function(name)
    x, dx, dx_plain = np.array([0.3]), np.zeros(1), np.zeros(1)
    advised(x, dx, n)
    plain(x, dx_plain, n, 1.0)
    assert dx[0] == dx_plain[0] and np.isfinite(dx[0]) and dx[0] != 0.0


def many_snapshots(x, n):
    u = x.copy()
    for _ in ez.checkpointed(range(n), snapshots=1125899906842624):
        for i in range(u.shape[0]):
            u[i] = math.sin(u[i]) + 0.5 * u[i]
    return np.sum(u)


def test_checkpoint_snapshots_that_cannot_be_allocated_are_a_memory_error():
    """A fixed number of snapshots keeps no more states than the loop has steps (2^50
    snapshots of a 10-step loop: 10 states); where the states cannot be allocated (2^50
    steps), the gradient stops with `MemoryError`, not by writing through a null pointer
    (SIGSEGV before) nor by abort() in the checkpointing code (before that)."""
    x = np.linspace(0.1, 0.9, 4)
    u, d = x.copy(), np.ones(4)
    for _ in range(10):
        d *= np.cos(u) + 0.5
        u = np.sin(u) + 0.5 * u
    g = ez.grad(many_snapshots)
    assert np.allclose(g(x, 10), d, rtol=1e-12)
    with pytest.raises(MemoryError, match="tape needs .* bytes"):
        g(x, 2 ** 50)
    assert np.allclose(g(x, 10), d, rtol=1e-12)


def test_a_hessian_whose_gradient_tape_is_too_large_is_a_memory_error():
    """Forward mode over the gradient keeps the gradient's tape checks: `MemoryError`, where
    the process aborted."""
    h = ez.hessian(recurrence)
    x = np.ones(3)
    want = h(x, 4)
    with pytest.raises(MemoryError, match="tape needs 2\\*\\*48 bytes or more"):
        h(x, HUGE)
    assert np.array_equal(h(x, 4), want)
