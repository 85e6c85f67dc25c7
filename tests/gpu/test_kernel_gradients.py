"""Derivative kernels of the CUDA corpus (`kernels/corpus.cu`), run on the simulated grid and
checked three ways: against JAX twins of the kernels (reverse: `jax.vjp`, forward:
`jax.jvp`), against enzyme_py's own gradient of the serial grid (an ordinary CPU function),
and, for the atomics, under the threaded grid with contention amplified (without atomics the
same check loses updates)."""

from __future__ import annotations

import ctypes
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from enzyme_py.ad.driver import gradient_module
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.analysis.gpu import is_kernel, thread_owned
from enzyme_py.api.kernels import KernelDerivatives, kernel_derivatives
from enzyme_py.backend import compile_ir
from enzyme_py.errors import ArgumentValueError
from enzyme_py.ir import parse
from enzyme_py.passes import Pipeline, pass_text
from enzyme_py.testing.grid import SimulatedGrid

jax.config.update("jax_enable_x64", True)
RNG = np.random.default_rng(11)
F32, F64 = np.float32, np.float64
SERIAL_THREADED = pytest.mark.parametrize("threaded", [False, True], ids=["serial", "threaded"])


@pytest.fixture(scope="module")
def derived(corpus: str):
    cache: dict[tuple, KernelDerivatives] = {}

    def get(name: str, acts=None, tacts=None) -> KernelDerivatives:
        key = (name, tuple(acts or ()), tuple(tacts or ()))
        if key not in cache:
            cache[key] = kernel_derivatives(corpus, name, activities=acts,
                                            tangent_activities=tacts)
        return cache[key]

    return get


def run(d: KernelDerivatives, which: str, args, grid, block, threaded=None) -> None:
    SimulatedGrid(d.ir, which).run(args, grid=grid, block=block, threaded=threaded)


def vjp(f, primals, seeds):
    out, back = jax.vjp(f, *primals)
    return [np.asarray(g) for g in back(seeds)]


def jvp(f, primals, tangents):
    out, tan = jax.jvp(f, tuple(primals), tuple(tangents))
    return np.asarray(out), np.asarray(tan)


def rand(*shape, dtype=F64):
    return RNG.random(shape).astype(dtype)


# --- element-wise, stencils, per-thread loops: serial and threaded grids -----------------------


@pytest.mark.parametrize("block", [(64,), (48,)], ids=["64", "48"])
def test_saxpy_float32_gradient(derived, block) -> None:
    """The scalar `a`'s adjoint is summed per warp (shuffles, so the threaded grid) and added
    once per warp, with full warps and with a partial last warp (48 = 32 + 16)."""
    d = derived("saxpy")
    n, a = 200, F32(2.5)
    grid = -(-n // block[0])
    x, y0, seed = rand(n, dtype=F32), rand(n, dtype=F32), rand(n, dtype=F32)
    da, dx, y, dy = np.zeros(1, F32), np.zeros(n, F32), y0.copy(), seed.copy()
    run(d, d.gradient, (n, a, da, x, dx, y, dy), grid, block, threaded=True)
    want = vjp(lambda a, x, y: a * x + y, (a, x, y0), seed)
    np.testing.assert_allclose(da[0], want[0], rtol=1e-5)  # (sums in any order)
    np.testing.assert_allclose(dx, want[1], rtol=1e-6)
    np.testing.assert_allclose(dy, want[2], rtol=1e-6)


@SERIAL_THREADED
def test_saxpy_float32_tangent(derived, threaded: bool) -> None:
    d = derived("saxpy")
    n, a = 200, F32(2.5)
    x, y0 = rand(n, dtype=F32), rand(n, dtype=F32)
    ta, tx, ty0 = F32(0.5), rand(n, dtype=F32), rand(n, dtype=F32)
    y, ty = y0.copy(), ty0.copy()
    run(d, d.tangent, (n, a, ta, x, tx, y, ty), 4, 64, threaded)
    out, tan = jvp(lambda a, x, y: a * x + y, (a, x, y0), (ta, tx, ty0))
    np.testing.assert_allclose(y, out, rtol=3e-7)
    np.testing.assert_allclose(ty, tan, rtol=1e-6)


def _stencil1d(u):
    return jnp.zeros_like(u).at[1:-1].set(0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:])


