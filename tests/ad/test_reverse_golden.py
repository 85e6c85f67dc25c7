"""Reverse mode: golden structure of `@diffe_f` (FileCheck) and numeric gradients of hand-written
IR (scalars, branches, loops, while loops, several `out`s, float, vectors, memcpy) against
central finite differences of the primal, both run as native code."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from enzyme_py.ad.driver import gradient_module
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.backend import compile_ir
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse
from tests.finite_diff import fd_grad as _fd

SQUARE = """
define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}
"""

BRANCH = """
define void @g(ptr %x, double %s, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %pos, label %neg
pos:
  %v = load double, ptr %x
  %m = fmul double %v, %s
  br label %join
neg:
  %w = load double, ptr %x
  %m2 = fadd double %w, %s
  br label %join
join:
  %r = phi double [ %m, %pos ], [ %m2, %neg ]
  store double %r, ptr %x
  ret void
}
"""

PRODUCT_LOOP = """
define double @prod(ptr %x, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %p = phi double [ 1.0, %entry ], [ %p.next, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %px
  %p.next = fmul double %p, %v
  %i.next = add nsw i64 %i, 1
  br label %head
exit:
  ret double %p
}
"""


def _grad_text(ir: str, fname: str, acts: list[str], ret: bool, opt: int = 0, **kw) -> str:
    out, grad = gradient_module(parse(ir), fname, acts, ret, opt_level=opt, **kw)
    text = str(out)
    assert f"@{grad}(" in text
    return text


def _function_text(module_text: str, name: str) -> str:
    start = module_text.index(f"@{name}(")
    start = module_text.rindex("define", 0, start)
    return module_text[start:module_text.index("\n}\n", start) + 3]


# --- golden structure, unoptimized ----------------------------------------------------------



def test_loop_unoptimized_structure() -> None:
    text = _grad_text(PRODUCT_LOOP, "prod", ["dup", "const"], True)
    body = _function_text(text, "diffe_prod")
    # every forward block has its reverse block, in reverse order of the forward sweep
    labels = [ln[:-1] for ln in body.splitlines() if ln.endswith(":")]
    fwd = labels[labels.index("alloca") + 1:labels.index(next(x for x in labels
                                                               if x.startswith("rev.")))]
    rev = [x for x in labels if x.startswith("rev.") and ".to." not in x]
    # (after the transform, `tape-checks` split the block of the tape's malloc)
    assert [x for x in fwd if x.endswith(".tape.ok")] == ["entry.tape.ok"]
    assert labels[-1] == "tape.failed"
    fwd = [x for x in fwd if not x.endswith(".tape.ok")]
    assert fwd[0] == "entry" and set(fwd) == {"entry", "head", "body", "exit"}
    assert rev[-1] == "rev.return" and rev[-2] == "rev.entry"
    assert sorted(rev[:-1]) == sorted(f"rev.{b}" for b in fwd)


def test_gradient_name_and_determinism() -> None:
    a = _grad_text(BRANCH, "g", ["dup", "out", "const"], False, name="g_grad")
    b = _grad_text(BRANCH, "g", ["dup", "out", "const"], False, name="g_grad")
    assert a == b  # same input, byte-identical output
    assert "define double @g_grad(ptr %x, ptr %x.shadow, double %s, i64 %n)" in a
    assert "@diffe_g" not in a



def test_caller_module_unchanged() -> None:
    module = parse(SQUARE)
    before = str(module)
    gradient_module(module, "f", ["out"], True, opt_level=2)
    assert str(module) == before and "diffe_f" not in str(module)


# --- golden, optimized -----------------------------------------------------------------------


def test_square_optimized_is_fmul_fadd_only() -> None:
    text = _grad_text(SQUARE, "f", ["out"], True, opt=2)
    fn = parse(text).get_function("diffe_f")
    ops = [i.opcode for i in fn.instructions()]
    assert set(ops) <= {"fmul", "fadd", "ret"} and "fmul" in ops, ops


def test_product_loop_optimized_frees_its_tape() -> None:
    text = _grad_text(PRODUCT_LOOP, "prod", ["dup", "const"], True, opt=2)
    fn = parse(text).get_function("diffe_prod")
    calls = [i.callee_name for i in fn.instructions() if isinstance(i, I.Call)]
    assert calls.count("malloc") == calls.count("free") >= 1, calls


# --- numeric checks ---------------------------------------------------------------------------


def _compile(ir: str, name: str, acts: list[str], ret: bool):
    out, grad = gradient_module(parse(ir), name, acts, ret, opt_level=2)
    jm = compile_ir(str(out), opt_level=2)
    return jm.function(name), jm.function(grad)


def _close(got, want, rtol=1e-6, atol=1e-8) -> None:
    np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float),
                               rtol=rtol, atol=atol)


STRAIGHT = """
declare double @llvm.sin.f64(double)
declare double @llvm.exp.f64(double)

define double @f(double %x, double %y, i32 %k) {
entry:
  %s = call double @llvm.sin.f64(double %x)
  %sy = fmul double %s, %y
  %xy = fmul double %x, %y
  %e = call double @llvm.exp.f64(double %xy)
  %yy = fmul double %y, %y
  %den = fadd double %yy, 1.0
  %q = fdiv double %e, %den
  %kf = sitofp i32 %k to double
  %t = fmul double %q, %kf
  %r = fsub double %sy, %t
  ret double %r
}
"""


@pytest.mark.parametrize("point", [(0.3, -0.7, 2), (1.1, 0.4, -3), (-2.0, 1.5, 0)])
def test_straight_line_two_outs_return_a_struct(point) -> None:
    f, df = _compile(STRAIGHT, "f", ["out", "out", "const"], True)
    x, y, k = point
    got = df(x, y, k, 1.0)
    assert isinstance(got, tuple) and len(got) == 2
    want = _fd(lambda v: f(v[0], v[1], k), np.array([x, y]))
    _close(got, want)
    scaled = df(x, y, k, 2.5)  # the seed scales the gradient
    _close(scaled, 2.5 * np.array(got))


def test_one_out_returns_a_scalar_and_const_args_get_nothing() -> None:
    f, df = _compile(STRAIGHT, "f", ["const", "out", "const"], True)
    got = df(0.3, -0.7, 2, 1.0)
    assert isinstance(got, float)
    _close(got, _fd(lambda v: f(0.3, v[0], 2), np.array([-0.7]))[0])


BRANCHY = """
declare double @llvm.cos.f64(double)

define double @f(double %x, double %y) {
entry:
  %c = fcmp ogt double %x, %y
  br i1 %c, label %big, label %small
big:
  %a = fmul double %x, %x
  %b = fmul double %a, %y
  br label %join
small:
  %cy = call double @llvm.cos.f64(double %y)
  %d = fsub double %cy, %x
  %neg = fcmp olt double %d, 0.0
  br i1 %neg, label %flip, label %join
flip:
  %nd = fneg double %d
  %nd2 = fmul double %nd, %x
  br label %join
join:
  %r = phi double [ %b, %big ], [ %d, %small ], [ %nd2, %flip ]
  %r2 = fmul double %r, %y
  ret double %r2
}
"""


@pytest.mark.parametrize("point", [(2.0, 1.0), (0.2, 1.5), (1.4, 1.5), (-1.0, 0.3)])
def test_branches(point) -> None:
    f, df = _compile(BRANCHY, "f", ["out", "out"], True)
    x = np.array(point)
    _close(df(*point, 1.0), _fd(lambda v: f(*v), x))


def test_branch_with_dup_memory() -> None:
    g, dg = _compile(BRANCH, "g", ["dup", "out", "const"], False)
    for n in (3, -1):
        x, s = 1.7, 0.6
        seed = 1.0

        def objective(v, n=n, seed=seed):
            buf = np.array([v[0]])
            g(buf, v[1], n)
            return seed * buf[0]

        xs = np.array([x])
        dx = np.array([seed])
        ds = dg(xs, dx, s, n)
        assert xs[0] != x  # the gradient also runs the forward sweep
        want = _fd(objective, np.array([x, s]))
        _close([dx[0], ds], want)


@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 40])
def test_loop_with_runtime_trip_count(n) -> None:
    f, df = _compile(PRODUCT_LOOP, "prod", ["dup", "const"], True)
    rng = np.random.default_rng(n)
    x = rng.uniform(0.5, 1.5, size=max(n, 1))
    dx = np.zeros_like(x)
    df(x, dx, n, 1.0)
    want = _fd(lambda v: f(v, n), x)
    _close(dx, want)
    if n < x.size:
        assert np.all(dx[n:] == 0)
    _close(f(x, n), np.prod(x[:n]))


NESTED = """
define double @f(ptr %a, ptr %x, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi double [ 0.0, %entry ], [ %s.out, %outer.latch ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %inner.pre, label %exit
inner.pre:
  br label %inner
inner:
  %j = phi i64 [ 0, %inner.pre ], [ %j.next, %inner ]
  %t = phi double [ 0.0, %inner.pre ], [ %t.next, %inner ]
  %row = mul i64 %i, %n
  %ij = add i64 %row, %j
  %pa = getelementptr double, ptr %a, i64 %ij
  %av = load double, ptr %pa
  %px = getelementptr double, ptr %x, i64 %j
  %xv = load double, ptr %px
  %m = fmul double %av, %xv
  %t.next = fadd double %t, %m
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %n
  br i1 %cj, label %inner, label %outer.latch
outer.latch:
  %tt = fmul double %t.next, %t.next
  %s.out = fadd double %s, %tt
  %i.next = add nsw i64 %i, 1
  br label %outer
exit:
  ret double %s
}
"""


@pytest.mark.parametrize("n", [1, 3, 6])
def test_nested_loops_both_pointers_dup(n) -> None:
    """|A x|^2: gradients w.r.t. the matrix and the vector."""
    f, df = _compile(NESTED, "f", ["dup", "dup", "const"], True)
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n * n)
    x = rng.standard_normal(n)
    da, dx = np.zeros_like(a), np.zeros_like(x)
    df(a, da, x, dx, n, 1.0)
    A = a.reshape(n, n)
    _close(da, 2 * np.outer(A @ x, x).ravel())
    _close(dx, 2 * A.T @ (A @ x))
    _close(dx, _fd(lambda v: f(a, v, n), x))


WHILE = """
declare double @llvm.sin.f64(double)

define double @f(double %x, double %c) {
entry:
  br label %head
head:
  %y = phi double [ %x, %entry ], [ %y.next, %head ]
  %k = phi i64 [ 0, %entry ], [ %k.next, %head ]
  %s = call double @llvm.sin.f64(double %y)
  %sc = fmul double %s, %c
  %half = fmul double %y, 0.5
  %y.next = fadd double %half, %sc
  %k.next = add i64 %k, 1
  %big = fcmp ogt double %y.next, 1.0
  br i1 %big, label %head, label %exit
exit:
  %kf = sitofp i64 %k.next to double
  %r = fmul double %y.next, %kf
  ret double %r
}
"""


@pytest.mark.parametrize("x", [0.5, 3.0, 37.0, 1000.0])
def test_while_loop_with_data_dependent_exit(x) -> None:
    f, df = _compile(WHILE, "f", ["out", "out"], True)
    c = 0.1
    got = df(x, c, 1.0)
    _close(got, _fd(lambda v: f(*v), np.array([x, c]), h=1e-7), rtol=1e-5)


FLOAT = """
declare float @llvm.sqrt.f32(float)

define float @h(float %x, float %y, ptr %w) {
entry:
  %wv = load float, ptr %w
  %xx = fmul float %x, %x
  %yy = fmul float %y, %y
  %ss = fadd float %xx, %yy
  %n = call float @llvm.sqrt.f32(float %ss)
  %m = fmul float %n, %wv
  %d = fdiv float %m, %y
  ret float %d
}
"""


def test_float_gradients_two_outs_and_dup() -> None:
    f, df = _compile(FLOAT, "h", ["out", "out", "dup"], True)
    w = np.array([1.25], dtype=np.float32)
    dw = np.zeros(1, dtype=np.float32)
    gx, gy = df(0.6, 0.8, w, dw, 1.0)
    # analytic, in double: f = sqrt(x^2+y^2) * w / y
    x, y, wv = 0.6, 0.8, 1.25
    r = np.hypot(x, y)
    want = [x / r * wv / y, (y / r) * wv / y - r * wv / y**2, r / y]
    _close([gx, gy, dw[0]], want, rtol=1e-5)
    # central differences of the float primal (coarse step: float precision)
    fd = _fd(lambda v: f(v[0], v[1], w), np.array([x, y]), h=1e-2)
    _close([gx, gy], fd, rtol=2e-3)


VECTOR = """
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)

define double @f(double %a, double %b, double %c, double %d) {
entry:
  %v0 = insertelement <4 x double> poison, double %a, i32 0
  %v1 = insertelement <4 x double> %v0, double %b, i32 1
  %v2 = insertelement <4 x double> %v1, double %c, i32 2
  %v3 = insertelement <4 x double> %v2, double %d, i32 3
  %sq = fmul <4 x double> %v3, %v3
  %mix = shufflevector <4 x double> %sq, <4 x double> %v3, <4 x i32> <i32 3, i32 6, i32 1, i32 4>
  %sum = fadd <4 x double> %mix, %v3
  %e = extractelement <4 x double> %sum, i32 2
  %red = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %sum)
  %r = fmul double %red, %e
  ret double %r
}
"""


@pytest.mark.parametrize("point", [(1.0, 2.0, 3.0, 4.0), (-0.5, 0.25, 1.5, -2.0)])
def test_vector_ir(point) -> None:
    f, df = _compile(VECTOR, "f", ["out"] * 4, True)
    assert f(1.0, 2.0, 3.0, 4.0) == 238.0
    got = df(*point, 1.0)
    assert len(got) == 4
    _close(got, _fd(lambda v: f(*v), np.array(point)))


VECTOR_MEM = """
define void @f(ptr %x, ptr %y) {
entry:
  %v = load <4 x double>, ptr %x, align 8
  %s = shufflevector <4 x double> %v, <4 x double> poison, <4 x i32> <i32 1, i32 0, i32 3, i32 3>
  %p = fmul <4 x double> %v, %s
  store <4 x double> %p, ptr %y, align 8
  ret void
}
"""


def test_vector_loads_and_stores_through_dup_pointers() -> None:
    f, df = _compile(VECTOR_MEM, "f", ["dup", "dup"], False)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    seed = np.array([1.0, -2.0, 0.5, 3.0])
    dx, y, dy = np.zeros(4), np.zeros(4), seed.copy()
    df(x, dx, y, dy)
    _close(y, [2.0, 2.0, 12.0, 16.0])
    assert np.all(dy == 0)  # the overwritten output's shadow is consumed

    def objective(v):
        out = np.zeros(4)
        f(v, out)
        return float(seed @ out)

    _close(dx, _fd(objective, x))


MEMCPY = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define double @f(ptr %x, ptr %y, i64 %n) {
entry:
  %buf = alloca [8 x double], align 8
  %bytes = mul i64 %n, 8
  call void @llvm.memcpy.p0.p0.i64(ptr %buf, ptr %x, i64 %bytes, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %buf, i64 %bytes, i1 false)
  %p0 = getelementptr double, ptr %buf, i64 0
  %p1 = getelementptr double, ptr %buf, i64 1
  %b0 = load double, ptr %p0
  %b1 = load double, ptr %p1
  %m = fmul double %b0, %b1
  store double %m, ptr %p0
  %c0 = load double, ptr %p0
  %r = fmul double %c0, %b1
  ret double %r
}
"""


