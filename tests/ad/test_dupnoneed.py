"""`dupnoneed`: the gradient does not store (or compute) primal results nobody reads."""

from __future__ import annotations

import math

import numpy as np
import pytest

from enzyme_py.ad.driver import gradient_module
from enzyme_py.backend import compile_ir
from enzyme_py.ir import parse
from tests.conftest import compile_c

SOURCE = r"""
#include <math.h>
void layer(const double *restrict x, double *restrict out, int n) {
  for (int i = 0; i < n; i++) out[i] = exp(sin(x[i])) * x[i];
}
double layer_sum(const double *restrict x, double *restrict out, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) out[i] = exp(sin(x[i])) * x[i];
  for (int i = 0; i < n; i++) s += out[i] * out[i];   /* reads its own output back */
  return s;
}
"""


def _gradient(clang, tmp_path, fname: str, acts: list[str], ret: bool):
    src = tmp_path / "layer.c"
    src.write_text(SOURCE)
    module = parse(compile_c(clang, src, tmp_path / "layer.ll"))
    out, gname = gradient_module(module, fname, acts, ret, opt_level=2)
    return str(out), gname


def _body(text: str, name: str) -> str:
    start = text.index(f"@{name}(")
    return text[start:text.index("\n}\n", start)]


@pytest.mark.clang
def test_output_stores_and_their_arithmetic_are_dropped(clang, tmp_path) -> None:
    acts = ["dup", "dupnoneed", "const"]
    text, gname = _gradient(clang, tmp_path, "layer", acts, False)
    keep_text, keep_name = _gradient(clang, tmp_path, "layer", ["dup", "dup", "const"], False)
    body, kept = _body(text, gname), _body(keep_text, keep_name)
    # with `dup` the primal value exp(sin(x)) * x is multiplied and stored; not with dupnoneed
    assert kept.count("fmul") > body.count("fmul")
    grad = compile_ir(text, opt_level=2).function(gname)
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    dx, out, dout = np.zeros(5), np.zeros(5), np.ones(5)
    grad(x, dx, out, dout, 5)
    want = [math.exp(math.sin(v)) * (math.cos(v) * v + 1.0) for v in x]
    np.testing.assert_allclose(dx, want, rtol=1e-14)
    assert not out.any()  # the primal output was not needed, so it was not written


@pytest.mark.clang
def test_output_read_back_keeps_its_stores(clang, tmp_path) -> None:
    text, gname = _gradient(clang, tmp_path, "layer_sum", ["dup", "dupnoneed", "const"], True)
    grad = compile_ir(text, opt_level=2).function(gname)
    x = np.array([0.1, -0.7, 0.3])
    dx, out, dout = np.zeros(3), np.zeros(3), np.zeros(3)
    grad(x, dx, out, dout, 3, 1.0)
    y = [math.exp(math.sin(v)) * v for v in x]
    want = [2 * yi * math.exp(math.sin(v)) * (math.cos(v) * v + 1.0) for yi, v in zip(y, x, strict=True)]
    np.testing.assert_allclose(dx, want, rtol=1e-13)
