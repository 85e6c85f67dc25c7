"""Numeric gradients of the reverse sweep's choices of what to keep on the tape (their golden
structure is in tests/filecheck/reverse/): loads of memory no later write changes are re-read,
not cached (`load_reread_after_last_write.ll`); a load an inner loop repeats unchanged is cached
once per outer iteration and fetched once per reversed inner loop (`tape_invariant_load.ll`); a
loop with two exits is reversed through one way in (`loop_two_exits_ways.ll`), where what
it fetches is fetched once (`loop_ways_fetch_once.ll`); the last
iteration of a counted loop and a two-way merge's way in are recomputed (`loop_structure.ll`,
`branch_structure.ll`). Then the same shapes through the Python front end, whose bounds checks
give every loop a second exit: a triangular nest reading a scratch row (ADBench GMM's), a
`break`, and a merge of two branches inside a loop."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.ad.driver import gradient_module
from enzyme_py.backend import compile_ir
from enzyme_py.ir import parse

GOLDEN = Path(__file__).resolve().parents[1] / "filecheck" / "reverse"


def _compiled(name: str, fn: str, acts: list[str]):
    out, grad = gradient_module(parse((GOLDEN / name).read_text()), fn, acts, True, opt_level=2)
    jm = compile_ir(str(out), opt_level=2)
    return jm.function(fn), jm.function(grad)


@pytest.mark.parametrize("fn", ["f", "g"])
@pytest.mark.parametrize("n", [1, 2, 17])
def test_reread_buffer_gradient(fn, n) -> None:
    """sum (3 x_i)^2 through a heap buffer; @g overwrites the buffer after reading it."""
    f, df = _compiled("load_reread_after_last_write.ll", fn, ["dup", "const"])
    x = np.random.default_rng(n).standard_normal(n)
    assert f(x, n) == pytest.approx(9 * np.sum(x * x), rel=1e-12)
    dx = np.zeros(n)
    df(x, dx, n, 1.0)
    np.testing.assert_allclose(dx, 18 * x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("n", "m", "cut"), [(1, 1, 9.0), (3, 5, 9.0), (4, 6, 2), (7, 9, 0)])
def test_fetch_once_in_a_loop_with_two_exits(n, m, cut) -> None:
    """s += x_i * sum(y_j before the first y_j > lim), x_i overwritten by s; the reversed
    inner loop is entered by both exits through one block that fetches x_i once."""
    f, df = _compiled("loop_ways_fetch_once.ll", "f", ["dup", "dup", "const", "const", "const"])
    rng = np.random.default_rng(n + 10 * m)
    x0, y = rng.standard_normal(n), np.abs(rng.standard_normal(m))
    lim = float(cut) if isinstance(cut, float) else 5.0
    if not isinstance(cut, float):  # a break at y[cut]
        y[cut] = lim + 1.0
    kept = np.sum(y[:np.argmax(y > lim)] if np.any(y > lim) else y)
    assert f(x0.copy(), y, n, m, lim) == pytest.approx(kept * np.sum(x0), rel=1e-12)
    x, dx, dy = x0.copy(), np.zeros(n), np.zeros(m)
    df(x, dx, y, dy, n, m, lim, 1.0)
    np.testing.assert_allclose(dx, np.full(n, kept), rtol=1e-12, atol=1e-12)
    want_dy = np.zeros(m)
    want_dy[:len(y[:np.argmax(y > lim)]) if np.any(y > lim) else m] = np.sum(x0)
    np.testing.assert_allclose(dy, want_dy, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("n", "a", "b", "c"), [(-1, 1, 1, 0), (0, 1, 1, 0), (5, 1, 1, 0),
                                              (4, 0, 1, 2), (3, 2, 1, 1)])
def test_kept_chain_gradient(n, a, b, c) -> None:
    """sum_i x[i s]^2 with the stride s = (((a b + c) b + c) ...) computed after an early
    exit (n < 0 returns 0) and kept in a slot for the reverse sweep."""
    f, df = _compiled("long_cheap_chain_kept.ll", "f", ["dup", "const", "const", "const",
                                                         "const"])
    s = a
    for _ in range(5):
        s = s * b + c
    count = max(n, 0) if n != 0 else 1  # (the loop runs once for n = 0: it tests at its end)
    x = np.random.default_rng(n + 7).standard_normal(max(count * max(s, 1), 1))
    picked = [i * s for i in range(count)] if n >= 0 else []
    want = float(sum(x[k] ** 2 for k in picked))
    assert f(x, n, a, b, c) == pytest.approx(want, rel=1e-12, abs=1e-12)
    dx = np.zeros_like(x)
    df(x, dx, n, a, b, c, 1.0)
    want_dx = np.zeros_like(x)
    for k in picked:
        want_dx[k] += 2 * x[k]
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("n", "m"), [(0, 1), (1, 1), (3, 4), (20, 7)])
def test_invariant_load_gradient(n, m) -> None:
    """sum_i sum_j x_i^2 y_j, with x_i^2 kept in t[0] (rewritten on every outer iteration)."""
    f, df = _compiled("tape_invariant_load.ll", "f", ["dup", "dup", "dup", "const", "const"])
    rng = np.random.default_rng(10 * n + m)
    x, y, t = rng.standard_normal(max(n, 1)), rng.standard_normal(m), np.zeros(1)
    want = float(np.sum(x[:n] ** 2) * np.sum(y))
    assert f(x, y, t, n, m) == pytest.approx(want, rel=1e-12, abs=1e-12)
    dx, dy, dt = np.zeros_like(x), np.zeros_like(y), np.zeros(1)
    df(x, dx, y, dy, t, dt, n, m, 1.0)
    want_dx = np.zeros_like(x)
    want_dx[:n] = 2 * x[:n] * np.sum(y)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dy, np.full(m, np.sum(x[:n] ** 2)), rtol=1e-12, atol=1e-12)
    assert dt[0] == 0.0  # t is written before it is read: nothing flows to its old value


@pytest.mark.parametrize("lim", [-10.0, 0.5, 10.0])
def test_two_exit_loop_gradient(lim) -> None:
    """sum x_i^2 over the x_i before the first one above `lim` (a `break`)."""
    f, df = _compiled("loop_two_exits_ways.ll", "f", ["dup", "const", "const"])
    x = np.random.default_rng(3).standard_normal(12)
    stop = next((i for i, v in enumerate(x) if v > lim), len(x))
    assert f(x, len(x), lim) == pytest.approx(float(np.sum(x[:stop] ** 2)), rel=1e-12)
    dx = np.zeros_like(x)
    df(x, dx, len(x), lim, 1.0)
    want = np.zeros_like(x)
    want[:stop] = 2 * x[:stop]
    np.testing.assert_allclose(dx, want, rtol=1e-12, atol=1e-12)


# --- through the Python front end ----------------------------------------------------------------


def triangular_scratch(q, a, x):
    """GMM's Q (x - a) with Q lower triangular, diagonal exp(q[:d]), the rest packed in q[d:]."""
    n, d = x.shape
    xc = np.empty(d)
    qx = np.empty(d)
    s = 0.0
    for r in range(n):
        for i in range(d):
            xc[i] = x[r, i] - a[i]
        for i in range(d):
            qx[i] = math.exp(q[i]) * xc[i]
        li = d
        for i in range(d):
            for j in range(i + 1, d):
                qx[j] += q[li] * xc[i]
                li += 1
        for i in range(d):
            s += qx[i] * qx[i]
    return s


