"""`enzyme-py transform` on Enzyme's split mode (`__enzyme_augmentfwd`, `__enzyme_reverse`,
`__enzyme_augmentsize`): self-checking C programs compiled by clang-22 at -O0 and -O2,
transformed, linked and run, their values checked against the analytic gradient."""

from __future__ import annotations

import math
import re
import subprocess

import pytest

from enzyme_py.cli import main
from tests.test_cli_ad import _clang_ll, _link_and_run, _one_line_error

# One augmented call per step of a loop, the tapes kept, then the reverse calls in reverse
# order (as Enzyme's loopsnested.c does); then a caller-allocated tape (allocatedtape.c).
STEPS = r"""
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
extern void *__enzyme_augmentfwd(void *, ...);
extern void __enzyme_reverse(void *, ...);
extern int __enzyme_augmentsize(void *, ...);
extern int enzyme_dup, enzyme_tape, enzyme_const, enzyme_allocated;
void step(double *x, double *y, int n) {
    for (int i = 0; i < n; i++) y[i] = sin(x[i]) * x[i] * y[i];
}
int main(void) {
    enum { N = 3, S = 4 };
    double x[S][N], dx[S][N], y[N] = {1.0, 2.0, 3.0}, dy[N] = {1.0, 1.0, 1.0};
    void *tapes[S];
    for (int s = 0; s < S; s++)
        for (int i = 0; i < N; i++) { x[s][i] = 0.1 * (s + 1) + 0.2 * i; dx[s][i] = 0.0; }
    for (int s = 0; s < S; s++)
        tapes[s] = __enzyme_augmentfwd((void *)step, enzyme_dup, x[s], dx[s], enzyme_dup, y, dy,
                                       enzyme_const, N);
    for (int s = S - 1; s >= 0; s--)
        __enzyme_reverse((void *)step, enzyme_dup, x[s], dx[s], enzyme_dup, y, dy,
                         enzyme_const, N, enzyme_tape, tapes[s]);
    for (int i = 0; i < N; i++) printf("y%d=%.17g dy%d=%.17g\n", i, y[i], i, dy[i]);
    for (int s = 0; s < S; s++)
        for (int i = 0; i < N; i++) printf("dx%d_%d=%.17g\n", s, i, dx[s][i]);
    int size = __enzyme_augmentsize((void *)step, enzyme_dup, enzyme_dup, enzyme_const);
    void *data = malloc(size);
    double z[N] = {1.0, 1.0, 1.0}, dz[N] = {1.0, 1.0, 1.0};
    double w[N] = {0.5, 0.6, 0.7}, dw[N] = {0.0, 0.0, 0.0};
    __enzyme_augmentfwd((void *)step, enzyme_allocated, size, enzyme_tape, data,
                        enzyme_dup, w, dw, enzyme_dup, z, dz, enzyme_const, N);
    __enzyme_reverse((void *)step, enzyme_allocated, size, enzyme_tape, data,
                     enzyme_dup, w, dw, enzyme_dup, z, dz, enzyme_const, N);
    free(data);
    for (int i = 0; i < N; i++) printf("dw%d=%.17g\n", i, dw[i]);
    printf("size=%d\n", size);
    return 0;
}
"""


def _values(stdout: str) -> dict[str, float]:
    return {k: float(v) for k, v in (line.split("=") for line in stdout.split())}


def _close(got: float, want: float) -> bool:
    return math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300)


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_tapes_of_a_loop_reversed_in_reverse_order(clang, tmp_path, capsys, opt) -> None:
    ll = _clang_ll(clang, tmp_path, STEPS, opt, "steps")
    out = tmp_path / f"steps{opt}.out.ll"
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    assert "__enzyme_" not in out.read_text().replace("enzyme_py.", "")
    got = _values(_link_and_run(clang, out, tmp_path / f"steps{opt}"))

    def g(v: float) -> float:
        return math.sin(v) * v

    def dg(v: float) -> float:
        return math.cos(v) * v + math.sin(v)

    xs = [[0.1 * (s + 1) + 0.2 * i for i in range(3)] for s in range(4)]
    for i, y0 in enumerate([1.0, 2.0, 3.0]):
        prod = math.prod(g(xs[s][i]) for s in range(4))
        assert _close(got[f"y{i}"], y0 * prod) and _close(got[f"dy{i}"], prod), (i, got)
        for s in range(4):
            rest = math.prod(g(xs[t][i]) for t in range(4) if t != s)
            assert _close(got[f"dx{s}_{i}"], y0 * rest * dg(xs[s][i])), (s, i, got)
    for i, w in enumerate([0.5, 0.6, 0.7]):
        assert _close(got[f"dw{i}"], dg(w)), (i, got)
    assert got["size"] >= 8