def test_memcpy_of_active_memory() -> None:
    f, df = _compile(MEMCPY, "f", ["dup", "dup", "const"], True)
    n = 4
    x = np.array([1.5, -2.0, 0.5, 3.0])
    seed_y = np.array([0.3, 0.7, -1.1, 2.0])
    dx, y, dy = np.zeros(n), np.zeros(n), seed_y.copy()
    df(x, dx, y, dy, n, 1.0)
    _close(y, x)

    def objective(v):
        out = np.zeros(n)
        r = f(v, out, n)
        return r + float(seed_y @ out)

    _close(dx, _fd(objective, x))
    assert np.all(dy == 0)


def test_accumulates_into_shadows() -> None:
    """Shadows are added to, never overwritten, for memory the function only reads."""
    f, df = _compile(PRODUCT_LOOP, "prod", ["dup", "const"], True)
    x = np.array([2.0, 3.0, 4.0])
    dx = np.array([1.0, 1.0, 1.0])
    df(x, dx, 3, 1.0)
    _close(dx, [13.0, 9.0, 7.0])


INT_COPY = """
define void @f(ptr %x, ptr %y) {
entry:
  %bits = load i64, ptr %x, align 8
  store i64 %bits, ptr %y, align 8
  %v = bitcast i64 %bits to double
  %w = fmul double %v, %v
  store double %w, ptr %y, align 8
  ret void
}
"""


