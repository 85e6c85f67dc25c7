"""Forward mode, numerically: jvps of hand-written IR and of clang-22 output (at -O0 and -O2,
vectorized loops included) run as native code and match central differences of the primal
along the same direction; scalars, branches, loops with runtime trip counts, while loops,
memory updated in place, vectors, aggregates, libm calls, float and double."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import compile_c
from tests.finite_diff import fd_dir

from .fwd_util import Compiled, close

STRAIGHT = """
declare double @llvm.sin.f64(double)
declare double @llvm.exp.f64(double)
declare double @erf(double)
declare double @llvm.pow.f64(double, double)

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
  %er = call double @erf(double %x)
  %ay = call double @llvm.fabs.f64(double %y)
  %p = call double @llvm.pow.f64(double %ay, double %x)
  %r0 = fsub double %sy, %t
  %r1 = fadd double %r0, %er
  %r = fadd double %r1, %p
  ret double %r
}
declare double @llvm.fabs.f64(double)
"""


@pytest.mark.parametrize("point", [(0.3, -0.7, 2), (1.1, 0.4, -3), (-2.0, 1.5, 0)])
def test_straight_line_libm(point) -> None:
    c = Compiled(STRAIGHT, "f", ["dup", "dup", "const"])
    x, y, k = point
    for v in ([1.0, 0.0], [0.0, 1.0], [0.6, -1.3]):
        got = c.fwd(x, v[0], y, v[1], k)
        assert got[0] == c.primal(x, y, k)
        close(got[1], fd_dir(lambda p: c.primal(p[0], p[1], k), np.array([x, y]), np.array(v)))


def test_width_one_returns_a_pair_to_python() -> None:
    c = Compiled(STRAIGHT, "f", ["dup", "const", "const"])
    fwd = c.jm.function(c.name)
    value, tangent = fwd(0.3, 1.0, -0.7, 2)
    assert value == c.primal(0.3, -0.7, 2)
    close(tangent, c.fwd(0.3, 1.0, -0.7, 2)[1], rtol=0, atol=0)


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
  %sel = select i1 %c, double %r, double %y
  %r2 = fmul double %sel, %y
  ret double %r2
}
"""


@pytest.mark.parametrize("point", [(2.0, 1.0), (0.2, 1.5), (1.4, 1.5), (-1.0, 0.3)])
def test_branches_phi_select(point) -> None:
    c = Compiled(BRANCHY, "f", ["dup", "dup"])
    v = np.array([0.8, -0.35])
    got = c.fwd(point[0], v[0], point[1], v[1])
    close(got[1], fd_dir(lambda p: c.primal(*p), np.array(point), v))


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


@pytest.mark.parametrize("n", [0, 1, 2, 5, 17, 40])
def test_loop_with_runtime_trip_count(n) -> None:
    c = Compiled(PRODUCT_LOOP, "prod", ["dup", "const"])
    rng = np.random.default_rng(n)
    x = rng.uniform(0.5, 1.5, size=max(n, 1))
    dx = rng.standard_normal(x.size)
    got = c.fwd(x, dx, n)
    close(got[0], np.prod(x[:n]))
    close(got[1], fd_dir(lambda p: c.primal(p, n), x, dx))


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
    c = Compiled(WHILE, "f", ["dup", "dup"])
    v = np.array([1.0, -0.5])
    got = c.fwd(x, v[0], 0.1, v[1])
    close(got[1], fd_dir(lambda p: c.primal(*p), np.array([x, 0.1]), v, h=1e-7), rtol=1e-5)


INPLACE = """
define void @f(ptr %x, ptr %y, double %a, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr double, ptr %x, i64 %i
  %py = getelementptr double, ptr %y, i64 %i
  %xv = load double, ptr %px
  %yv = load double, ptr %py
  %m = fmul double %xv, %yv
  %s = fadd double %m, %a
  store double %s, ptr %px
  %i.next = add nsw i64 %i, 1
  br label %head
exit:
  ret void
}
"""


def test_memory_updated_in_place() -> None:
    c = Compiled(INPLACE, "f", ["dup", "dup", "dup", "const"])
    rng = np.random.default_rng(1)
    n = 9
    x, y, dx, dy = (rng.standard_normal(n) for _ in range(4))
    a, da = 0.4, -1.2
    xs, dxs, dys = x.copy(), dx.copy(), dy.copy()
    c.fwd(xs, dxs, y.copy(), dys, a, da, n)
    close(xs, x * y + a)
    close(dxs, dx * y + x * dy + da)  # the shadow of x now holds the tangent of the new x
    close(dys, dy, rtol=0, atol=0)  # y is only read


VECTOR = """
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
declare <4 x double> @llvm.exp.v4f64(<4 x double>)

define double @f(double %a, double %b, double %c, double %d) {
entry:
  %v0 = insertelement <4 x double> poison, double %a, i32 0
  %v1 = insertelement <4 x double> %v0, double %b, i32 1
  %v2 = insertelement <4 x double> %v1, double %c, i32 2
  %v3 = insertelement <4 x double> %v2, double %d, i32 3
  %sq = fmul <4 x double> %v3, %v3
  %ex = call <4 x double> @llvm.exp.v4f64(<4 x double> %sq)
  %mix = shufflevector <4 x double> %ex, <4 x double> %v3, <4 x i32> <i32 3, i32 6, i32 1, i32 4>
  %sum = fadd <4 x double> %mix, %v3
  %e = extractelement <4 x double> %sum, i32 2
  %red = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %sum)
  %r = fmul double %red, %e
  ret double %r
}
"""


