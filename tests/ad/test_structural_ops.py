"""The structural opcodes (`select`, extract/insertelement, shufflevector, extract/insertvalue)
and masked vector memory (`llvm.masked.load`/`llvm.masked.store`), through the rule table in
both modes: hand-written IR and clang-22 `-O2 -march=x86-64-v3` output (where the loop
vectorizer makes masked accesses), checked against central differences along random
directions (reverse: <grad, v>; forward: the jvp)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from enzyme_py.ad.driver import gradient_module
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.backend import compile_ir
from enzyme_py.ir import parse
from tests.ad.forward.fwd_util import Compiled, close
from tests.conftest import compile_c
from tests.finite_diff import fd_dir


def _reverse(ir: str, fname: str, acts: list[str], ret: bool, opt: int = 2):
    out, name = gradient_module(parse(ir), fname, acts, ret, opt_level=opt)
    jm = compile_ir(str(out), opt_level=2)
    return jm.function(fname), jm.function(name), str(out)


def _scalar_checks(ir: str, n: int, points: list[list[float]], opt: int = 2) -> None:
    """f(x_1..x_n) -> double: the gradient and the jvp along random directions."""
    f, df, _ = _reverse(ir, "f", ["out"] * n, True, opt)
    fwd = Compiled(ir, "f", ["dup"] * n, opt_level=opt)
    rng = np.random.default_rng(n)
    for x in map(np.array, points):
        g = np.atleast_1d(np.asarray(df(*x, 1.0)))
        for _ in range(2):
            v = rng.standard_normal(n)
            want = fd_dir(lambda p: f(*p), x, v)
            close(g @ v, want, rtol=1e-6, atol=1e-8)
            jvp = fwd.fwd(*[z for pair in zip(x, v, strict=True) for z in pair])[1]
            close(jvp, want, rtol=1e-6, atol=1e-8)


SELECTS = """
define double @f(double %x, double %y) {
entry:
  %c = fcmp olt double %x, %y
  %xx = fmul double %x, %x
  %s = select i1 %c, double %xx, double %y
  %v0 = insertelement <2 x double> poison, double %x, i32 0
  %v1 = insertelement <2 x double> %v0, double %y, i32 1
  %w = fmul <2 x double> %v1, %v1
  %vc = fcmp ogt <2 x double> %v1, zeroinitializer
  %sv = select <2 x i1> %vc, <2 x double> %w, <2 x double> %v1
  %e0 = extractelement <2 x double> %sv, i32 0
  %e1 = extractelement <2 x double> %sv, i32 1
  %a0 = insertvalue { double, double } poison, double %x, 0
  %a1 = insertvalue { double, double } %a0, double %xx, 1
  %b0 = insertvalue { double, double } poison, double %y, 0
  %b1 = insertvalue { double, double } %b0, double %s, 1
  %ss = select i1 %c, { double, double } %a1, { double, double } %b1
  %m0 = extractvalue { double, double } %ss, 0
  %m1 = extractvalue { double, double } %ss, 1
  %t0 = fmul double %e0, %e1
  %t1 = fmul double %m0, %m1
  %t2 = fadd double %t0, %t1
  %r = fadd double %t2, %s
  ret double %r
}
"""


@pytest.mark.parametrize("opt", [0, 2])
def test_select_scalar_vector_condition_and_aggregate(opt) -> None:
    _scalar_checks(SELECTS, 2, [[0.3, 1.2], [1.5, -0.4], [-0.7, -0.2], [-1.1, 0.9]], opt)


VECTORS = """
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)