def _triangular_reference(q, a, x):
    n, d = x.shape
    lower = np.zeros((d, d))
    lower[np.diag_indices(d)] = np.exp(q[:d])
    li = d
    for i in range(d):
        for j in range(i + 1, d):
            lower[j, i] = q[li]
            li += 1
    xc = x - a
    qx = xc @ lower.T
    g_lower = 2 * qx.T @ xc
    gq = np.empty_like(q)
    gq[:d] = np.diag(g_lower) * np.exp(q[:d])
    li = d
    for i in range(d):
        for j in range(i + 1, d):
            gq[li] = g_lower[j, i]
            li += 1
    ga = -2 * (qx @ lower).sum(axis=0)
    return gq, ga


@pytest.mark.parametrize(("n", "d"), [(1, 1), (3, 2), (9, 5)])
def test_triangular_scratch_gradient(n, d) -> None:
    rng = np.random.default_rng(n * d)
    q = 0.3 * rng.standard_normal(d * (d + 1) // 2)
    a, x = rng.standard_normal(d), rng.standard_normal((n, d))
    gq, ga = ez.grad(triangular_scratch, argnums=(0, 1))(q, a, x)
    want_q, want_a = _triangular_reference(q, a, x)
    np.testing.assert_allclose(gq, want_q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ga, want_a, rtol=1e-12, atol=1e-12)


def until_above(x, lim):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > lim:
            break
        s += x[i] * x[i] * x[i]
    return s


@pytest.mark.parametrize("lim", [-10.0, 0.2, 10.0])
def test_break_gradient(lim) -> None:
    x = np.random.default_rng(5).standard_normal(15)
    stop = next((i for i, v in enumerate(x) if v > lim), len(x))
    want = np.zeros_like(x)
    want[:stop] = 3 * x[:stop] ** 2
    np.testing.assert_allclose(ez.grad(until_above)(x, lim), want, rtol=1e-12, atol=1e-12)


def branch_in_loop(x, c):
    s = 0.0
    for i in range(x.shape[0]):
        if i % 3 == 0:
            v = math.sin(x[i]) * c
        else:
            v = x[i] * x[i]
        s += v * x[(i + 1) % x.shape[0]]
    return s


def test_merge_in_loop_gradient() -> None:
    x = np.random.default_rng(8).standard_normal(10)
    c = 1.7
    n = len(x)
    gx = np.zeros(n)
    for i in range(n):
        nxt = x[(i + 1) % n]
        if i % 3 == 0:
            gx[i] += math.cos(x[i]) * c * nxt
            gx[(i + 1) % n] += math.sin(x[i]) * c
        else:
            gx[i] += 2 * x[i] * nxt
            gx[(i + 1) % n] += x[i] * x[i]
    np.testing.assert_allclose(ez.grad(branch_in_loop)(x, c), gx, rtol=1e-12, atol=1e-12)


# t[i] is loaded before the inner loop (in its preheader, whose reverse also reaches t's
# shadow) and in it: the summed adjoints are added to the shadow first in that reverse block
_PREHEADER_AND_INNER = """
define double @f(ptr noalias %t, ptr noalias %y, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %olatch ]
  %s = phi double [ 0.0, %entry ], [ %s.in, %olatch ]
  %go = icmp slt i64 %i, %n
  br i1 %go, label %pre, label %exit
pre:
  %p = getelementptr double, ptr %t, i64 %i
  %a = load double, ptr %p
  %aa = fmul double %a, %a
  %s1 = fadd double %s, %aa
  br label %inner
inner:
  %j = phi i64 [ 0, %pre ], [ %j.next, %inner ]
  %s2 = phi double [ %s1, %pre ], [ %s3, %inner ]
  %v = load double, ptr %p
  %py = getelementptr double, ptr %y, i64 %j
  %yv = load double, ptr %py
  %q = fmul double %v, %yv
  %s3 = fadd double %s2, %q
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %m
  br i1 %cj, label %inner, label %olatch
olatch:
  %s.in = phi double [ %s3, %inner ]
  %i.next = add nsw i64 %i, 1
  br label %outer
exit:
  ret double %s
}
"""


@pytest.mark.parametrize(("n", "m"), [(1, 1), (4, 3)])
def test_summed_adjoints_meet_the_preheader_reverse(n, m) -> None:
    out, grad = gradient_module(parse(_PREHEADER_AND_INNER), "f", ["dup", "dup", "const", "const"],
                                True, opt_level=2)
    df = compile_ir(str(out), opt_level=2).function(grad)
    rng = np.random.default_rng(n + m)
    t, y = rng.standard_normal(n), rng.standard_normal(m)
    dt, dy = np.zeros(n), np.zeros(m)
    df(t, dt, y, dy, n, m, 1.0)
    np.testing.assert_allclose(dt, np.sum(y) + 2 * t, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dy, np.full(m, np.sum(t)), rtol=1e-12, atol=1e-12)


def diagonal_from_the_middle(x, n, s):
    a = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            a[i, j] = x[j]
    for i in range(n // 2, n):
        a[i, i] = math.tanh(a[2, 1])
        if i == 2:  # (never true from n // 2 > 2: the loop's other exit ends it)
            return s
    return a[3, 1] + a[5, 5]


def test_a_loop_with_an_equality_exit_it_never_reaches_tapes_its_real_trips():
    # (loop fuzz seed 5149: the tape was sized by `i != 2` counted from i = 4, a count that
    # wraps, so the gradient wrote past a 0-byte tape)
    x = np.linspace(-0.5, 0.5, 8)
    for _ in range(5):
        g = ez.grad(diagonal_from_the_middle, argnums=(0, 2))(x, 8, 0.1)
    want = np.zeros(8)
    want[1] = 1.0 + (1.0 - np.tanh(x[1]) ** 2)  # a[3, 1] = x[1], a[5, 5] = tanh(x[1])
    np.testing.assert_allclose(g[0], want, rtol=1e-14)
    assert g[1] == 0.0