def test_double_copied_as_integer_keeps_its_derivative() -> None:
    """Regression: a double copied through `load i64`/`store i64` (what instcombine makes of
    `memcpy(y, x, 8)`) lost its derivative silently: the gradient was 0."""
    f, df = _compile(INT_COPY, "f", ["dup", "dup"], False)
    x, dx = np.array([3.0]), np.zeros(1)
    y, dy = np.zeros(1), np.ones(1)
    df(x, dx, y, dy)
    assert y[0] == 9.0
    _close(dx, [6.0])


MEMCPY_C = r"""
#include <string.h>
void cp(double *x, double *y) { memcpy(y, x, sizeof(double)); y[0] = y[0] * y[0]; }
void swp(double *x) {
  double t;
  memcpy(&t, x, 8); memcpy(x, x + 1, 8); memcpy(x + 1, &t, 8);
  x[0] *= 3.0;
}
typedef struct { double a, b; } P;
double sc(P *p) { P q = *p; return q.a * q.b; }
"""


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_small_memcpys_from_clang(clang, tmp_path, opt) -> None:
    src = tmp_path / "m.c"
    src.write_text(MEMCPY_C)
    ll = tmp_path / "m.ll"
    subprocess.run([clang, opt, "-S", "-emit-llvm", str(src), "-o", str(ll)], check=True,
                   timeout=120)
    text = ll.read_text()

    def grad(name, acts, ret):
        out, g = gradient_module(parse(text), name, acts, ret, opt_level=2)
        return compile_ir(str(out), opt_level=0).function(g)

    x, dx, y, dy = np.array([3.0]), np.zeros(1), np.zeros(1), np.ones(1)
    grad("cp", ["dup", "dup"], False)(x, dx, y, dy)
    _close(dx, [6.0])
    p, dp = np.array([3.0, 5.0]), np.array([1.0, 1.0])
    grad("swp", ["dup"], False)(p, dp)  # x0' = 3 x1, x1' = x0
    _close(p, [15.0, 3.0])
    _close(dp, [1.0, 3.0])
    p, dp = np.array([3.0, 5.0]), np.zeros(2)
    grad("sc", ["dup"], True)(p, dp, 1.0)
    _close(dp, [5.0, 3.0])


