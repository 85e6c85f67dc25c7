"""The simulated grid: CUDA kernels compiled by clang-22, lowered for the CPU, run serially and
with one OS thread per GPU thread, against NumPy references."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from enzyme_py.ad.driver import gradient_module
from enzyme_py.backend import compile_ir
from enzyme_py.errors import ArgumentValueError
from enzyme_py.testing.grid import GridError, SimulatedGrid

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("threaded", [False, True], ids=["serial", "threaded"])
def test_saxpy(corpus: str, threaded: bool) -> None:
    n = 200
    x, y = RNG.random(n, dtype=np.float32), RNG.random(n, dtype=np.float32)
    want = np.float32(2.5) * x + y
    SimulatedGrid(corpus, "saxpy").run((n, 2.5, x, y), grid=4, block=64, threaded=threaded)
    np.testing.assert_allclose(y, want, rtol=3e-7)  # (CUDA contracts a * x + y to an fma)


@pytest.mark.parametrize("threaded", [False, True], ids=["serial", "threaded"])
def test_gather_scatter_with_a_repeated_index(corpus: str, threaded: bool) -> None:
    n = 96
    idx = RNG.integers(0, 5, n).astype(np.int32)  # many threads add into one element
    x, out = RNG.random(n), np.zeros(5)
    SimulatedGrid(corpus, "gather_scatter").run((n, idx, x, out), grid=3, block=32,
                                                threaded=threaded)
    want = np.zeros(5)
    np.add.at(want, idx, x[idx[(np.arange(n) + 1) % n]] * x)
    np.testing.assert_allclose(out, want, rtol=1e-13)


def test_block_reduction_with_barriers(corpus: str) -> None:
    grid = SimulatedGrid(corpus, "block_sum")
    assert grid.needs_threads
    x, out = RNG.random(4 * 64), np.zeros(4)
    grid.run((x, out), grid=4, block=64)
    np.testing.assert_allclose(out, (x * x).reshape(4, 64).sum(axis=1), rtol=1e-13)


def test_barrier_kernels_never_run_serially(corpus: str) -> None:
    with pytest.raises(GridError, match="runs only on the threaded grid"):
        SimulatedGrid(corpus, "block_sum").run((np.zeros(64), np.zeros(1)), 1, 64,
                                               threaded=False)


def test_warp_shuffle_reduction(corpus: str) -> None:
    n = 100  # a partial last warp: its lanes read 0
    x, out = RNG.random(n, dtype=np.float32), np.zeros(1, np.float32)
    SimulatedGrid(corpus, "warp_sum").run((n, x, out), grid=2, block=64)
    np.testing.assert_allclose(out[0], x.sum(dtype=np.float64), rtol=1e-5)


def test_shuffle_up_bfly_and_idx_follow_ptx(corpus: str) -> None:
    x = RNG.random(64, dtype=np.float32)
    scan, mx, bcast = (np.zeros(64, np.float32) for _ in range(3))
    SimulatedGrid(corpus, "warp_modes").run((x, scan, mx, bcast), grid=1, block=64)
    warps = x.reshape(2, 32)
    np.testing.assert_allclose(scan, np.cumsum(warps, axis=1).ravel(), rtol=1e-5)
    np.testing.assert_array_equal(mx, np.repeat(warps.max(axis=1), 32))
    np.testing.assert_array_equal(bcast, np.repeat(warps[:, 3], 32))


def test_stencils(corpus: str) -> None:
    n = 130
    u, v = RNG.random(n), np.zeros(n)
    SimulatedGrid(corpus, "stencil1d").run((n, u, v), grid=3, block=64)
    want = np.zeros(n)
    want[1:-1] = 0.25 * u[:-2] + 0.5 * u[1:-1] + 0.25 * u[2:]
    np.testing.assert_allclose(v, want, rtol=1e-15)
    nx, ny = 20, 13
    u2, v2 = RNG.random((ny, nx)), np.zeros((ny, nx))
    SimulatedGrid(corpus, "stencil2d").run((nx, ny, u2, v2), grid=(3, 2), block=(8, 8))
    c = u2[1:-1, 1:-1]
    lap = 4 * c - u2[1:-1, :-2] - u2[1:-1, 2:] - u2[:-2, 1:-1] - u2[2:, 1:-1]
    np.testing.assert_allclose(v2[1:-1, 1:-1], c - 0.2 * lap, rtol=1e-14)
    assert not v2[0].any() and not v2[:, 0].any()


def test_nvvm_math_becomes_llvm_math(corpus: str) -> None:
    n = 50
    e, p, q = RNG.random(n), RNG.random(n), np.zeros(n)
    SimulatedGrid(corpus, "element_update").run((n, e, p, q), grid=1, block=64)
    c = np.sqrt(e * e + p * p)
    np.testing.assert_allclose(q, c / np.sqrt(1.0 + c) + p, rtol=1e-14)


def test_a_loop_per_thread(corpus: str) -> None:
    n, degree = 70, 5
    coef, x, y = RNG.random(degree + 1), RNG.random(n), np.zeros(n)
    SimulatedGrid(corpus, "horner").run((n, degree, coef, x, y), grid=2, block=64)
    np.testing.assert_allclose(y, np.polyval(coef[::-1], x), rtol=1e-14)


def test_the_threaded_grid_shows_a_data_race(corpus: str) -> None:
    """Threads really run at once: non-atomic read-modify-writes of one element lose updates
    (long runs, so that threads overlap even on a loaded machine), atomic ones never do."""
    reps, threads = 1_000_000, 8
    racy, atomic = SimulatedGrid(corpus, "racy_count"), SimulatedGrid(corpus, "atomic_count")
    lost = []
    for _ in range(6):
        out = np.zeros(1)
        racy.run((reps, out), grid=1, block=threads)
        lost.append(reps * threads - out[0])
        if lost[-1] > 0:
            break
    assert max(lost) > 0, "no lost update in 6 contended runs: are the threads serialized?"
    out = np.zeros(1)
    atomic.run((reps, out), grid=1, block=threads)
    assert out[0] == reps * threads


def test_the_serial_grid_is_an_ordinary_differentiable_function(corpus: str) -> None:
    """The serial loop is plain CPU code: its gradient (enzyme_py's own) is the reference the
    kernel gradients are checked against. Here d/dx of sum(y) for y = a x + y0 is a."""
    module = SimulatedGrid(corpus, "saxpy").serial_module()
    acts = ["const", "const", "dup", "dup"] + ["const"] * 6
    out, name = gradient_module(module, "grid.serial.saxpy", acts, False)
    jm = compile_ir(str(out))
    fn = ctypes.CFUNCTYPE(None, ctypes.c_int32, ctypes.c_float, *[ctypes.c_void_p] * 4,
                          *[ctypes.c_int32] * 6)(jm.address(name))
    n = 100
    x, y = RNG.random(n, dtype=np.float32), RNG.random(n, dtype=np.float32)
    dx, dy = np.zeros(n, np.float32), np.ones(n, np.float32)
    fn(n, 2.5, x.ctypes.data, dx.ctypes.data, y.ctypes.data, dy.ctypes.data, 2, 1, 1, 64, 1, 1)
    np.testing.assert_array_equal(dx, np.full(n, 2.5, np.float32))
    np.testing.assert_array_equal(dy, np.ones(n, np.float32))  # dy/dy: y[i] += ... keeps it


def test_errors_name_the_construct(corpus: str) -> None:
    with pytest.raises(GridError, match="not an NVPTX module"):
        SimulatedGrid("define void @k() {\n  ret void\n}\n", "k")
    with pytest.raises(GridError, match="no function @nope"):
        SimulatedGrid(corpus, "nope")
    odd = corpus.replace("@llvm.nvvm.rsqrt.approx.d", "@llvm.nvvm.mystery.d")
    with pytest.raises(GridError, match=r"cannot run @llvm\.nvvm\.mystery\.d \(in @element_"):
        SimulatedGrid(odd, "element_update")
    grid = SimulatedGrid(corpus, "saxpy")
    with pytest.raises(ArgumentValueError, match="takes 4 arguments"):
        grid.run((1, 2.0), 1, 1)
    ro = np.zeros(4, np.float32)
    ro.setflags(write=False)
    with pytest.raises(ArgumentValueError, match="C-contiguous, writeable"):
        grid.run((4, 1.0, np.zeros(4, np.float32), ro), 1, 4)
    with pytest.raises(ArgumentValueError, match="grid and block sizes"):
        grid.run((4, 1.0, np.zeros(4, np.float32), np.zeros(4, np.float32)), 0, 4)