# f returns a double: the augmented call returns {tape, primal}, the reverse call takes the
# seed of the result after f's arguments and returns the `enzyme_out` adjoints.
RETURNS = r"""
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_tape, enzyme_out;
typedef struct { void *tape; double primal; } aug_t;
typedef struct { double dx, dy; } grad_t;
extern aug_t __enzyme_augmentfwd(void *, ...);
extern grad_t __enzyme_reverse(void *, ...);
double f(double x, double y, double *p) { double r = sin(x) * y * p[0]; p[0] = r; return r * x; }
int main(void) {
    double p = 1.5, dp = 0.0;
    aug_t a = __enzyme_augmentfwd((void *)f, enzyme_out, 0.7, enzyme_out, 1.3, enzyme_dup, &p, &dp);
    dp = 0.5;
    grad_t g = __enzyme_reverse((void *)f, enzyme_out, 0.7, enzyme_out, 1.3, enzyme_dup, &p, &dp,
                                2.0, enzyme_tape, a.tape);
    printf("primal=%.17g p=%.17g dx=%.17g dy=%.17g dp=%.17g\n", a.primal, p, g.dx, g.dy, dp);
    return 0;
}
"""


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_split_call_of_a_function_returning_a_double(clang, tmp_path, capsys, opt) -> None:
    ll = _clang_ll(clang, tmp_path, RETURNS, opt, "returns")
    out = tmp_path / f"returns{opt}.out.ll"
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    got = _values(_link_and_run(clang, out, tmp_path / f"returns{opt}"))
    x, y, p0 = 0.7, 1.3, 1.5
    r = math.sin(x) * y * p0
    dr = 2.0 * x + 0.5  # the seeds: 2.0 on the result r * x, 0.5 on p's new value r
    want = {"primal": r * x, "p": r, "dx": dr * math.cos(x) * y * p0 + 2.0 * r,
            "dy": dr * math.sin(x) * p0, "dp": dr * math.sin(x) * y}
    for k, v in want.items():
        assert _close(got[k], v), (k, got)


NOFREE = r"""
extern void *__enzyme_augmentfwd(void *, ...);
extern void __enzyme_reverse(void *, ...);
extern int enzyme_dup, enzyme_tape, enzyme_nofree;
void sq(double *x, double *y) { *y = *x * *x; }
void run(double *x, double *dx, double *y, double *dy) {
    void *tape = __enzyme_augmentfwd((void *)sq, enzyme_dup, x, dx, enzyme_dup, y, dy);
    __enzyme_reverse((void *)sq, enzyme_nofree, enzyme_dup, x, dx, enzyme_dup, y, dy,
                     enzyme_tape, tape);
}
"""


@pytest.mark.clang
def test_nofree_is_refused_with_one_line(clang, tmp_path, capsys) -> None:
    ll = _clang_ll(clang, tmp_path, NOFREE, "-O0", "nofree")
    out = tmp_path / "nofree.out.ll"
    err = _one_line_error(capsys, ["transform", str(ll), "-o", str(out)],
                          "in @run", "__enzyme_reverse", "enzyme_nofree")
    assert "not supported yet" in err and not out.exists()