SWITCH = """
define double @f(double %x, i32 %k) {
entry:
  switch i32 %k, label %d [
    i32 1, label %a
    i32 2, label %a
    i32 3, label %b
  ]
a:
  %ax = fmul double %x, %x
  br label %join
b:
  %bx = fmul double %x, 3.0
  br label %join
d:
  br label %join
join:
  %r = phi double [ %ax, %a ], [ %bx, %b ], [ %x, %d ]
  %r2 = fmul double %r, %x
  ret double %r2
}
"""


@pytest.mark.parametrize("k", [0, 1, 2, 3, 7])
def test_switch_with_two_cases_to_one_block(k) -> None:
    f, df = _compile(SWITCH, "f", ["out", "const"], True)
    _close(df(1.3, k, 1.0), _fd(lambda v: f(v[0], k), np.array([1.3]))[0])


TRIANGULAR = """
define double @f(ptr %x, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %olatch ]
  %s = phi double [ 0.0, %entry ], [ %s2, %olatch ]
  %ci = icmp slt i64 %i, %n
  br i1 %ci, label %ipre, label %exit
ipre:
  br label %inner
inner:
  %j = phi i64 [ 0, %ipre ], [ %j.next, %inner ]
  %p = phi double [ 1.0, %ipre ], [ %p2, %inner ]
  %px = getelementptr double, ptr %x, i64 %j
  %v = load double, ptr %px
  %p2 = fmul double %p, %v
  %j.next = add nsw i64 %j, 1
  %cj = icmp sle i64 %j.next, %i
  br i1 %cj, label %inner, label %olatch
olatch:
  %sq = fmul double %p2, %p2
  %s2 = fadd double %s, %sq
  %i.next = add nsw i64 %i, 1
  br label %outer
exit:
  ret double %s
}
"""