define double @f(double %a, double %b, double %c, double %d) {
entry:
  %v0 = insertelement <4 x double> poison, double %a, i32 0
  %v1 = insertelement <4 x double> %v0, double %b, i32 1
  %v2 = insertelement <4 x double> %v1, double %c, i32 2
  %v3 = insertelement <4 x double> %v2, double %d, i32 3
  %sq = fmul <4 x double> %v3, %v3
  ; a permutation of lanes from both sources (the transpose is one shuffle each)
  %mix = shufflevector <4 x double> %sq, <4 x double> %v3, <4 x i32> <i32 3, i32 6, i32 1, i32 4>
  ; a splat of one lane (the transpose sums the seed's lanes)
  %splat = shufflevector <4 x double> %mix, <4 x double> poison, <4 x i32> <i32 2, i32 2, i32 2, i32 2>
  ; a poison lane whose result is never read, a repeated lane, and a wider result
  %wide = shufflevector <4 x double> %sq, <4 x double> %mix, <6 x i32> <i32 0, i32 poison, i32 7, i32 0, i32 5, i32 3>
  %w0 = extractelement <6 x double> %wide, i32 0
  %w2 = extractelement <6 x double> %wide, i32 2
  %w3 = extractelement <6 x double> %wide, i32 3
  %w4 = extractelement <6 x double> %wide, i32 4
  %w5 = extractelement <6 x double> %wide, i32 5
  ; overwrite a lane: the overwritten value gets no adjoint through this use
  %over = insertelement <4 x double> %mix, double %w4, i32 1
  %sum = fadd <4 x double> %over, %splat
  %red = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> %sum)
  %p0 = fmul double %w0, %w2
  %p1 = fmul double %w3, %w5
  %p2 = fadd double %p0, %p1
  %p3 = fmul double %p2, %red
  ret double %p3
}
"""


@pytest.mark.parametrize("opt", [0, 2])
def test_insert_extract_and_shuffles(opt) -> None:
    _scalar_checks(VECTORS, 4, [[1.0, 2.0, 3.0, 4.0], [-0.5, 0.25, 1.5, -2.0]], opt)


DYNAMIC_INDEX = """
define double @f(double %a, double %b, double %c, i32 %k) {
entry:
  %v0 = insertelement <4 x double> zeroinitializer, double %a, i32 0
  %v1 = insertelement <4 x double> %v0, double %b, i32 %k
  %v2 = fmul <4 x double> %v1, %v1
  %v3 = insertelement <4 x double> %v2, double %c, i32 3
  %e = extractelement <4 x double> %v3, i32 %k
  %f = extractelement <4 x double> %v3, i32 0
  %g = extractelement <4 x double> %v3, i32 3
  %r0 = fmul double %e, %f
  %r = fmul double %r0, %g
  ret double %r
}
"""


@pytest.mark.parametrize("k", [0, 1, 2, 3])
def test_dynamic_lane_index(k) -> None:
    f, df, _ = _reverse(DYNAMIC_INDEX, "f", ["out", "out", "out", "const"], True)
    fwd = Compiled(DYNAMIC_INDEX, "f", ["dup", "dup", "dup", "const"])
    x = np.array([0.7, -1.3, 0.4])
    g = np.asarray(df(*x, k, 1.0))
    v = np.array([0.3, 1.1, -0.6])
    want = fd_dir(lambda p: f(*p, k), x, v)
    close(g @ v, want)
    close(fwd.fwd(x[0], v[0], x[1], v[1], x[2], v[2], k)[1], want)


AGGREGATES = """
%pair = type { double, [2 x <2 x double>] }

define double @f(double %x, double %y, double %z) {
entry:
  %l0 = insertelement <2 x double> poison, double %x, i32 0
  %l1 = insertelement <2 x double> %l0, double %y, i32 1
  %m = fmul <2 x double> %l1, %l1
  %s0 = insertvalue %pair poison, double %z, 0
  %s1 = insertvalue %pair %s0, <2 x double> %l1, 1, 0
  %s2 = insertvalue %pair %s1, <2 x double> %m, 1, 1
  %arr = extractvalue %pair %s2, 1
  %row = extractvalue [2 x <2 x double>] %arr, 1
  %q = fmul <2 x double> %row, %l1
  %s3 = insertvalue %pair %s2, <2 x double> %q, 1, 0
  %s4 = insertvalue %pair %s3, double %x, 0
  %a = extractvalue %pair %s4, 1, 0
  %b = extractvalue %pair %s4, 0
  %c = extractvalue %pair %s2, 0
  %a0 = extractelement <2 x double> %a, i32 0
  %a1 = extractelement <2 x double> %a, i32 1
  %t0 = fmul double %a0, %b
  %t1 = fmul double %a1, %c
  %r = fadd double %t0, %t1
  ret double %r
}
"""


@pytest.mark.parametrize("opt", [0, 2])
def test_nested_aggregates(opt) -> None:
    _scalar_checks(AGGREGATES, 3, [[0.5, -1.5, 2.0], [1.2, 0.3, -0.7]], opt)


def test_reverse_shuffle_transpose_is_one_shuffle() -> None:
    """A permutation's transpose is a shuffle of the seed (no lane-by-lane chain)."""
    ir = """
define double @f(<4 x double> %v) {
entry:
  %r = shufflevector <4 x double> %v, <4 x double> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %s = fmul <4 x double> %r, %v
  %e = extractelement <4 x double> %s, i32 0
  ret double %e
}
"""
    out, name = gradient_module(parse(ir), "f", ["out"], True, opt_level=0)
    text = str(out)
    body = text[text.index(f"@{name}("):]
    assert body.count("shufflevector") == 2, body  # the forward sweep's, and its transpose
    assert re.search(r"shufflevector <4 x double> %r\.d\S*, <4 x double> zeroinitializer",
                     body), body
    assert body.count("insertelement") == 1, body  # (the transpose of the extractelement)


