"""Calls that stay calls (recursion): augmented forward functions with a tape, then reverse.

Each function below is differentiated in reverse mode and checked against its closed-form
derivative or central finite differences of the primal; the structure checks make sure the recursion really goes through
`@augmented_*` / `@diffe_*` (one pair per callee and activity), not through inlining.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from enzyme_py.ad.driver import gradient_module
from enzyme_py.backend import compile_ir
from enzyme_py.ir import parse
from tests.finite_diff import fd_grad

# x <- x^(2^n) by a recursion that writes through its pointer argument.
RECURSIVE_WRITER = """
define void @helper(ptr %p, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %more, label %done
more:
  %v = load double, ptr %p
  %w = fmul double %v, %v
  store double %w, ptr %p
  %m = sub i64 %n, 1
  call void @helper(ptr %p, i64 %m)
  br label %done
done:
  ret void
}

define void @f(ptr %x) {
body:
  call void @helper(ptr %x, i64 3)
  ret void
}
"""

# A read-only recursion whose memory the caller overwrites after the call: the callee's tape
# must hold what it read (its reverse runs after the overwrite).
READ_THEN_OVERWRITTEN = """
define double @g(ptr %p, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %more, label %done
more:
  %v = load double, ptr %p
  %s = call double @llvm.sin.f64(double %v)
  %m = sub i64 %n, 1
  %r = call double @g(ptr %p, i64 %m)
  %t = fadd double %s, %r
  br label %done
done:
  %out = phi double [ %t, %more ], [ 0.0, %entry ]
  ret double %out
}

define double @f(ptr %x) {
body:
  %s = call double @g(ptr %x, i64 2)
  %v = load double, ptr %x
  %w = fmul double %v, 3.0
  store double %w, ptr %x
  %r = fmul double %s, %w
  ret double %r
}
declare double @llvm.sin.f64(double)
"""

# Mutual recursion, each level writing the same cell: x -> sin -> square -> sin -> square.
MUTUAL_WRITERS = """
define void @even(ptr %p, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %more, label %done
more:
  %v = load double, ptr %p
  %w = call double @llvm.sin.f64(double %v)
  store double %w, ptr %p
  %m = sub i64 %n, 1
  call void @odd(ptr %p, i64 %m)
  br label %done
done:
  ret void
}

define void @odd(ptr %p, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %more, label %done
more:
  %v = load double, ptr %p
  %w = fmul double %v, %v
  store double %w, ptr %p
  %m = sub i64 %n, 1
  call void @even(ptr %p, i64 %m)
  br label %done
done:
  ret void
}

define void @f(ptr %x) {
body:
  call void @even(ptr %x, i64 4)
  ret void
}
declare double @llvm.sin.f64(double)
"""

# A recursion over an array that updates it in place and returns an active float, called in a
# loop: each call's tape is kept per iteration.
LOOP_OF_RECURSIONS = """
define double @scan(ptr %a, i64 %i) {
entry:
  %c = icmp slt i64 %i, 0
  br i1 %c, label %done, label %more
more:
  %q = getelementptr double, ptr %a, i64 %i
  %v = load double, ptr %q
  %e = call double @llvm.exp.f64(double %v)
  %h = fmul double %e, 0.5
  store double %h, ptr %q
  %j = sub i64 %i, 1
  %r = call double @scan(ptr %a, i64 %j)
  %t = fmul double %r, %v
  %u = fadd double %t, %h
  br label %done
done:
  %out = phi double [ %u, %more ], [ 1.0, %entry ]
  ret double %out
}

define double @f(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc1, %loop ]
  %last = sub i64 %n, 1
  %s = call double @scan(ptr %x, i64 %last)
  %acc1 = fadd double %acc, %s
  %k1 = add i64 %k, 1
  %again = icmp slt i64 %k1, 3
  br i1 %again, label %loop, label %exit
exit:
  ret double %acc1
}
declare double @llvm.exp.f64(double)
"""

# A recursion that allocates nodes and returns them: the caller reads the nodes, so the
# augmented function hands back each node's shadow; the caller frees them.
HEAP_LIST = """
define ptr @build(ptr %x, i64 %i) {
entry:
  %c = icmp slt i64 %i, 0
  br i1 %c, label %done, label %more
more:
  %node = call ptr @malloc(i64 16)
  %q = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %q
  %sq = fmul double %v, %v
  store double %sq, ptr %node
  %j = sub i64 %i, 1
  %rest = call ptr @build(ptr %x, i64 %j)
  %link = getelementptr i8, ptr %node, i64 8
  store ptr %rest, ptr %link
  br label %done
done:
  %out = phi ptr [ %node, %more ], [ null, %entry ]
  ret ptr %out
}