# f returns a pointer: the augmented call returns {tape, the pointer, its shadow}; the
# caller seeds through the shadow. The reverse call takes the tape as its last, unmarked
# argument (Enzyme's early form, as in loopsnested.c).
POINTER = r"""
#include <stdio.h>
extern int enzyme_dup;
typedef struct { void *tape; double *primal; double *shadow; } aug_t;
extern aug_t __enzyme_augmentfwd(void *, ...);
extern void __enzyme_reverse(void *, ...);
__attribute__((noinline)) double *g(double *x) { x[0] = x[0] * x[1]; return x + 1; }
int main(void) {
    double x[2] = {3.0, 5.0}, dx[2] = {0.0, 0.0};
    aug_t a = __enzyme_augmentfwd((void *)g, enzyme_dup, x, dx);
    a.shadow[0] += 1.0;
    dx[0] = 1.0;
    __enzyme_reverse((void *)g, enzyme_dup, x, dx, a.tape);
    printf("same=%d x0=%.17g dx0=%.17g dx1=%.17g\n", a.primal == x + 1 && a.shadow == dx + 1,
           x[0], dx[0], dx[1]);
    return 0;
}
"""


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_split_call_of_a_function_returning_a_pointer(clang, tmp_path, capsys, opt) -> None:
    ll = _clang_ll(clang, tmp_path, POINTER, opt, "pointer")
    out = tmp_path / f"pointer{opt}.out.ll"
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    got = _values(_link_and_run(clang, out, tmp_path / f"pointer{opt}"))
    # x0' = x0 * x1, seeds 1 on x0' and 1 on x1 (through the returned shadow)
    assert got == {"same": 1.0, "x0": 15.0, "dx0": 5.0, "dx1": 4.0}, got


CXX = r"""
#include <math.h>
#include <stdio.h>
extern int enzyme_dup, enzyme_tape;
template <typename... Args> void *__enzyme_augmentfwd(void *, Args...);
template <typename... Args> void __enzyme_reverse(void *, Args...);
void h(double *x, double *y) { *y = exp(*x) * *y; }
int main() {
    double x = 0.3, dx = 0.0, y = 2.0, dy = 1.0;
    void *t = __enzyme_augmentfwd((void *)h, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy);
    __enzyme_reverse((void *)h, enzyme_dup, &x, &dx, enzyme_dup, &y, &dy, enzyme_tape, t);
    printf("y=%.17g dx=%.17g dy=%.17g\n", y, dx, dy);
}
"""


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_split_mode_declared_as_cxx_templates(clang, tmp_path, capsys, opt) -> None:
    """C++ declares the entry points as templates: their mangled names are lowered too."""
    src = tmp_path / "h.cpp"
    src.write_text(CXX)
    ll = tmp_path / f"h{opt}.ll"
    subprocess.run([clang, "-x", "c++", opt, "-S", "-emit-llvm", str(src), "-o", str(ll)],
                   check=True, capture_output=True, timeout=120)
    assert "_Z19__enzyme_augmentfwd" in ll.read_text()
    out = tmp_path / f"h{opt}.out.ll"
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    got = _values(_link_and_run(clang, out, tmp_path / f"h{opt}"))
    e = math.exp(0.3)
    assert _close(got["y"], 2.0 * e) and _close(got["dx"], 2.0 * e) and _close(got["dy"], e)


SPLIT_IR = """
@enzyme_dup = external global i32
@enzyme_tape = external global i32
define void @sq(ptr %x, ptr %y) {
entry:
  %v = load double, ptr %x, align 8
  %m = fmul double %v, %v
  store double %m, ptr %y, align 8
  ret void
}
define void @run(ptr %x, ptr %dx, ptr %y, ptr %dy) {
entry:
  %d = load i32, ptr @enzyme_dup, align 4
  %t = load i32, ptr @enzyme_tape, align 4
  %tape = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @sq, i32 %d, ptr %x, ptr %dx, i32 %d, ptr %y, ptr %dy)
  call void (ptr, ...) @__enzyme_reverse(ptr @sq, i32 %d, ptr %x, ptr %dx, i32 %d, ptr %y, ptr %dy, i32 %t, ptr %tape)
  ret void
}
declare ptr @__enzyme_augmentfwd(ptr, ...)
declare void @__enzyme_reverse(ptr, ...)
"""


def test_split_calls_lowered_without_clang(tmp_path, capsys) -> None:
    """(no clang needed) Both calls become calls of one augmented/reverse pair; the output
    verifies in LLVM and defines the markers, so it links."""
    from enzyme_py.backend import parse_llvm

    src = tmp_path / "split.ll"
    src.write_text(SPLIT_IR)
    out = tmp_path / "split.out.ll"
    assert main(["transform", str(src), "-O", "0", "-o", str(out)]) == 0
    text = out.read_text()
    parse_llvm(text)
    assert not re.search(r"call .*@__enzyme_", text)
    assert re.search(r"call .*@augmented_sq\(", text) and re.search(r"call .*@diffe_sq\(", text)
    assert re.search(r"@enzyme_tape = .*global i32 \d", text)