# --- masked loads and stores ----------------------------------------------------------------

MASKED = """
declare <4 x double> @llvm.masked.load.v4f64.p0(ptr, <4 x i1>, <4 x double>)
declare void @llvm.masked.store.v4f64.p0(<4 x double>, ptr, <4 x i1>)

define void @f(ptr %x, ptr %y, ptr %z) {
entry:
  %zv = load <4 x double>, ptr %z, align 8
  %mask = fcmp ogt <4 x double> %zv, zeroinitializer
  %v = call <4 x double> @llvm.masked.load.v4f64.p0(ptr align 8 %x, <4 x i1> %mask, <4 x double> %zv)
  %sq = fmul <4 x double> %v, %zv
  %keep = call <4 x double> @llvm.masked.load.v4f64.p0(ptr align 8 %y, <4 x i1> <i1 true, i1 false, i1 true, i1 false>, <4 x double> zeroinitializer)
  %new = fadd <4 x double> %sq, %keep
  call void @llvm.masked.store.v4f64.p0(<4 x double> %new, ptr align 8 %y, <4 x i1> <i1 true, i1 true, i1 false, i1 true>)
  ret void
}
"""


def _masked_primal(f, x, y0, z):
    y = y0.copy()
    f(x, y, z.copy())
    return y


@pytest.mark.parametrize("seed", range(3))
def test_masked_load_and_store_both_modes(seed) -> None:
    rng = np.random.default_rng(seed)
    x, y0 = rng.standard_normal(4), rng.standard_normal(4)
    z = np.array([0.5, -1.0, 2.0, 0.7]) * rng.choice([-1.0, 1.0], 4)
    vx, vy, vz = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal(4)
    f, df, _ = _reverse(MASKED, "f", ["dup", "dup", "dup"], False)

    def flat(p):
        return _masked_primal(f, p[:4], p[4:8], p[8:])

    point, direction = np.concatenate([x, y0, z]), np.concatenate([vx, vy, vz])
    want = fd_dir(flat, point, direction)  # d y_out along the direction
    u = rng.standard_normal(4)  # the seed of y_out
    dx, y, dy, dz = np.zeros(4), y0.copy(), u.copy(), np.zeros(4)
    df(x.copy(), dx, y, dy, z.copy(), dz)
    close(y, _masked_primal(f, x, y0, z), rtol=0, atol=0)
    close(np.concatenate([dx, dy, dz]) @ direction, u @ want)
    fwd = Compiled(MASKED, "f", ["dup", "dup", "dup"])
    ty = vy.copy()
    fwd.fwd(x.copy(), vx.copy(), y0.copy(), ty, z.copy(), vz.copy())
    close(ty, want)


PASSTHRU = """
declare <2 x double> @llvm.masked.load.v2f64.p0(ptr, <2 x i1>, <2 x double>)

define double @f(ptr %table, double %a, double %b) {
entry:
  %p0 = insertelement <2 x double> poison, double %a, i32 0
  %p1 = insertelement <2 x double> %p0, double %b, i32 1
  %m = fcmp olt <2 x double> %p1, zeroinitializer
  %v = call <2 x double> @llvm.masked.load.v2f64.p0(ptr align 8 %table, <2 x i1> %m, <2 x double> %p1)
  %w = fmul <2 x double> %v, %p1
  %e0 = extractelement <2 x double> %w, i32 0
  %e1 = extractelement <2 x double> %w, i32 1
  %r = fadd double %e0, %e1
  ret double %r
}
"""


@pytest.mark.parametrize("point", [(0.5, -1.5), (-0.25, 2.0), (1.0, 3.0)])
def test_masked_load_from_constant_memory_keeps_the_passthru_derivative(point) -> None:
    table = np.array([2.0, -3.0])
    f, df, _ = _reverse(PASSTHRU, "f", ["const", "out", "out"], True)
    fwd = Compiled(PASSTHRU, "f", ["const", "dup", "dup"])
    x, v = np.array(point), np.array([0.7, -0.4])
    want = fd_dir(lambda p: f(table, *p), x, v)
    close(np.asarray(df(table, *x, 1.0)) @ v, want)
    close(fwd.fwd(table, x[0], v[0], x[1], v[1])[1], want)