@pytest.mark.parametrize("n", [0, 1, 5])
def test_triangular_nested_loops_with_tape_in_inner_loop(n) -> None:
    """sum_i (prod_{j<=i} x_j)^2: the inner trip count depends on the outer IV."""
    f, df = _compile(TRIANGULAR, "f", ["dup", "const"], True)
    x = np.array([1.1, 0.9, 1.3, 0.7, 1.2])
    dx = np.zeros(5)
    df(x, dx, n, 1.0)
    _close(dx, _fd(lambda v: f(v, n), x))


MIXED = """
define double @f(float %x, double %y) {
entry:
  %xe = fpext float %x to double
  %m = fmul double %xe, %y
  %r = fmul double %m, %y
  ret double %r
}
"""


def test_mixed_float_double_outs() -> None:
    f, df = _compile(MIXED, "f", ["out", "out"], True)
    gx, gy = df(2.0, 3.0, 1.0)
    assert (gx, gy) == (9.0, 12.0)


FLOAT_MEMCPY = """
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define void @f(ptr %x, ptr %y, i64 %n) {
entry:
  %bytes = mul i64 %n, 4
  call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %x, i64 %bytes, i1 false)
  ret void
}
"""


def test_float_memcpy_with_typed_access() -> None:
    ir = FLOAT_MEMCPY.replace("  ret void", "  %v = load float, ptr %y\n"
                              "  %w = fmul float %v, %v\n  store float %w, ptr %y\n  ret void")
    f, df = _compile(ir, "f", ["dup", "dup", "const"], False)
    x = np.array([1.5, 2.0, 3.0], dtype=np.float32)
    dx = np.ones(3, dtype=np.float32)
    y, dy = np.zeros(3, np.float32), np.array([1.0, 2.0, 3.0], dtype=np.float32)
    df(x, dx, y, dy, 3)
    _close(dx, [1 + 2 * 1.5, 1 + 2.0, 1 + 3.0])
    assert np.all(dy == 0)


