"""Forward against reverse mode: for the Jacobian J of a function at a point, the jvp of our
forward mode and the vjp of our reverse mode are transposes, <vjp(u), v> == <u, jvp(v)>, for
random u and v; scalars, loops, branches, in-place memory, float, and clang -O2 output."""

from __future__ import annotations

import numpy as np
import pytest

from enzyme_py.ad.driver import gradient_module
from enzyme_py.backend import compile_ir
from enzyme_py.ir import parse
from tests.conftest import compile_c, find_clang

from . import test_forward_numeric as K
from .fwd_util import Compiled


def _reverse(ir: str, fname: str, acts: list[str], ret: bool):
    out, name = gradient_module(parse(ir), fname, acts, ret, opt_level=2)
    return compile_ir(str(out), opt_level=2).function(name)


def _assert_identity(lhs: float, rhs: float) -> None:
    assert np.isclose(lhs, rhs, rtol=1e-10, atol=1e-12), (lhs, rhs)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ir,fname,scale", [(K.STRAIGHT, "f", 1.0), (K.BRANCHY, "f", 1.0),
                                            (K.WHILE, "f", 0.1), (K.VECTOR, "f", 1.0)],
                         ids=["straight", "branchy", "while", "vector"])
def test_scalar_functions(ir, fname, scale, seed) -> None:
    fn = parse(ir).get_function(fname)
    nfloat = sum(1 for a in fn.args if a.type.is_float)
    extra = [2] * (len(fn.args) - nfloat)  # the integer arguments
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.2, 1.2, nfloat)
    x[1:] *= scale  # WHILE: a small contraction constant, or the loop never ends
    v = rng.standard_normal(nfloat)
    u = float(rng.standard_normal())
    fwd = Compiled(ir, fname, ["dup"] * nfloat + ["const"] * len(extra))
    rev = _reverse(ir, fname, ["out"] * nfloat + ["const"] * len(extra), True)
    jvp = fwd.fwd(*[z for pair in zip(x, v, strict=True) for z in pair], *extra)[1]
    g = np.atleast_1d(np.asarray(rev(*x, *extra, u)))
    _assert_identity(float(g @ v), u * jvp)


@pytest.mark.parametrize("n", [1, 4, 11])
def test_in_place_memory(n) -> None:
    """x <- x*y + a: x is read and overwritten, y only read, a a scalar."""
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n), rng.standard_normal(n)
    vx, vy, u = rng.standard_normal(n), rng.standard_normal(n), rng.standard_normal(n)
    a, va = 0.3, float(rng.standard_normal())
    fwd = Compiled(K.INPLACE, "f", ["dup", "dup", "dup", "const"])
    tx = vx.copy()
    fwd.fwd(x.copy(), tx, y.copy(), vy.copy(), a, va, n)
    rev = _reverse(K.INPLACE, "f", ["dup", "dup", "out", "const"], False)
    ax, ay = u.copy(), np.zeros(n)  # the seed of the new x; y's adjoint accumulates
    aa = rev(x.copy(), ax, y.copy(), ay, a, n)
    _assert_identity(float(u @ tx), float(ax @ vx + ay @ vy + aa * va))


@pytest.mark.clang
@pytest.mark.parametrize("n", [3, 37])
def test_clang_o2_kernels(n, tmp_path) -> None:
    clang = find_clang()
    if clang is None:
        pytest.skip("clang-22 is not installed (apt-get install clang-22); CI installs it")
    src = tmp_path / "k.c"
    src.write_text(K.C_KERNELS)
    ll = compile_c(clang, src, tmp_path / "k.ll", "-O2")
    rng = np.random.default_rng(n)
    # norm_exp: R^2n -> R
    x, w = rng.uniform(-1, 1, n), rng.uniform(0.1, 1, n)
    vx, vw, u = rng.standard_normal(n), rng.standard_normal(n), float(rng.standard_normal())
    jvp = Compiled(ll, "norm_exp", ["dup", "dup", "const"]).fwd(x, vx, w, vw, n)[1]
    gx, gw = np.zeros(n), np.zeros(n)
    _reverse(ll, "norm_exp", ["dup", "dup", "const"], True)(x, gx, w, gw, n, u)
    _assert_identity(float(gx @ vx + gw @ vw), u * jvp)
    # smooth: (x, a) -> y[1:n-1]
    m = n + 2
    x, vx, uy = rng.standard_normal(m), rng.standard_normal(m), rng.standard_normal(m)
    ty = np.zeros(m)
    Compiled(ll, "smooth", ["dup", "dup", "dup", "const"]).fwd(
        np.zeros(m), ty, x, vx, 0.3, 0.7, m)
    ay, ax = uy.copy(), np.zeros(m)
    aa = _reverse(ll, "smooth", ["dup", "dup", "out", "const"], False)(
        np.zeros(m), ay, x, ax, 0.3, m)
    _assert_identity(float(uy @ ty), float(ax @ vx + aa * 0.7))