def test_masked_accesses_touch_only_their_lanes() -> None:
    """The reverse sweep reads and writes the shadow only under the primal's masks: lanes
    the function never touches keep their seed, untouched."""
    f, df, text = _reverse(MASKED, "f", ["dup", "dup", "dup"], False, opt=0)
    assert "@llvm.masked.store.v4f64.p0(<4 x double>" in text and "ptr align 8" in text
    x, z = np.ones(4), np.array([1.0, -1.0, 1.0, 1.0])
    y, dy = np.zeros(4), np.array([1.0, 2.0, 3.0, 4.0])
    dx, dz = np.zeros(4), np.zeros(4)
    df(x, dx, y, dy, z, dz)
    assert dy[2] == 3.0  # lane 2 is stored by no one and read by the masked load only
    assert dx[1] == 0.0  # lane 1 of x is off the load's mask


def test_gather_has_a_clear_error() -> None:
    ir = """
declare <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr>, <2 x i1>, <2 x double>)

define double @f(ptr %x) {
entry:
  %ps = getelementptr double, ptr %x, <2 x i64> <i64 0, i64 3>
  %v = call <2 x double> @llvm.masked.gather.v2f64.v2p0(<2 x ptr> align 8 %ps, <2 x i1> <i1 true, i1 true>, <2 x double> zeroinitializer)
  %e = extractelement <2 x double> %v, i32 1
  ret double %e
}
"""
    with pytest.raises(DifferentiationError, match=r"masked\.gather.*does not differentiate "
                                                   r"yet.*vectorize"):
        gradient_module(parse(ir), "f", ["dup"], True)
    with pytest.raises(DifferentiationError, match=r"masked\.gather.*does not differentiate"):
        Compiled(ir, "f", ["dup"])


def test_memory_instruction_without_support_names_the_memory_code() -> None:
    ir = """
define double @f(ptr %p, double %x) {
entry:
  %old = atomicrmw fmax ptr %p, double %x seq_cst, align 8
  %r = fmul double %old, %x
  ret double %r
}
"""
    with pytest.raises(DifferentiationError, match=r"'atomicrmw' on active data is not "
                                                   r"supported yet.*shadow memory"):
        gradient_module(parse(ir), "f", ["dup", "out"], True)


MASKED_C = r"""
void cond_store(int n, const double *x, double *y) {
#pragma clang loop vectorize(enable)
  for (int i = 0; i < n; i++)
    if (x[i] > 0.5) y[i] = x[i] * y[i];
}

double tail_sum(int n, const double *x) {
  double s = 0;
#pragma clang loop vectorize(enable) vectorize_predicate(enable)
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return s;
}
"""


@pytest.fixture(scope="module")
def masked_ll(tmp_path_factory) -> str:
    from tests.conftest import find_clang

    clang = find_clang()
    if clang is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    d = tmp_path_factory.mktemp("masked")
    src = d / "masked.c"
    src.write_text(MASKED_C)
    text = compile_c(clang, src, d / "masked.ll", "-O2", ("-march=x86-64-v3",))
    assert "@llvm.masked.store." in text and "@llvm.masked.load." in text, (
        "clang no longer emits masked loads and stores for these loops")
    return text


@pytest.mark.clang
@pytest.mark.parametrize("n", [3, 13, 37])
def test_clang_conditional_store(masked_ll, n) -> None:
    rng = np.random.default_rng(n)
    x, y0 = rng.uniform(0.0, 1.0, n), rng.standard_normal(n)
    vx, vy, u = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(n)
    f, df, _ = _reverse(masked_ll, "cond_store", ["const", "dup", "dup"], False)

    def primal(p):
        y = p[n:].copy()
        f(n, p[:n].copy(), y)
        return y

    point, direction = np.concatenate([x, y0]), np.concatenate([vx, vy])
    want = fd_dir(primal, point, direction)
    dx, y, dy = np.zeros(n), y0.copy(), u.copy()
    df(n, x.copy(), dx, y, dy)
    close(np.concatenate([dx, dy]) @ direction, u @ want)
    fwd = Compiled(masked_ll, "cond_store", ["const", "dup", "dup"])
    ty = vy.copy()
    fwd.fwd(n, x.copy(), vx.copy(), y0.copy(), ty)
    close(ty, want)


@pytest.mark.clang
@pytest.mark.parametrize("n", [1, 6, 21])
def test_clang_predicated_tail_load(masked_ll, n) -> None:
    rng = np.random.default_rng(n)
    x, v = rng.standard_normal(n), rng.standard_normal(n)
    f, df, _ = _reverse(masked_ll, "tail_sum", ["const", "dup"], True)
    dx = np.zeros(n)
    df(n, x.copy(), dx, 1.0)
    close(dx, 2 * x)
    fwd = Compiled(masked_ll, "tail_sum", ["const", "dup"])
    close(fwd.fwd(n, x.copy(), v.copy())[1], fd_dir(lambda p: f(n, p), x, v))