def test_float_memcpy_without_typed_access_is_refused() -> None:
    """Regression: with no typed access the copy's adjoint assumed doubles, adding float
    shadows as 8-byte doubles (garbage, and an odd tail skipped). Now it is a clear error."""
    with pytest.raises(DifferentiationError) as err:
        _compile(FLOAT_MEMCPY, "f", ["dup", "dup", "const"], False)
    msg = str(err.value)
    assert msg.startswith("in @f, block %entry, instruction `call void @llvm.memcpy")
    assert "cannot tell which floating point type this copy moves" in msg


RECURSIVE_POWER = """
define double @pw(double %x, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %more, label %done
more:
  %m = sub i64 %n, 1
  %r = call double @pw(double %x, i64 %m)
  %y = fmul double %r, %x
  br label %done
done:
  %out = phi double [ %y, %more ], [ 1.0, %entry ]
  ret double %out
}

define double @f(double %x, i64 %n) {
entry:
  %y = call double @pw(double %x, i64 %n)
  ret double %y
}
"""


@pytest.mark.parametrize("n", [0, 1, 5])
def test_recursive_callee_with_active_scalar(n) -> None:
    f, df = _compile(RECURSIVE_POWER, "f", ["out", "const"], True)
    _close(df(1.5, n, 1.0), _fd(lambda v: f(v[0], n), np.array([1.5]))[0])
    _close(df(1.5, n, 1.0), n * 1.5 ** (n - 1) if n else 0.0)
