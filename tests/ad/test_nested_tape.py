"""Tapes of nested loops: where the arrays are allocated (golden structure of `@diffe_f`) and
numeric gradients of nests whose inner trip counts are invariant in the outer loop, depend on
it (triangular), or sit under an outer loop of unknown trip count."""

from __future__ import annotations

import math

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.ad.driver import gradient_module
from enzyme_py.backend import compile_ir
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse
from enzyme_py.ir.module import Block, Function
from tests.ad.test_reverse_golden import TRIANGULAR
from tests.finite_diff import fd_deriv, fd_grad

# sum_i sum_j (x[i, j] - a[j])^2 through a scratch row `t` rewritten on every outer iteration
# (ADBench GMM's shape). `{outer_test}` is the outer loop's exit test.
_SCRATCH = """
define double @f(ptr %a, ptr %x, ptr %t, i64 %n, i64 %d, double %lim) {{
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %olatch ]
  %s = phi double [ 0.0, %entry ], [ %s.row, %olatch ]
  {outer_test}
  br i1 %go, label %w.pre, label %exit
w.pre:
  %row = mul i64 %i, %d
  br label %w
w:
  %j = phi i64 [ 0, %w.pre ], [ %j.next, %w ]
  %ij = add i64 %row, %j
  %px = getelementptr double, ptr %x, i64 %ij
  %xv = load double, ptr %px
  %pa = getelementptr double, ptr %a, i64 %j
  %av = load double, ptr %pa
  %u = fsub double %xv, %av
  %pt = getelementptr double, ptr %t, i64 %j
  store double %u, ptr %pt
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %d
  br i1 %cj, label %w, label %r.pre
r.pre:
  br label %r
r:
  %k = phi i64 [ 0, %r.pre ], [ %k.next, %r ]
  %s2 = phi double [ %s, %r.pre ], [ %s3, %r ]
  %pt2 = getelementptr double, ptr %t, i64 %k
  %tv = load double, ptr %pt2
  %sq = fmul double %tv, %tv
  %s3 = fadd double %s2, %sq
  %k.next = add nsw i64 %k, 1
  %ck = icmp slt i64 %k.next, %d
  br i1 %ck, label %r, label %olatch
olatch:
  %s.row = phi double [ %s3, %r ]
  %i.next = add nsw i64 %i, 1
  br label %outer
exit:
  ret double %s
}}
"""
SCRATCH = _SCRATCH.format(outer_test="%go = icmp slt i64 %i, %n")
SCRATCH_WHILE = _SCRATCH.format(outer_test="%go = fcmp olt double %s, %lim")
ACTS = ["dup", "dup", "dup", "const", "const", "const"]


def _gradient(ir: str, opt: int = 0) -> str:
    out, grad = gradient_module(parse(ir), "f", ACTS, True, opt_level=opt)
    return str(out)


def _diffe(text: str) -> str:
    start = text.rindex("define", 0, text.index("@diffe_f("))
    return text[start:text.index("\n}\n", start) + 3]


def _calls_in_loops(fn: Function, callee: str) -> tuple[int, int]:
    """(calls of `callee` in `fn`, how many of them lie on a cycle of the CFG). The reverse
    sweep never returns to the forward one, so a forward block on a cycle is in a loop.
    "malloc" counts the tape's own allocations too (`enzyme_py.tape_alloc`, before -O2
    inlines it)."""
    names = {callee, "enzyme_py.tape_alloc"} if callee == "malloc" else {callee}
    calls = [i for i in fn.instructions() if isinstance(i, I.Call) and i.callee_name in names]
    return len(calls), sum(1 for c in calls if c.parent is not None and _on_cycle(c.parent))


def _on_cycle(block: Block) -> bool:
    seen: set[int] = set()
    stack = list(block.successors())
    while stack:
        b = stack.pop()
        if b is block:
            return True
        if id(b) not in seen:
            seen.add(id(b))
            stack.extend(b.successors())
    return False


def _diffe_fn(text: str) -> Function:
    return parse(text).get_function("diffe_f")


def test_invariant_inner_tape_is_allocated_once_before_the_outer_loop() -> None:
    """(its structure: tests/filecheck/reverse/tape_nested_invariant.ll)"""
    assert _calls_in_loops(_diffe_fn(_gradient(SCRATCH, opt=2)), "malloc") == (1, 0)


def test_unknown_outer_trip_grows_rows_of_the_inner_nest() -> None:
    """(its structure: tests/filecheck/reverse/tape_unknown_outer_trip.ll)"""
    diffe = _diffe_fn(_gradient(SCRATCH_WHILE, opt=2))
    assert _calls_in_loops(diffe, "malloc")[1] == 0  # nothing is allocated in a loop:
    grows, in_loops = _calls_in_loops(diffe, "realloc")  # the arrays start empty and grow
    assert grows >= 1 and in_loops == grows  # at the top of the outer loop