define double @f(ptr %x, i64 %n) {
entry:
  %last = sub i64 %n, 1
  %head = call ptr @build(ptr %x, i64 %last)
  br label %walk
walk:
  %p = phi ptr [ %head, %entry ], [ %next, %body ]
  %s = phi double [ 0.0, %entry ], [ %s1, %body ]
  %end = icmp eq ptr %p, null
  br i1 %end, label %exit, label %body
body:
  %v = load double, ptr %p
  %sn = call double @llvm.sin.f64(double %v)
  %s1 = fadd double %s, %sn
  %link = getelementptr i8, ptr %p, i64 8
  %next = load ptr, ptr %link
  call void @free(ptr %p)
  br label %walk
exit:
  ret double %s
}
declare ptr @malloc(i64)
declare void @free(ptr)
declare double @llvm.sin.f64(double)
"""


def _gradient(ir: str, acts: list[str], ret: bool, opt_level: int = 2):
    out, name = gradient_module(parse(ir), "f", acts, ret, opt_level=opt_level)
    return str(out), name


def _fd(ir: str, x: np.ndarray, extra: tuple, value, h: float = 1e-6) -> np.ndarray:
    """Central differences of `value(f, x)` with respect to each x[k]."""
    f = compile_ir(ir, opt_level=0).function("f")
    return fd_grad(lambda v: value(f, v, extra), x, h)


@pytest.mark.parametrize("opt_level", [0, 2])
def test_recursive_writer(opt_level) -> None:
    text, name = _gradient(RECURSIVE_WRITER, ["dup"], False, opt_level)
    assert "@augmented_helper(" in text and "@diffe_helper(" in text
    grad = compile_ir(text, opt_level=0).function(name)
    x, dx = np.array([1.1]), np.array([1.0])  # seed: the adjoint of x's final value
    grad(x, dx)
    assert x[0] == pytest.approx(1.1 ** 8, rel=1e-14)
    assert dx[0] == pytest.approx(8 * 1.1 ** 7, rel=1e-13)


def test_callee_memory_overwritten_after_the_call() -> None:
    text, name = _gradient(READ_THEN_OVERWRITTEN, ["dup"], True)
    grad = compile_ir(text).function(name)
    x0 = 0.7
    x, dx = np.array([x0]), np.zeros(1)
    grad(x, dx, 1.0)
    # f = 2 sin(x) * 3x
    assert dx[0] == pytest.approx(6 * math.cos(x0) * x0 + 6 * math.sin(x0), rel=1e-13)


def test_mutual_recursion_writing_memory() -> None:
    text, name = _gradient(MUTUAL_WRITERS, ["dup"], False)
    assert "@augmented_odd(" in text  # (@even is inlined into @odd and @f)
    grad = compile_ir(text).function(name)
    x0 = 0.6
    x, dx = np.array([x0]), np.array([1.0])
    grad(x, dx)
    a = math.sin(x0)
    b = a * a
    c = math.sin(b)
    want = 2 * c * math.cos(b) * 2 * a * math.cos(x0)
    assert x[0] == pytest.approx(c * c, rel=1e-14)
    assert dx[0] == pytest.approx(want, rel=1e-13)


def test_recursion_called_in_a_loop_updating_in_place() -> None:
    text, name = _gradient(LOOP_OF_RECURSIONS, ["dup", "const"], True)
    grad = compile_ir(text).function(name)
    x0 = np.array([0.3, -0.2, 0.5, 0.1])
    x, dx = x0.copy(), np.zeros(4)
    grad(x, dx, 4, 1.0)
    want = _fd(LOOP_OF_RECURSIONS, x0, (4,), lambda f, v, e: f(v, *e))
    np.testing.assert_allclose(dx, want, rtol=1e-7, atol=1e-9)


def test_recursion_returning_heap_nodes() -> None:
    text, name = _gradient(HEAP_LIST, ["dup", "const"], True)
    assert "@augmented_build(" in text
    grad = compile_ir(text).function(name)
    x0 = np.array([0.3, -0.2, 0.5, 0.1, 0.9])
    x, dx = x0.copy(), np.zeros(5)
    grad(x, dx, 5, 1.0)
    np.testing.assert_allclose(dx, np.cos(x0 ** 2) * 2 * x0, rtol=1e-13)


def test_one_pair_per_callee_and_activity() -> None:
    text, _ = _gradient(MUTUAL_WRITERS, ["dup"], False, opt_level=0)
    assert text.count("define internal void @augmented_odd(") == 1
    assert text.count("define internal void @diffe_odd(") == 1
    assert "@augmented_odd.1" not in text and "@diffe_odd.1" not in text


# A recursion that accumulates into a global, read back by the caller: the global is shared
# with the callee's derivative (one shadow, cleared once by the outermost gradient).
GLOBAL_ACCUMULATOR = """
@acc = global double 0.0

