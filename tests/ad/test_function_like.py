"""`__enzyme_function_like` (and Enzyme's `"enzyme_math"` attribute): a function whose calls
are differentiated as calls of a math function, by that function's rule."""

from __future__ import annotations

import ctypes
import math

import pytest

from enzyme_py.ad.driver import forward_module, gradient_module
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.backend import compile_ir
from enzyme_py.ir import parse

BODY = """
define double @like(double %a) {
  %r = fmul double %a, 2.0
  ret double %r
}

define double @test(double %a) {
  %r = call double @like(double %a)
  %s = fmul double %r, %a
  ret double %s
}
"""
GLOBAL = """@.str = private unnamed_addr constant [6 x i8] c"log1p\\00"
@__enzyme_function_like = global [2 x ptr] [ptr @like, ptr @.str]
""" + BODY
ATTRIBUTE = BODY.replace("define double @like(double %a) {",
                         "define double @like(double %a) #0 {") + \
    'attributes #0 = { noinline "enzyme_math"="log1p" }\n'


def _double_fn(jm, name, nargs):
    return ctypes.CFUNCTYPE(ctypes.c_double, *[ctypes.c_double] * nargs)(jm.address(name))


@pytest.mark.parametrize("ir", [GLOBAL, ATTRIBUTE], ids=["global", "attribute"])
def test_the_rule_of_the_math_function_is_used(ir: str) -> None:
    """test(a) = like(a) * a, with like's derivative taken as log1p's, 1 / (1 + a): the
    primal still runs like's body (2a)."""
    a = 2.0
    want = 1.0 / (1.0 + a) * a + 2.0 * a  # like' = log1p' times a, plus like(a) = 2a itself
    out, name = gradient_module(parse(ir), "test", ["out"], True)
    assert math.isclose(_double_fn(compile_ir(str(out)), name, 2)(a, 1.0), want)
    fwd, fname = forward_module(parse(ir), "test", ["dup"], return_primal=False)
    assert math.isclose(_double_fn(compile_ir(str(fwd)), fname, 2)(a, 1.0), want)


def test_a_math_function_without_a_rule_is_an_error() -> None:
    bad = GLOBAL.replace('c"log1p\\00"', 'c"nope1\\00"')
    with pytest.raises(DifferentiationError, match="declared like 'nope1', which has no "
                                                   "derivative rule"):
        gradient_module(parse(bad), "test", ["out"], True)
    worse = GLOBAL.replace("[ptr @like, ptr @.str]", "[ptr @.str, ptr @.str]")
    with pytest.raises(DifferentiationError, match="must hold a function and the name"):
        gradient_module(parse(worse), "test", ["out"], True)


C_SOURCE = r"""
#include <stdio.h>
double log1p_like(double a) { return 2 * a; }
void *__enzyme_function_like[2] = {(void *)log1p_like, (void *)"log1p"};
double __enzyme_autodiff(void *, ...);
double test(double a) { return log1p_like(a); }
int main(void) { printf("%.12f\n", __enzyme_autodiff((void *)test, 2.0)); return 0; }
"""


def test_from_c_at_o2_the_inlined_function_is_an_error_and_preoptimize_keeps_it(
        clang: str, tmp_path, capsys) -> None:
    import subprocess

    from enzyme_py.cli import main

    src = tmp_path / "like.c"
    src.write_text(C_SOURCE)
    inlined, raw, out = tmp_path / "o2.ll", tmp_path / "raw.ll", tmp_path / "g.ll"
    subprocess.run([clang, "-O2", "-S", "-emit-llvm", str(src), "-o", str(inlined)], check=True)
    assert main(["transform", str(inlined), "-o", str(out)]) == 1
    assert "@log1p_like has a registered derivative (or is declared inactive, or like a " \
           "math function)" in capsys.readouterr().err
    subprocess.run([clang, "-O2", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm",
                    str(src), "-o", str(raw)], check=True)
    assert main(["transform", str(raw), "--preoptimize", "-o", str(out)]) == 0
    exe = tmp_path / "like"
    subprocess.run([clang, "-O2", str(out), "-o", str(exe), "-lm"], check=True)
    got = float(subprocess.run([str(exe)], capture_output=True, text=True,
                               check=True).stdout)
    assert math.isclose(got, 1.0 / 3.0, rel_tol=1e-12)  # log1p'(2), not 2
