"""Vector forward mode: `width=k` propagates k directions in one sweep, and lane j equals the
width-1 derivative along direction j (bit for bit: the same rules on the same values)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from enzyme_py.ir import parse
from tests.conftest import compile_c, find_clang

from . import test_forward_numeric as K
from .fwd_util import Compiled

W = 4


def test_scalars_width4_equals_four_calls() -> None:
    one = Compiled(K.STRAIGHT, "f", ["dup", "dup", "const"])
    four = Compiled(K.STRAIGHT, "f", ["dup", "dup", "const"], width=W)
    assert str(four.result_type) == "{ double, [4 x double] }"
    rng = np.random.default_rng(0)
    x, y = 0.4, -0.9
    V = rng.standard_normal((W, 2))
    got = four.fwd(x, *V[:, 0], y, *V[:, 1], 3)
    # the same arithmetic, except that libm calls the vectorizer batches go to glibc's
    # libmvec (within 4 ulp of the scalar functions): equal to a few ulp
    assert got[0] == pytest.approx(one.fwd(x, 0.0, y, 0.0, 3)[0], rel=4e-15, abs=1e-300)
    for j in range(W):
        assert got[1 + j] == pytest.approx(one.fwd(x, V[j, 0], y, V[j, 1], 3)[1], rel=4e-15,
                                           abs=1e-300)


@pytest.mark.parametrize("ir,fname", [(K.BRANCHY, "f"), (K.WHILE, "f"), (K.VECTOR, "f")],
                         ids=["branchy", "while", "vector"])
def test_control_flow_and_vectors(ir, fname) -> None:
    nf = sum(1 for a in parse(ir).get_function(fname).args if a.type.is_float)
    one = Compiled(ir, fname, ["dup"] * nf)
    four = Compiled(ir, fname, ["dup"] * nf, width=W)
    rng = np.random.default_rng(1)
    x = rng.uniform(0.1, 0.9, nf)
    x[1:] *= 0.1
    V = rng.standard_normal((W, nf))
    got = four.fwd(*[z for i in range(nf) for z in (x[i], *V[:, i])])
    for j in range(W):
        want = one.fwd(*[z for i in range(nf) for z in (x[i], V[j, i])])
        np.testing.assert_array_equal(got[[0, 1 + j]], want)


@pytest.mark.parametrize("n", [0, 5, 17])
def test_memory_width4_equals_four_calls(n) -> None:
    one = Compiled(K.INPLACE, "f", ["dup", "dup", "dup", "const"])
    four = Compiled(K.INPLACE, "f", ["dup", "dup", "dup", "const"], width=W)
    assert four.result_type.is_void
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    dX, dY, da = rng.standard_normal((W, n)), rng.standard_normal((W, n)), rng.standard_normal(W)
    xs, tx, ty = x.copy(), [d.copy() for d in dX], [d.copy() for d in dY]
    four.fwd(xs, *tx, y.copy(), *ty, 0.5, *da, n)
    for j in range(W):
        x1, t1, u1 = x.copy(), dX[j].copy(), dY[j].copy()
        one.fwd(x1, t1, y.copy(), u1, 0.5, da[j], n)
        np.testing.assert_array_equal(xs, x1)
        np.testing.assert_array_equal(tx[j], t1)
        np.testing.assert_array_equal(ty[j], u1)


def test_loop_width8_and_tangent_only() -> None:
    eight = Compiled(K.PRODUCT_LOOP, "prod", ["dup", "const"], width=8, return_primal=False)
    one = Compiled(K.PRODUCT_LOOP, "prod", ["dup", "const"], return_primal=False)
    assert str(eight.result_type) == "[8 x double]"
    rng = np.random.default_rng(8)
    x = rng.uniform(0.5, 1.5, 12)
    D = rng.standard_normal((8, 12))
    got = eight.fwd(x, *D, 12)
    np.testing.assert_array_equal(got, [one.fwd(x, D[j], 12)[0] for j in range(8)])


@pytest.mark.clang
def test_clang_o2_vectorized_loop(tmp_path) -> None:
    clang = find_clang()
    if clang is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    src = tmp_path / "k.c"
    src.write_text(K.C_KERNELS)
    ll = compile_c(clang, src, tmp_path / "k.ll", "-O2")
    assert re.search(r"<\d+ x double>", ll)  # the loop is vectorized (any width)
    one = Compiled(ll, "norm_exp", ["dup", "dup", "const"])
    four = Compiled(ll, "norm_exp", ["dup", "dup", "const"], width=W)
    n = 37
    rng = np.random.default_rng(4)
    x, w = rng.uniform(-1, 1, n), rng.uniform(0.1, 1, n)
    DX, DW = rng.standard_normal((W, n)), rng.standard_normal((W, n))
    got = four.fwd(x, *DX, w, *DW, n)
    for j in range(W):
        np.testing.assert_allclose(got[[0, 1 + j]], one.fwd(x, DX[j], w, DW[j], n),
                                   rtol=1e-14)