define void @add_squares(ptr %x, i64 %i) {
entry:
  %c = icmp slt i64 %i, 0
  br i1 %c, label %done, label %more
more:
  %q = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %q
  %sq = fmul double %v, %v
  %a = load double, ptr @acc
  %a1 = fadd double %a, %sq
  store double %a1, ptr @acc
  %j = sub i64 %i, 1
  call void @add_squares(ptr %x, i64 %j)
  br label %done
done:
  ret void
}

define double @f(ptr %x, i64 %n) {
entry:
  store double 0.0, ptr @acc
  %last = sub i64 %n, 1
  call void @add_squares(ptr %x, i64 %last)
  %a = load double, ptr @acc
  %r = call double @llvm.sqrt.f64(double %a)
  ret double %r
}
declare double @llvm.sqrt.f64(double)
"""


def test_recursion_accumulating_into_a_global() -> None:
    text, name = _gradient(GLOBAL_ACCUMULATOR, ["dup", "const"], True)
    grad = compile_ir(text).function(name)
    x0 = np.array([0.3, -0.2, 0.5, 0.1])
    for _ in range(2):  # a second call starts from a cleared shadow
        x, dx = x0.copy(), np.zeros(4)
        grad(x, dx, 4, 1.0)
        np.testing.assert_allclose(dx, x0 / np.sqrt((x0 ** 2).sum()), rtol=1e-13)


# A recursion whose 32-byte aligned local array (written with an aligned vector store) is read
# after the recursive call: the slot outlives its augmented call in a block of the same alignment.
ALIGNED_LOCAL = """
define double @r(ptr %x, i64 %d) {
entry:
  %buf = alloca [4 x double], align 32
  %v = load <4 x double>, ptr %x, align 8
  %s = call <4 x double> @llvm.sin.v4f64(<4 x double> %v)
  store <4 x double> %s, ptr %buf, align 32
  %c = icmp sgt i64 %d, 0
  br i1 %c, label %more, label %done
more:
  %d1 = sub i64 %d, 1
  %inner = call double @r(ptr %x, i64 %d1)
  br label %done
done:
  %acc = phi double [ %inner, %more ], [ 0.0, %entry ]
  %k = and i64 %d, 3
  %p = getelementptr [4 x double], ptr %buf, i64 0, i64 %k
  %w = load double, ptr %p, align 8
  %sq = fmul double %w, %w
  %r = fadd double %acc, %sq
  ret double %r
}

define double @f(ptr %x) {
entry:
  %r = call double @r(ptr %x, i64 3)
  ret double %r
}
declare <4 x double> @llvm.sin.v4f64(<4 x double>)
"""


@pytest.mark.parametrize("opt_level", [0, 2])
def test_recursion_with_an_over_aligned_local(opt_level) -> None:
    text, name = _gradient(ALIGNED_LOCAL, ["dup"], True, opt_level)
    assert "aligned_alloc(i64 32" in text
    grad = compile_ir(text).function(name)
    x0 = np.array([0.3, -0.2, 0.5, 0.1])
    x, dx = x0.copy(), np.zeros(4)
    grad(x, dx, 1.0)
    want = 2 * np.sin(x0) * np.cos(x0)  # level d adds sin(x_d)^2, d = 3, 2, 1, 0
    np.testing.assert_allclose(dx, want, rtol=1e-13)
