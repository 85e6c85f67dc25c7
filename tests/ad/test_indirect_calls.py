"""Indirect calls on an active path (a callback in a struct, C++ virtual calls), differentiated
through the shadow of the function pointer: the pair `{augmented, reverse}` that
`__enzyme_virtualreverse` makes (of a function, or of a whole vtable)."""

from __future__ import annotations

import subprocess

import pytest

from enzyme_py.cli import main

CALLBACK_C = r"""
#include <stdio.h>
#include <stdlib.h>
struct S { double (*fn)(double); double val; };
double square(double x) { return x * x; }
double cube(double x) { return x * x * x; }
double call(struct S *s) { return s->fn(s->val) * s->val; }
void *__enzyme_virtualreverse(void *);
void __enzyme_autodiff(void *, ...);
int main(void) {
  struct S s = {cube, 3.0}, d_s = {0, 0.0};
  d_s.fn = (double (*)(double))__enzyme_virtualreverse((void *)cube);
  __enzyme_autodiff((void *)call, &s, &d_s);     /* d/dv v^4 = 4 v^3 */
  if (d_s.val != 108.0) { printf("cube: %f\n", d_s.val); return 1; }
  s.fn = square; d_s.val = 0.0;
  d_s.fn = (double (*)(double))__enzyme_virtualreverse((void *)square);
  __enzyme_autodiff((void *)call, &s, &d_s);     /* d/dv v^3 = 3 v^2 */
  if (d_s.val != 27.0) { printf("square: %f\n", d_s.val); return 1; }
  return 0;
}
"""

VIRTUAL_CPP = r"""
#include <cstdio>
struct Shape { virtual double area(double s) = 0; double scale; };
struct Square : Shape { double area(double s) { return scale * s * s; } };
struct Disk : Shape { double area(double s) { return scale * 3.0 * s * s; } };
double total(Shape &a, Shape &b, double s) { return a.area(s) + b.area(s); }
template <typename T> T __enzyme_virtualreverse(T);
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
int main() {
  Square sq; Disk dk; Square dsq; Disk ddk;
  sq.scale = 2.0; dk.scale = 0.5; dsq.scale = 0.0; ddk.scale = 0.0;
  *(void **)&dsq = __enzyme_virtualreverse(*(void **)&dsq);
  *(void **)&ddk = __enzyme_virtualreverse(*(void **)&ddk);
  double ds = __enzyme_autodiff((void *)total, enzyme_dup, (Shape *)&sq, (Shape *)&dsq,
                                enzyme_dup, (Shape *)&dk, (Shape *)&ddk, 4.0);
  /* d/ds = 2 * 2 * 4 + 0.5 * 3 * 2 * 4 = 28; d/dscale: 16 and 48 */
  if (ds != 28.0 || dsq.scale != 16.0 || ddk.scale != 48.0) {
    std::printf("%f %f %f\n", ds, dsq.scale, ddk.scale);
    return 1;
  }
  return 0;
}
"""


def _build_and_run(clang: str, tmp_path, source: str, suffix: str, opt: str) -> None:
    src = tmp_path / f"prog{suffix}"
    src.write_text(source)
    ll, out, exe = tmp_path / "prog.ll", tmp_path / "grad.ll", tmp_path / "prog"
    lang = ["-x", "c++"] if suffix == ".cpp" else []
    subprocess.run([clang, *lang, opt, "-fno-exceptions", "-S", "-emit-llvm", str(src), "-o",
                    str(ll)], check=True)
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    link = [clang, opt, str(out), "-o", str(exe), "-lm"] + (["-lstdc++"] if lang else [])
    subprocess.run(link, check=True)
    done = subprocess.run([str(exe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_a_callback_through_its_shadow_pair(clang: str, tmp_path, opt: str) -> None:
    _build_and_run(clang, tmp_path, CALLBACK_C, ".c", opt)


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_virtual_calls_through_shadow_vtables(clang: str, tmp_path, opt: str) -> None:
    """At -O2 the vtables are constants (their shadows are made at compile time); at -O0 the
    vtable pointer is read at run time and mapped to its shadow then."""
    _build_and_run(clang, tmp_path, VIRTUAL_CPP, ".cpp", opt)


def test_a_pointer_without_a_shadow_is_an_error(tmp_path, capsys) -> None:
    """The pair takes a shadow for every pointer; a const pointer argument has none."""
    ir = """
declare double @__enzyme_autodiff(ptr, ...)
@enzyme_const = external global i32

define double @f(ptr %fp, ptr %data, double %x) {
  %r = call double %fp(ptr %data, double %x)
  ret double %r
}

define double @df(ptr %fp, ptr %dfp, ptr %data, double %x) {
  %c = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %fp, ptr %dfp, i32 %c,
                                                 ptr %data, double %x)
  ret double %r
}
"""
    src = tmp_path / "f.ll"
    src.write_text(ir.replace("i32 %c,\n                                                 ",
                              "i32 %c, "))
    assert main(["transform", str(src), "-o", str(tmp_path / "g.ll")]) == 1
    err = capsys.readouterr().err
    assert "an indirect call passes, as argument 0, a pointer to memory without a shadow" in err


UNPAIRED_C = r"""
struct S { double (*fn)(double); double val; };
double cube(double x) { return x * x * x; }
double call(struct S *s) { return s->fn(s->val); }
void __enzyme_autodiff(void *, ...);
int main(void) {
  struct S s = {cube, 3.0}, d_s = {cube, 0.0};   /* the shadow holds the primal function */
  __enzyme_autodiff((void *)call, &s, &d_s);
  return 0;
}
"""


@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_a_shadow_that_is_not_a_pair_stops_with_a_message(clang: str, tmp_path,
                                                          opt: str) -> None:
    src, ll, out, exe = (tmp_path / n for n in ("u.c", "u.ll", "g.ll", "u"))
    src.write_text(UNPAIRED_C)
    subprocess.run([clang, opt, "-S", "-emit-llvm", str(src), "-o", str(ll)], check=True)
    assert main(["transform", str(ll), "-o", str(out)]) == 0
    subprocess.run([clang, opt, str(out), "-o", str(exe), "-lm"], check=True)
    done = subprocess.run([str(exe)], capture_output=True, text=True)
    assert done.returncode != 0
    assert "the shadow of a function pointer called on an active path is not a pair" in \
        done.stderr