@SERIAL_THREADED
def test_stencil1d(derived, threaded: bool) -> None:
    d = derived("stencil1d")
    n = 130
    u, seed = rand(n), rand(n)
    du, v, dv = np.zeros(n), np.zeros(n), seed.copy()
    run(d, d.gradient, (n, u, du, v, dv), 3, 64, threaded)
    (want,) = vjp(_stencil1d, (u,), seed)
    np.testing.assert_allclose(du, want, rtol=1e-14)
    t = rand(n)
    v, tv = np.zeros(n), np.zeros(n)
    run(d, d.tangent, (n, u, t, v, tv), 3, 64, threaded)
    np.testing.assert_allclose(tv, jvp(_stencil1d, (u,), (t,))[1], rtol=1e-14)


def _stencil2d(u):
    c = u[1:-1, 1:-1]
    lap = 4 * c - u[1:-1, :-2] - u[1:-1, 2:] - u[:-2, 1:-1] - u[2:, 1:-1]
    return jnp.zeros_like(u).at[1:-1, 1:-1].set(c - 0.2 * lap)


def test_stencil2d_on_2d_blocks(derived) -> None:
    d = derived("stencil2d")
    nx, ny = 20, 13
    u, seed = rand(ny, nx), rand(ny, nx)
    du, v, dv = np.zeros((ny, nx)), np.zeros((ny, nx)), seed.copy()
    run(d, d.gradient, (nx, ny, u, du, v, dv), (3, 2), (8, 8))
    (want,) = vjp(_stencil2d, (u,), seed)
    np.testing.assert_allclose(du, want, rtol=1e-13)
    t = rand(ny, nx)
    v, tv = np.zeros((ny, nx)), np.zeros((ny, nx))
    run(d, d.tangent, (nx, ny, u, t, v, tv), (3, 2), (8, 8))
    np.testing.assert_allclose(tv, jvp(_stencil2d, (u,), (t,))[1], rtol=1e-13)


def test_element_update_with_nvvm_math(derived) -> None:
    """`llvm.nvvm.rsqrt.approx.d`, `sqrt.rn`/`fma.rn` (LLVM's after -O2): their rules hold on
    the device too (the grid runs them as LLVM's exact math)."""
    d = derived("element_update")
    n = 100
    e, p, seed = rand(n) + 0.1, rand(n) + 0.1, rand(n)
    de, dp, q, dq = np.zeros(n), np.zeros(n), np.zeros(n), seed.copy()
    run(d, d.gradient, (n, e, de, p, dp, q, dq), 2, 64)

    def f(e, p):
        c = jnp.sqrt(e * e + p * p)
        return c / jnp.sqrt(1.0 + c) + p

    want = vjp(f, (e, p), seed)
    np.testing.assert_allclose(de, want[0], rtol=1e-13)
    np.testing.assert_allclose(dp, want[1], rtol=1e-13)
    te, tp = rand(n), rand(n)
    q, tq = np.zeros(n), np.zeros(n)
    run(d, d.tangent, (n, e, te, p, tp, q, tq), 2, 64)
    np.testing.assert_allclose(tq, jvp(f, (e, p), (te, tp))[1], rtol=1e-13)


def test_horner_a_loop_per_thread(derived) -> None:
    d = derived("horner")
    n, degree = 70, 6
    coef, x, seed = rand(degree + 1), rand(n), rand(n)
    dcoef, dx, y, dy = np.zeros(degree + 1), np.zeros(n), np.zeros(n), seed.copy()
    run(d, d.gradient, (n, degree, coef, dcoef, x, dx, y, dy), 2, 64)

    def f(coef, x):
        return sum(coef[k] * x ** k for k in range(degree + 1))

    want = vjp(f, (coef, x), seed)
    np.testing.assert_allclose(dcoef, want[0], rtol=1e-12)  # (summed over threads)
    np.testing.assert_allclose(dx, want[1], rtol=1e-12)
    tc, tx = rand(degree + 1), rand(n)
    y, ty = np.zeros(n), np.zeros(n)
    run(d, d.tangent, (n, degree, coef, tc, x, tx, y, ty), 2, 64)
    np.testing.assert_allclose(ty, jvp(f, (coef, x), (tc, tx))[1], rtol=1e-12)