@pytest.mark.parametrize("point", [(0.1, 0.2, 0.3, 0.4), (-0.5, 0.25, 1.5, -1.0)])
def test_vector_ir(point) -> None:
    c = Compiled(VECTOR, "f", ["dup"] * 4)
    v = np.array([0.3, -1.0, 0.7, 0.2])
    args = [z for pair in zip(point, v, strict=True) for z in pair]
    close(c.fwd(*args)[1], fd_dir(lambda p: c.primal(*p), np.array(point), v))


AGGREGATE = """
define { double, double } @pair(double %x, double %y) {
entry:
  %p = fmul double %x, %y
  %q = fdiv double %x, %y
  %a = insertvalue { double, double } poison, double %p, 0
  %b = insertvalue { double, double } %a, double %q, 1
  ret { double, double } %b
}

define double @f(double %x, double %y) {
entry:
  %s = call { double, double } @pair(double %x, double %y)
  %u = extractvalue { double, double } %s, 0
  %w = extractvalue { double, double } %s, 1
  %r = fsub double %u, %w
  ret double %r
}
"""


def test_aggregates_and_an_inlined_callee() -> None:
    c = Compiled(AGGREGATE, "f", ["dup", "dup"])
    p, v = np.array([0.7, 1.9]), np.array([1.0, 0.5])
    close(c.fwd(p[0], v[0], p[1], v[1])[1], fd_dir(lambda q: c.primal(*q), p, v))
    pair = Compiled(AGGREGATE, "pair", ["dup", "dup"])
    got = pair.fwd(p[0], v[0], p[1], v[1])  # { {p, q}, {dp, dq} }
    close(got[:2], [p[0] * p[1], p[0] / p[1]])
    close(got[2:], [v[0] * p[1] + p[0] * v[1], v[0] / p[1] - p[0] * v[1] / p[1] ** 2])


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


def test_float() -> None:
    c = Compiled(FLOAT, "h", ["dup", "dup", "dup"])
    w, dw = np.array([1.25], dtype=np.float32), np.array([0.5], dtype=np.float32)
    got = c.fwd(0.6, 1.0, 0.8, -0.5, w, dw)
    assert got.dtype == np.float32
    x, y, wv = 0.6, 0.8, 1.25
    r = np.hypot(x, y)
    want = (x / r * wv / y) * 1.0 + (wv / r - r * wv / y**2) * -0.5 + r / y * 0.5
    close(got[1], want, rtol=1e-5)


# --- clang output -------------------------------------------------------------------------------

C_KERNELS = r"""
#include <math.h>
double norm_exp(const double *x, const double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += w[i] * exp(-x[i] * x[i]) + x[i] * x[i];
  return sqrt(s);
}
void smooth(double *y, const double *x, double a, int n) {
  for (int i = 1; i < n - 1; i++) y[i] = a * x[i] + (1 - a) * 0.5 * (x[i - 1] + x[i + 1]);
}
float fnorm(const float *x, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += x[i] * x[i] + sinf(x[i]);
  return s;
}
double newton(double a) {
  double x = a > 1.0 ? a : 1.0;
  while (fabs(x * x - a) > 1e-12 * a) x = 0.5 * (x + a / x);
  return x;
}
"""


@pytest.fixture(scope="module", params=["-O0", "-O2"])
def kernels_ll(request, tmp_path_factory) -> str:
    from tests.conftest import find_clang

    clang = find_clang()
    if clang is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    d = tmp_path_factory.mktemp("fwdc")
    src = d / "k.c"
    src.write_text(C_KERNELS)
    return compile_c(clang, src, d / "k.ll", request.param)


@pytest.mark.clang
@pytest.mark.parametrize("n", [1, 3, 8, 37])
def test_clang_vectorized_reduction(kernels_ll, n) -> None:
    c = Compiled(kernels_ll, "norm_exp", ["dup", "dup", "const"])
    rng = np.random.default_rng(n)
    x, w, dx, dw = (rng.uniform(-1, 1, n) for _ in range(4))
    got = c.fwd(x, dx, np.abs(w), dw, n)
    p = np.concatenate([x, np.abs(w)])
    want = fd_dir(lambda q: c.primal(q[:n], q[n:], n), p, np.concatenate([dx, dw]))
    close(got[1], want)


@pytest.mark.clang
def test_clang_stencil_writes_shadow(kernels_ll) -> None:
    c = Compiled(kernels_ll, "smooth", ["dup", "dup", "dup", "const"])
    n = 23
    rng = np.random.default_rng(5)
    x, dx = rng.standard_normal(n), rng.standard_normal(n)
    y, dy = np.zeros(n), np.full(n, 7.0)
    c.fwd(y, dy, x, dx, 0.3, 0.25, n)

    def run(q):
        out = np.zeros(n)
        c.primal(out, q[:n], q[n], n)
        return out

    want = fd_dir(run, np.append(x, 0.3), np.append(dx, 0.25))
    close(dy[1:-1], want[1:-1])
    assert dy[0] == 7.0 and dy[-1] == 7.0  # untouched memory keeps its shadow


@pytest.mark.clang
def test_clang_float(kernels_ll) -> None:
    c = Compiled(kernels_ll, "fnorm", ["dup", "const"])
    x = np.linspace(-1, 1, 21).astype(np.float32)
    dx = np.cos(np.arange(21)).astype(np.float32)
    got = c.fwd(x, dx, 21)
    want = np.sum((2 * x.astype(float) + np.cos(x.astype(float))) * dx)
    close(got[1], want, rtol=1e-5, atol=1e-5)


@pytest.mark.clang
@pytest.mark.parametrize("a", [0.5, 2.0, 90.0])
def test_clang_while_loop(kernels_ll, a) -> None:
    c = Compiled(kernels_ll, "newton", ["dup"])
    close(c.fwd(a, 1.0)[1], 0.5 / np.sqrt(a), rtol=1e-9)
