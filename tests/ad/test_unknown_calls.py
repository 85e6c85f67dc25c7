"""Calls of code the module does not define: what they may write, and gradients around them.

A function defined in another translation unit (here `helper.c`, compiled apart and linked
after the transform) may write globals, memory behind arguments that are not `restrict`, and
every object whose address the differentiated function lets out; it cannot reach a `restrict`
argument or a local it is never handed. The reverse sweep re-reads memory such a call cannot
write and caches what it may. `kernel.c`'s two functions read memory that `clobber` zeroes
after the reads: a local whose address went to a global and an argument reached through a
global (`through_globals`), and a `restrict` argument passed to `keep` first
(`kept_restrict`). Re-reading either after `clobber` would give zero gradients.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from enzyme_py.analysis.memory import EXTERNAL
from enzyme_py.analysis.memory_effects import escaped_objects, memory_effects
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse
from tests.ad.harness import check_program_output, clang_or_skip, run, transform_in_process

KERNEL_C = r"""
#include <math.h>
#include <stdio.h>
extern double *stash, *other;
void clobber(int n);
void keep(double *p);
void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

__attribute__((noinline)) double through_globals(const double *restrict x, double *y, int n) {
  double t[16];
  double s = 0.0;
  for (int i = 0; i < n; i++) t[i] = x[i] * x[i];
  stash = t;
  other = y;
  for (int i = 0; i < n; i++) s += t[i] * x[i] * y[i];
  clobber(n); /* zeroes t and y */
  return s;
}

__attribute__((noinline)) double kept_restrict(const double *restrict x, double *restrict w,
                                               int n) {
  keep(w);
  double s = 0.0;
  for (int i = 0; i < n; i++) s += sin(x[i]) * w[i];
  clobber(n); /* zeroes w through the pointer keep stored */
  return s;
}

static int bad = 0;
static void check(const char *what, int i, double got, double want) {
  if (fabs(got - want) > 1e-12 * (1.0 + fabs(want))) {
    printf("FAIL %s[%d] got=%.17g want=%.17g\n", what, i, got, want);
    bad = 1;
  }
}

int main(void) {
  enum { N = 9 };
  double x[N], y[N], y0[N], w[N], w0[N], dx[N] = {0}, dy[N] = {0}, dx2[N] = {0};
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.1 * i;
    y0[i] = y[i] = 1.0 - 0.05 * i;
    w0[i] = w[i] = 0.5 + 0.25 * i;
  }
  __enzyme_autodiff((void *)through_globals, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, N);
  for (int i = 0; i < N; i++) {
    check("through_globals dx", i, dx[i], 3.0 * x[i] * x[i] * y0[i]);
    check("through_globals dy", i, dy[i], x[i] * x[i] * x[i]);
  }
  __enzyme_autodiff((void *)kept_restrict, enzyme_dup, x, dx2, enzyme_const, w, enzyme_const,
                    N);
  for (int i = 0; i < N; i++)
    check("kept_restrict dx", i, dx2[i], cos(x[i]) * w0[i]);
  if (!bad)
    printf("PASS unknown calls\n");
  return bad;
}
"""

HELPER_C = r"""
double *stash, *other;
static double *kept;
void keep(double *p) { kept = p; }
void clobber(int n) {
  for (int i = 0; i < n; i++) {
    if (stash) stash[i] = 0.0;
    if (other) other[i] = 0.0;
    if (kept) kept[i] = 0.0;
  }
}
"""


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_gradients_around_calls_of_other_units(opt: str, tmp_path: Path) -> None:
    """kernel.c through the transform, linked with helper.c: every gradient is right."""
    clang = clang_or_skip()
    kernel, helper = tmp_path / "kernel.c", tmp_path / "helper.c"
    kernel.write_text(KERNEL_C)
    helper.write_text(HELPER_C)
    ll, grad_ll, exe = tmp_path / "kernel.ll", tmp_path / "kernel.grad.ll", tmp_path / "prog"
    run([clang, opt, "-S", "-emit-llvm", str(kernel), "-o", str(ll)], "clang", 120)
    transform_in_process(ll, grad_ll)
    run([clang, "-O2", str(grad_ll), str(helper), "-o", str(exe), "-lm"], "clang (link)", 120)
    check_program_output(exe, f"unknown calls {opt}")


MODULE = """
@g = global ptr null
declare void @opaque(ptr)
declare void @quiet(ptr captures(none))
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

define void @f(ptr noalias %na, ptr noalias %kept, ptr %plain) {
entry:
  %local = alloca double
  %stored = alloca double
  %passed = alloca double
  %marked = alloca double
  %heap = call ptr @malloc(i64 8)
  store ptr %stored, ptr @g
  call void @opaque(ptr %passed)
  call void @quiet(ptr %marked)
  call void @llvm.memset.p0.i64(ptr %local, i8 0, i64 8, i1 false)
  %gep = getelementptr i8, ptr %kept, i64 8
  %as.int = ptrtoint ptr %gep to i64
  %v = load double, ptr %na
  store double %v, ptr %heap
  call void @free(ptr %heap)
  ret void
}

declare ptr @malloc(i64)
declare void @free(ptr)
"""


def _named(fn, objs) -> set[str]:
    return {getattr(o, "name", repr(o)) for o in objs}


def test_escaped_objects() -> None:
    """Stored as a value, passed to a call that may keep it, or made an integer: escaped;
    handed to a memory intrinsic, a `captures(none)` parameter or `free`, or only loaded and
    stored through: not."""
    fn = parse(MODULE).get_function("f")
    assert _named(fn, escaped_objects(fn)) == {"stored", "passed", "kept"}


def test_unknown_call_writes() -> None:
    """A call of a declared function writes EXTERNAL, what it is handed, and what escaped —
    not the `noalias` argument or the locals that stayed inside."""
    fn = parse(MODULE).get_function("f")
    eff = memory_effects(fn)
    assert eff.writes_unknown_call
    calls = {i.callee_name: objs for i, objs in eff.writes if isinstance(i, I.Call)}
    opaque = calls["opaque"]
    assert EXTERNAL in opaque
    assert _named(fn, opaque - {EXTERNAL}) == {"stored", "passed", "kept"}
    assert _named(fn, calls["quiet"] - {EXTERNAL}) == {"stored", "passed", "kept", "marked"}
    assert "memory outside code may reach" in str(eff)