# the triangular nest of the reverse-mode golden tests


def test_inner_trip_count_depending_on_the_outer_loop_takes_a_stream_segment_per_entry() -> None:
    """(its structure: tests/filecheck/reverse/tape_triangular_stream.ll)"""
    out, _ = gradient_module(parse(TRIANGULAR), "f", ["dup", "const"], True, opt_level=0)
    assert _calls_in_loops(_diffe_fn(str(out)), "malloc") == (2, 0)


def _compiled(ir: str):
    out, grad = gradient_module(parse(ir), "f", ACTS, True, opt_level=2)
    jm = compile_ir(str(out), opt_level=2)
    return jm.function("f"), jm.function(grad)


def _scratch_gradient(a: np.ndarray, x: np.ndarray, rows: int) -> tuple[np.ndarray, ...]:
    diff = x[:rows] - a
    da = -2 * diff.sum(axis=0)
    dx = np.zeros_like(x)
    dx[:rows] = 2 * diff
    return da, dx


@pytest.mark.parametrize(("n", "d"), [(1, 1), (3, 2), (40, 5)])
def test_scratch_row_gradients(n, d) -> None:
    f, df = _compiled(SCRATCH)
    rng = np.random.default_rng(n + d)
    a, x, t = rng.standard_normal(d), rng.standard_normal((n, d)), np.zeros(d)
    da, dx, dt = np.zeros(d), np.zeros((n, d)), np.zeros(d)
    df(a, da, x, dx, t, dt, n, d, 0.0, 1.0)
    want_da, want_dx = _scratch_gradient(a, x, n)
    np.testing.assert_allclose(da, want_da, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("lim", [0.5, 30.0, 300.0])
def test_unknown_outer_trip_count_gradients(lim) -> None:
    """The outer loop runs until the sum passes `lim` (up to ~150 rows: the rows grow)."""
    f, df = _compiled(SCRATCH_WHILE)
    rng = np.random.default_rng(7)
    d = 3
    a, x, t = rng.standard_normal(d), rng.standard_normal((400, d)), np.zeros(d)
    sums = np.cumsum(((x - a) ** 2).sum(axis=1))
    rows = int(np.searchsorted(sums, lim, side="left")) + 1
    da, dx, dt = np.zeros(d), np.zeros_like(x), np.zeros(d)
    value = f(a, x, t, 0, d, lim)
    assert value == pytest.approx(sums[rows - 1])
    df(a, da, x, dx, t, dt, 0, d, lim, 1.0)
    want_da, want_dx = _scratch_gradient(a, x, rows)
    np.testing.assert_allclose(da, want_da, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


# --- the same shapes through the Python front end (preoptimized: rotated, unrolled) ------------


def scratch_rows(a, x):
    n, d = x.shape
    t = np.empty(d)
    s = 0.0
    for i in range(n):
        for j in range(d):
            t[j] = x[i, j] - a[j]
        for j in range(d):
            s += t[j] * t[j]
    return s


def triangular_rows(x):
    n = x.shape[0]
    t = np.empty(n)
    s = 0.0
    for i in range(n):
        for j in range(i + 1):
            t[j] = x[j] * x[i]
        for j in range(i + 1):
            s += np.sin(t[j])
    return s


def three_deep(a, x):
    n, d = x.shape
    t = np.empty((d, d))
    s = 0.0
    for i in range(n):
        for j in range(d):
            for k in range(d):
                t[j, k] = x[i, j] * a[k]
        for j in range(d):
            for k in range(j, d):
                s += t[j, k] * t[j, k] * x[i, k]
    return s


def while_rows(a, x):
    n, d = x.shape
    t = np.empty(d)
    s = 0.0
    i = 0
    while s < 40.0:
        for j in range(d):
            t[j] = x[i, j] - a[j]
        for j in range(d):
            s += t[j] * t[j]
        i += 1
    return s


def _fd(f, args: tuple, argnum: int) -> np.ndarray:
    """Central differences of f(*args) with respect to args[argnum]."""
    return fd_grad(lambda a: f(*args[:argnum], a, *args[argnum + 1:]), args[argnum])


@pytest.mark.parametrize(("n", "d"), [(1, 1), (5, 2), (37, 11)])
def test_python_scratch_rows(n, d) -> None:
    rng = np.random.default_rng(n * d)
    a, x = rng.standard_normal(d), rng.standard_normal((n, d))
    da, dx = ez.grad(scratch_rows, argnums=(0, 1))(a, x)
    want_da, want_dx = _scratch_gradient(a, x, n)
    np.testing.assert_allclose(da, want_da, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


def test_python_scratch_rows_allocates_outside_the_outer_loop() -> None:
    a, x = np.zeros(2), np.zeros((3, 2))
    text = ez.show(scratch_rows, a, x, stage="gradient", argnums=(0, 1), preoptimize=True)
    # the scratch row and its shadow are heap blocks made once; no allocation in a loop
    assert _calls_in_loops(parse(text).get_function("diffe_scratch_rows"), "malloc") == (2, 0)


@pytest.mark.parametrize("n", [1, 2, 9])
def test_python_triangular_rows(n) -> None:
    x = np.random.default_rng(n).uniform(0.5, 1.5, n)
    got = ez.grad(triangular_rows)(x)
    np.testing.assert_allclose(got, _fd(ez.jit(triangular_rows), (x,), 0), rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize(("n", "d"), [(1, 1), (4, 3), (6, 9)])
def test_python_three_deep(n, d) -> None:
    rng = np.random.default_rng(n + 10 * d)
    a, x = rng.standard_normal(d), rng.standard_normal((n, d))
    da, dx = ez.grad(three_deep, argnums=(0, 1))(a, x)
    f = ez.jit(three_deep)
    np.testing.assert_allclose(da, _fd(f, (a, x), 0), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(dx, _fd(f, (a, x), 1), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("d", [1, 3, 10])
def test_python_while_rows(d) -> None:
    rng = np.random.default_rng(d)
    a, x = rng.standard_normal(d), rng.standard_normal((200, d))
    sums = np.cumsum(((x - a) ** 2).sum(axis=1))
    rows = int(np.searchsorted(sums, 40.0, side="left")) + 1
    assert rows < 200
    da, dx = ez.grad(while_rows, argnums=(0, 1))(a, x)
    want_da, want_dx = _scratch_gradient(a, x, rows)
    np.testing.assert_allclose(da, want_da, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


HALVING = """
declare double @llvm.sin.f64(double)

define double @f(double %x, double %c) {
entry:
  br label %head
head:
  %y = phi double [ %x, %entry ], [ %y.next, %head ]
  %s = call double @llvm.sin.f64(double %y)
  %sc = fmul double %s, %c
  %half = fmul double %y, 0.5
  %y.next = fadd double %half, %sc
  %big = fcmp ogt double %y.next, 1.0
  br i1 %big, label %head, label %exit
exit:
  ret double %y.next
}
"""



@pytest.mark.parametrize("x", [3.0, 1e5, 1e7])
def test_header_phi_gradient_past_the_first_capacity(x) -> None:
    """1e5 and 1e7 take about 17 and 24 iterations: the arrays grow past 16 elements."""
    out, grad = gradient_module(parse(HALVING), "f", ["out", "out"], True, opt_level=2)
    jm = compile_ir(str(out), opt_level=2)
    f, df = jm.function("f"), jm.function(grad)
    got = df(x, 0.1, 1.0)
    want_dx = fd_deriv(lambda t: f(t, 0.1), x, h=1e-3)
    want_dc = fd_deriv(lambda c: f(x, c), 0.1, h=1e-7)
    np.testing.assert_allclose(got, [want_dx, want_dc], rtol=1e-4, atol=1e-12)


def _while_continue(x, w, n, s):
    """-O2 makes this while loop two nested loops whose inner one exits both: the tape of the
    inner loop's trip counts grows with the outer loop and is first needed on the edge that
    enters both reversed loops at once."""
    cnt = 0
    k = 1
    while k < n:
        i = k
        k += 1
        if 0.25 + cnt * 0.05 > float(i) * math.pi:  # never true: the inner loop runs on
            cnt += 1
        else:
            s += math.sin(math.pi * x[i - 1])
            continue
    t = np.empty(n)
    for i in range(n):
        t[i] = math.cos(w[i] - math.pi)
    return s + t[n - 1]


def test_array_made_on_an_edge_entering_two_reversed_loops_is_stored_before_use() -> None:
    # (the grown array's reverse pointer was stored after the inner counter read it: a crash)
    x = np.linspace(-0.9, 0.8, 8)
    w = np.linspace(0.1, 0.7, 8)
    gx, gw, gs = ez.grad(_while_continue, argnums=(0, 1, 3))(x, w, 8, 0.3)
    want = np.pi * np.cos(np.pi * x)
    want[7] = 0.0
    np.testing.assert_allclose(gx, want, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gw, [0.0] * 7 + [np.sin(w[7])], rtol=1e-13, atol=1e-15)
    assert gs == 1.0