def test_xsbench_table_lookup(derived) -> None:
    """A binary search (integer control flow) then an interpolation: the adjoints of the
    table entries are a scatter with a repeated index (atomics)."""
    d = derived("xs_lookup")
    n, m = 150, 24
    egrid = np.sort(RNG.random(m)) * 10
    egrid[0], egrid[-1] = 0.0, 10.0
    xs, energy, seed = rand(m), RNG.uniform(0.1, 9.9, n), rand(n)
    dgrid, dxs, denergy = np.zeros(m), np.zeros(m), np.zeros(n)
    out, dout = np.zeros(n), seed.copy()
    run(d, d.gradient, (n, m, egrid, dgrid, xs, dxs, energy, denergy, out, dout), 3, 64,
        threaded=True)
    lo = np.searchsorted(egrid, energy, side="right") - 1  # the kernel's search, in numpy

    def f(egrid, xs, energy):
        frac = (energy - egrid[lo]) / (egrid[lo + 1] - egrid[lo])
        return xs[lo] + frac * (xs[lo + 1] - xs[lo])

    want = vjp(f, (egrid, xs, energy), seed)
    np.testing.assert_allclose(out, f(egrid, xs, energy), rtol=1e-14)
    for got, w in zip((dgrid, dxs, denergy), want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-11, atol=1e-13)


# --- atomics in the primal, shared memory and barriers, warp shuffles ------------------------


def test_gather_scatter_with_a_repeated_index(derived) -> None:
    d = derived("gather_scatter")
    n = 96
    idx = RNG.integers(0, 5, n).astype(np.int32)
    nxt = idx[(np.arange(n) + 1) % n]
    x, out0, seed = rand(n), rand(5), rand(5)
    dx, out, dout = np.zeros(n), out0.copy(), seed.copy()
    run(d, d.gradient, (n, idx, np.zeros(n, np.int32), x, dx, out, dout), 3, 32, threaded=True)

    def f(x, out):
        return out.at[idx].add(x[nxt] * x)

    want = vjp(f, (x, out0), seed)
    np.testing.assert_allclose(dx, want[0], rtol=1e-13)
    np.testing.assert_allclose(dout, want[1], rtol=1e-15)  # (read, not consumed)
    tx, tout0 = rand(n), rand(5)
    out, tout = out0.copy(), tout0.copy()
    run(d, d.tangent, (n, idx, np.zeros(n, np.int32), x, tx, out, tout), 3, 32, threaded=True)
    np.testing.assert_allclose(tout, jvp(f, (x, out0), (tx, tout0))[1], rtol=1e-13)


def test_block_reduction_in_shared_memory(derived) -> None:
    """Barriers mirrored in the reverse sweep; the shared buffer's shadow cleared by the first
    thread behind a barrier."""
    d = derived("block_sum")
    blocks = 4
    x, seed = rand(64 * blocks), rand(blocks)
    dx, out, dout = np.zeros(64 * blocks), np.zeros(blocks), seed.copy()
    run(d, d.gradient, (x, dx, out, dout), blocks, 64)

    def f(x):
        return (x * x).reshape(blocks, 64).sum(axis=1)

    (want,) = vjp(f, (x,), seed)
    np.testing.assert_allclose(dx, want, rtol=1e-14)
    np.testing.assert_allclose(out, f(x), rtol=1e-14)
    tx = rand(64 * blocks)
    out, tout = np.zeros(blocks), np.zeros(blocks)
    run(d, d.tangent, (x, tx, out, tout), blocks, 64)
    np.testing.assert_allclose(tout, jvp(f, (x,), (tx,))[1], rtol=1e-13)


def test_warp_shuffles(derived) -> None:
    """down (a reduction), up (a scan), bfly (a max) and idx (a broadcast): each shuffle's
    adjoint is the transpose of its lane map (with the clamped lanes reading themselves)."""
    d = derived("warp_sum")
    n = 100  # a partial last warp
    x, seed = rand(n, dtype=F32), F32(0.75)
    dx, out, dout = np.zeros(n, F32), np.zeros(1, F32), np.full(1, seed, F32)
    run(d, d.gradient, (n, x, dx, out, dout), 2, 64)
    np.testing.assert_allclose(dx, np.full(n, seed, F32), rtol=1e-6)
    tx = rand(n, dtype=F32)
    out, tout = np.zeros(1, F32), np.zeros(1, F32)
    run(d, d.tangent, (n, x, tx, out, tout), 2, 64)
    np.testing.assert_allclose(tout[0], tx.sum(dtype=F64), rtol=1e-5)

    m = derived("warp_modes")
    x = rand(64, dtype=F32)
    seeds = [rand(64, dtype=F32) for _ in range(3)]
    dx = np.zeros(64, F32)
    bufs = [np.zeros(64, F32) for _ in range(3)]
    run(m, m.gradient, (x, dx, bufs[0], seeds[0].copy(), bufs[1], seeds[1].copy(), bufs[2],
                        seeds[2].copy()), 1, 64)

    def f(x):
        w = x.reshape(2, 32)
        return (jnp.cumsum(w, axis=1).ravel(), jnp.repeat(w.max(axis=1), 32),
                jnp.repeat(w[:, 3], 32))

    (want,) = vjp(f, (x,), tuple(seeds))
    np.testing.assert_allclose(dx, want, rtol=2e-5, atol=1e-6)
    tx = rand(64, dtype=F32)
    outs = [np.zeros(64, F32) for _ in range(6)]
    run(m, m.tangent, (x, tx, outs[0], outs[1], outs[2], outs[3], outs[4], outs[5]), 1, 64)
    _, tans = jvp(f, (x,), (tx,))
    for got, w in zip(outs[1::2], tans, strict=True):
        np.testing.assert_allclose(got, w, rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize(("block", "rows"), [((64,), 1), ((32, 2), 2), ((16, 3), 3)],
                         ids=["64", "32x2", "16x3"])
def test_a_thread_owned_element_needs_no_atomic_when_the_launch_is_1d(derived, block,
                                                                      rows) -> None:
    """`x[gid]` is all `sum_squares` reads of x: under a 1-D launch each thread owns its
    element of dx (a plain add); launched with 2-D blocks `rows` threads share each gid, and
    the gradient's launch check takes the atomic path, so every contribution arrives. The
    scalar `a`'s adjoint is summed per warp, whose lanes span rows then."""
    d = derived("sum_squares", ["const", "out", "dup", "dup"])
    grad = d.ir[d.ir.index(f"@{d.gradient}("):]
    grad = grad[:grad.index("\n}\n")]
    assert "%grid.1d = " in grad and "acc.plain" in grad and "warp.leader" in grad
    n, a = 64, 1.5
    x = rand(n)
    da, dx, out, dout = np.zeros(1), np.zeros(n), np.zeros(1), np.full(1, 0.5)
    run(d, d.gradient, (n, a, da, x, dx, out, dout), n // block[0], block, threaded=True)
    np.testing.assert_allclose(dx, rows * 2 * a * x * 0.5, rtol=1e-15)
    np.testing.assert_allclose(da[0], rows * (x * x).sum() * 0.5, rtol=1e-13)
    np.testing.assert_allclose(out[0], rows * a * (x * x).sum(), rtol=1e-13)


def test_thread_ownership_is_proved_per_array(corpus: str) -> None:
    """Only arrays every access reaches at the thread's own index are owned, and only when
    no other access may reach them (arguments without `__restrict__` may alias)."""
    module = parse(corpus)
    owned = {k: {a.index for a in thread_owned(list(module.get_function(k).instructions()))}
             for k in ("saxpy", "stencil1d", "gather_scatter", "sum_squares", "stencil2d")}
    assert owned["saxpy"] == {2, 3}  # x[i], y[i]
    assert owned["stencil1d"] == set()  # v[i], but v may be u, read at i - 1 and i + 1
    assert owned["gather_scatter"] == set()  # x[idx[...]], out[idx[i]]; idx[(i + 1) % n]
    assert owned["sum_squares"] == {2}
    assert owned["stencil2d"] == set()  # j * nx + i: not the 1-D thread index


# --- the serial grid's own gradient as a reference --------------------------------------------


def _serial_gradient(corpus: str, kernel: str, acts: list[str]):
    module = SimulatedGrid(corpus, kernel).serial_module()
    out, name = gradient_module(module, f"grid.serial.{kernel}", acts + ["const"] * 6, False)
    jm = compile_ir(str(out))
    fn = module.get_function(f"grid.serial.{kernel}")
    types = {"i32": ctypes.c_int32, "float": ctypes.c_float, "double": ctypes.c_double}
    params = []
    for a, act in zip(fn.args, acts + ["const"] * 6, strict=True):
        params.append(types.get(str(a.type), ctypes.c_void_p))
        if act == "dup":
            params.append(ctypes.c_void_p)
    cfunc = ctypes.CFUNCTYPE(None, *params)(jm.address(name))
    return cfunc, jm


def _c(a):
    return a.ctypes.data if isinstance(a, np.ndarray) else a


def _serial_case(kernel: str, n: int) -> tuple[list[str], list]:
    """Activities of the kernel's arguments, and the gradient kernel's arguments (each dup
    argument followed by its shadow: the outputs' seeded, the inputs' zero)."""
    if kernel == "stencil1d":
        return ["const", "dup", "dup"], [n, rand(n), np.zeros(n), np.zeros(n), rand(n)]
    if kernel == "element_update":
        return ["const", "dup", "dup", "dup"], [n, rand(n) + 0.1, np.zeros(n), rand(n) + 0.1,
                                                np.zeros(n), np.zeros(n), rand(n)]
    if kernel == "horner":
        return ["const", "const", "dup", "dup", "dup"], [
            n, 4, rand(5), np.zeros(5), rand(n), np.zeros(n), np.zeros(n), rand(n)]
    if kernel == "gather_scatter":
        idx = RNG.integers(0, 7, n).astype(np.int32)
        return ["const", "const", "dup", "dup"], [n, idx, rand(n), np.zeros(n), rand(7),
                                                  rand(7)]
    grid = np.linspace(0.0, 10.0, 16)
    return ["const", "const", "dup", "dup", "dup", "dup"], [
        n, 16, grid.copy(), np.zeros(16), rand(16), np.zeros(16), RNG.uniform(0.1, 9.9, n),
        np.zeros(n), np.zeros(n), rand(n)]


@pytest.mark.parametrize("kernel", ["stencil1d", "element_update", "horner", "gather_scatter",
                                    "xs_lookup"])
def test_agrees_with_the_gradient_of_the_serial_grid(corpus: str, derived, kernel: str) -> None:
    n = 90
    acts, args = _serial_case(kernel, n)
    ours = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    d = derived(kernel, acts)
    run(d, d.gradient, ours, 2, 64, threaded=kernel != "stencil1d")
    fn, _jm = _serial_gradient(corpus, kernel, acts)
    fn(*(_c(a) for a in args), 2, 1, 1, 64, 1, 1)
    for got, want in zip(ours, args, strict=True):
        if isinstance(got, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


# --- the race the atomics prevent -------------------------------------------------------------


def _shared_weight_gradient(corpus: str, atomics: bool) -> SimulatedGrid:
    text = ",".join([pass_text("prepare", fn=["shared_weight"]),
                     pass_text("reverse", fn="shared_weight",
                               acts=["const", "const", "dup", "const", "dup"],
                               ret="const", atomics=None if atomics else False),
                     "O2"])
    module = Pipeline.parse(text).run(parse(corpus))
    return SimulatedGrid(module, "diffe_shared_weight")


def test_atomics_prevent_lost_updates_and_the_test_can_fail(corpus: str) -> None:
    """64 threads each add 40,000 times into four shared adjoints: exact with atomics; the
    same gradient without them loses updates (so this check can fail)."""
    reps, threads = 40_000, 64
    idx = (np.arange(reps) % 4).astype(np.int32)
    x = np.ones(threads)
    want = np.full(4, threads * reps / 4)

    def gradient_of_w(grid: SimulatedGrid) -> np.ndarray:
        dw = np.zeros(4)
        grid.run((reps, idx, np.ones(4), dw, x, np.zeros(threads), np.ones(threads)), 1,
                 threads, threaded=True)
        return dw

    np.testing.assert_array_equal(gradient_of_w(_shared_weight_gradient(corpus, True)), want)
    racy = _shared_weight_gradient(corpus, False)
    lost = [want.sum() - gradient_of_w(racy).sum() for _ in range(4)]
    assert max(lost) > 0, "no update lost without atomics: the race test could not fail"


# --- what the IR says ---------------------------------------------------------------------------


def test_a_kernel_gives_kernels(derived) -> None:
    d = derived("saxpy")
    m = parse(d.ir)
    for name in (d.gradient, d.tangent):
        fn = m.get_function(name)
        assert is_kernel(fn) and fn.return_type.is_void
    grad = d.ir[d.ir.index(f"@{d.gradient}("):]
    grad = grad[:grad.index("\n}\n")]
    assert "atomicrmw fadd ptr %2, float" in grad  # the scalar `a`'s adjoint, every thread
    ptx = d.ptx(sm=80)
    assert ".visible .entry diffe_saxpy(" in ptx and ".visible .entry fwddiffe_saxpy(" in ptx
    assert re.search(r"\b(red|atom)(\.global)?\.add\.f32\b", ptx)


def test_device_errors_are_clear(corpus: str) -> None:
    with pytest.raises(ArgumentValueError, match="not a GPU kernel"):
        kernel_derivatives("define void @f() {\n  ret void\n}\n", "f")
    with pytest.raises(ArgumentValueError, match="no function @nope"):
        kernel_derivatives(corpus, "nope")
    bad = _unbounded_loop_kernel()
    with pytest.raises(DifferentiationError, match="no malloc on the device"):
        kernel_derivatives(bad, "k", forward=False)


def _unbounded_loop_kernel() -> str:
    """A per-thread loop whose trip count is known only as it runs (a while over data), whose
    values the reverse sweep needs: no tape can be sized for it on the device."""
    return """target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr %x, ptr %y) {
entry:
  %v = load double, ptr %x
  br label %loop

loop:
  %acc = phi double [ %v, %entry ], [ %next, %loop ]
  %next = fmul double %acc, %acc
  %big = fcmp olt double %next, 1.0e10
  br i1 %big, label %loop, label %done

done:
  store double %next, ptr %y
  ret void
}
"""


ANNOTATED = """target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

define void @square(ptr %x) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = zext i32 %t to i64
  %p = getelementptr float, ptr %x, i64 %i
  %v = load float, ptr %p
  %w = fmul float %v, %v
  store float %w, ptr %p
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{ptr @square, !"kernel", i32 1}
"""


def test_a_kernel_marked_by_nvvm_annotations() -> None:
    """IR of front ends before LLVM 20 marks kernels in `!nvvm.annotations`, not with the
    `ptx_kernel` calling convention; the derivatives are `ptx_kernel` kernels either way."""
    d = kernel_derivatives(ANNOTATED, "square")
    assert is_kernel(parse(d.ir).get_function(d.gradient))
    x = rand(32, dtype=F32)
    dx = np.ones(32, F32)
    run(d, d.gradient, (x.copy(), dx), 1, 32)
    np.testing.assert_allclose(dx, 2 * x, rtol=1e-6)
