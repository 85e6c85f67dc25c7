# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 8. GPU kernels
#
# A CUDA kernel is compiled by clang to LLVM IR for the NVPTX target, and that IR is what
# enzyme_py differentiates: from a kernel `k` it builds a gradient kernel `diffe_k` (reverse
# mode) and a tangent kernel `fwddiffe_k` (forward mode), ordinary kernels in the same module,
# launched with a grid and a block like `k` itself. Emitting PTX and checking the derivatives
# need no GPU: a simulated grid runs any kernel of the module on the CPU.
#
# This notebook:
#
# - compiles three small CUDA kernels with clang-22 (no CUDA SDK needed);
# - builds their gradient and tangent kernels, and reads the parts of the IR that make them
#   kernels: the signature, the atomic accumulation, the barriers of the reverse sweep;
# - runs them on the simulated grid and checks them against `jax.vjp` and `jax.jvp`;
# - shows on a threaded grid why the gradient accumulates atomically: without atomics,
#   updates are lost;
# - emits PTX (from Python and from the command line) and differentiates with
#   `__enzyme_autodiff` inside device code;
# - launches on a real GPU, where there is one (this notebook was run without).
#
# It needs `clang-22`, which compiles CUDA device code without the CUDA SDK.

# %%
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import numpy as np

import enzyme_py.ad.driver  # noqa: F401  (registers the AD passes, for the Pipeline below)
from enzyme_py import gpu
from enzyme_py.api.kernels import kernel_derivatives
from enzyme_py.errors import CallError
from enzyme_py.ir import parse
from enzyme_py.passes import Pipeline, pass_text
from enzyme_py.testing.grid import GridError, SimulatedGrid

jax.config.update("jax_enable_x64", True)
CLANG = shutil.which("clang-22")
if CLANG is None:
    raise RuntimeError("this notebook needs clang-22 (on Debian/Ubuntu: apt-get install "
                       "clang-22)")
CUDA = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudainc",
        "-nocudalib", "-emit-llvm", "-S", "-O2", "-Wno-unknown-cuda-version"]
work = Path(tempfile.mkdtemp(prefix="enzyme_py_gpu_"))
rng = np.random.default_rng(0)
F32 = np.float32


def run(*cmd, cwd=work):
    """Run a command (in the work directory), show it with short names, return its output."""
    shown = " ".join(Path(c).name if Path(c).is_absolute() else c for c in cmd)
    print("$", shown.replace(f"{Path(sys.executable).name} -m enzyme_py", "enzyme-py")
          .replace(Path(sys.executable).name, "python", 1))
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{shown} failed ({res.returncode}):\n{res.stderr}")
    return res.stdout


def function_text(ir, name):
    """The text of `@name`'s definition in a module."""
    start = ir.index(f"@{name}(")
    return ir[ir.rindex("\n", 0, start) + 1:ir.index("\n}\n", start) + 2]


ATTRIBUTES = re.compile(r"(?<!,) (noundef|noalias|readonly|writeonly|nonnull|captures\(none\)"
                        r"|align \d+|dereferenceable\(\d+\))")


def tidy(line, width=104):
    """A line of IR without its parameter attributes, stripped and cut at `width`."""
    line = ATTRIBUTES.sub("", line).strip()
    return line if len(line) <= width else line[:width - 4] + " ..."


def show(text, pattern):
    """The lines of `text` that match `pattern`."""
    for line in text.splitlines():
        if re.search(pattern, line):
            print(tidy(line))


def show_span(text, start, end):
    """The lines of `text` from the first that matches `start` to the next that matches
    `end`."""
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if re.search(start, line))
    j = next(k for k in range(i, len(lines)) if re.search(end, lines[k]))
    for line in lines[i:j + 1]:
        print(tidy(line))

# %% [markdown]
# ## Three kernels, compiled by clang-22
#
# clang compiles CUDA device code by itself with `--cuda-device-only -nocudainc -nocudalib`;
# without the SDK's headers, a few defines stand in for them (`threadIdx_x` for
# `threadIdx.x`, through clang's builtins for the PTX special registers). The kernels:
#
# - `saxpy`: `y = a x + y` in float32, one element per thread;
# - `block_sumsq`: each block of 64 threads sums the squares of its 64 elements, a tree
#   reduction in shared memory with `__syncthreads()` between the levels;
# - `shared_weight`: every thread reads the same four weights `w[idx[r]]`, over and over
#   (we come back to it when we talk about atomics).

# %%
kernels_cu = r"""
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define threadIdx_x __nvvm_read_ptx_sreg_tid_x()
#define blockIdx_x __nvvm_read_ptx_sreg_ctaid_x()
#define blockDim_x __nvvm_read_ptx_sreg_ntid_x()
#define __syncthreads() __nvvm_barrier_sync(0)

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void block_sumsq(const double *x, double *out) {  // blockDim.x == 64
  __shared__ double buf[64];
  unsigned t = threadIdx_x;
  double v = x[blockIdx_x * 64 + t];
  buf[t] = v * v;
  __syncthreads();
  for (unsigned s = 32; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx_x] = buf[0];
}

extern "C" __global__ void shared_weight(int reps, const int *__restrict__ idx,
                                         const double *__restrict__ w,
                                         const double *__restrict__ x,
                                         double *__restrict__ out) {
  __syncthreads();  // (lines the threads up, so that they run at the same time)
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  double acc = 0.0;
  for (int r = 0; r < reps; r++) acc += w[idx[r]] * x[i];
  out[i] = acc;
}
"""
(work / "kernels.cu").write_text(kernels_cu)
run(CLANG, *CUDA, "kernels.cu", "-o", "kernels.ll")
ir = (work / "kernels.ll").read_text()
show(ir, r"^target triple|^define")

# %% [markdown]
# This is the IR we start from: an NVPTX module whose kernels are `ptx_kernel` functions.
#
# ## Running a kernel without a GPU
#
# `SimulatedGrid(ir, name)` lowers one kernel of the module to CPU code: the thread and block
# indices become arguments, shared memory becomes ordinary memory, barriers become thread
# barriers. `run(args, grid=, block=)` passes NumPy arrays by pointer and writes them in
# place, as device memory would be. It runs *serially* (one loop over every thread of every
# block) when it can, and *threaded* (one OS thread per GPU thread, a block at a time) when
# the kernel synchronizes its threads, as `block_sumsq` does:

# %%
n, a = 200, F32(2.5)
x, y0 = rng.random(n, dtype=F32), rng.random(n, dtype=F32)
y = y0.copy()
saxpy = SimulatedGrid(ir, "saxpy")
saxpy.run((n, a, x, y), grid=4, block=64)  # 256 threads, the last 56 do nothing
assert np.allclose(y, a * x + y0, rtol=1e-6)

blocks = 4
xs = rng.random(64 * blocks)
sums = np.zeros(blocks)
block_sumsq = SimulatedGrid(ir, "block_sumsq")
block_sumsq.run((xs, sums), grid=blocks, block=64)
assert np.allclose(sums, (xs**2).reshape(blocks, 64).sum(axis=1), rtol=1e-14)
print("saxpy needs threads:", saxpy.needs_threads,
      "  block_sumsq needs threads:", block_sumsq.needs_threads)
print("block sums:", sums)

# %% [markdown]
# ## The gradient kernel and the tangent kernel
#
# `kernel_derivatives(ir, "saxpy")` returns a `KernelDerivatives`: the module with the two new
# kernels (`.ir`) and their names. The activities are those of `enzyme-py grad`: by default
# integers are `const`, floats `out` and pointers `dup` (in the tangent kernel, floats are
# `dup` too: they get a tangent). The arguments:
#
# | argument of `saxpy` | activity | in `diffe_saxpy` | in `fwddiffe_saxpy` |
# |---|---|---|---|
# | `int n` | const | `n` | `n` |
# | `float a` | out | `a`, then a pointer `da` the adjoint is *added* to | `a`, its tangent `ta` |
# | `float *x` | dup | `x`, its shadow `dx` | `x`, its tangent `tx` |
# | `float *y` | dup | `y`, its shadow `dy` | `y`, its tangent `ty` |
#
# A kernel returns nothing, so the adjoint of a scalar cannot be returned: each thread adds
# its part of it to `*da`. Shadows accumulate: seed the output's shadow with the adjoint of
# the output, and start the inputs' shadows at zero. Both new kernels are `ptx_kernel`
# functions (parameter attributes are left out of the listings in this notebook), and this
# is the reverse sweep of the gradient kernel, after the forward sweep has done `saxpy`'s
# work:

# %%
d = kernel_derivatives(ir, "saxpy")
for name in (d.gradient, d.tangent):
    print(tidy(function_text(d.ir, name).splitlines()[0], width=200))
print()
grad_text = function_text(d.ir, d.gradient)
show_span(grad_text, r"%v\.shadow\.\d+ =", r"^rev\.return:")
print("  ...")
show(grad_text, r"%warp\.(mask|sum) =|shfl.*i32 16|^warp\.leader:|atomicrmw fadd ptr %2,")

# %% [markdown]
# The reverse sweep reads `dy[i]` (`%6` is `dy`) and clears it, since `y[i]` was
# overwritten; adds it back as the adjoint of the old `y[i]`; adds `a * dy[i]` to `dx[i]`
# (`%4`); and, after the `if (i < n)`, adds its part `x[i] * dy[i]` (`-0.0` for the idle
# threads) to `*da` (`%2`), which every thread adds to: the warp sums its 32 parts with
# shuffles (`shfl.sync.down`, masked to the lanes that exist) and its first lane adds the
# sum with an `atomicrmw fadd`, one atomic per warp instead of one per thread. Each thread
# reaches `x` and `y` only at its own `i = blockIdx.x * blockDim.x + threadIdx.x`, so no
# other thread adds into its `dx[i]` and `dy[i]` as long as `i` names one thread: the
# gradient checks at entry that the launch is 1-D (`%grid.1d`: the y and z extents of block
# and grid are 1) and then adds there plainly (`acc.plain`), atomically otherwise
# (`acc.atomic`).
#
# On the simulated grid, against `jax.vjp` and `jax.jvp` of the same map:

# %%
ybar = rng.random(n, dtype=F32)  # the adjoint of the output y
da, dx, y, dy = np.zeros(1, F32), np.zeros(n, F32), y0.copy(), ybar.copy()
SimulatedGrid(d.ir, d.gradient).run((n, a, da, x, dx, y, dy), grid=4, block=64)

_, back = jax.vjp(lambda a, x, y: a * x + y, a, x, y0)
want_a, want_x, want_y = back(ybar)
print("da:", da[0], " jax:", want_a)
assert np.allclose(da[0], want_a, rtol=1e-5)  # 200 float32 additions, in any order
assert np.allclose(dx, want_x, rtol=1e-6) and np.allclose(dy, want_y, rtol=1e-6)
assert np.allclose(y, a * x + y0, rtol=1e-6)  # the gradient kernel also runs the primal

ta, tx, ty0 = F32(0.5), rng.random(n, dtype=F32), rng.random(n, dtype=F32)
y, ty = y0.copy(), ty0.copy()
SimulatedGrid(d.ir, d.tangent).run((n, a, ta, x, tx, y, ty), grid=4, block=64)
_, want_t = jax.jvp(lambda a, x, y: a * x + y, (a, x, y0), (ta, tx, ty0))
assert np.allclose(ty, want_t, rtol=1e-6)
print("diffe_saxpy and fwddiffe_saxpy agree with jax.vjp and jax.jvp")

# %% [markdown]
# `dy` came in as the adjoint of the new `y` and leaves as the adjoint of the old one (here
# the same, `ybar`). The accumulation is literal: run the gradient kernel again without
# resetting the shadows, and `da` and `dx` double:

# %%
da_once, dx_once = da.copy(), dx.copy()
y = y0.copy()
SimulatedGrid(d.ir, d.gradient).run((n, a, da, x, dx, y, dy), grid=4, block=64)
assert np.allclose(da, 2 * da_once, rtol=1e-5) and np.allclose(dx, 2 * dx_once)
print("after two runs: da =", da[0], "=", da[0] / da_once[0], "x the first")

# %% [markdown]
# ## Shared memory and barriers
#
# In the gradient of `block_sumsq`, the reduction runs backwards: the adjoint of `buf[0]`
# flows down the tree to the 64 `buf[t]`, then to `x`. Two things make that a correct
# kernel:
#
# - `buf` gets a shadow, another `__shared__` array, that the first thread of each block
#   zeroes at entry, before a barrier (shared memory is not zeroed for you);
# - every `__syncthreads()` of the forward sweep is mirrored at the same point of the reverse
#   sweep (blocks `rev.<block>`), so that no thread reads an adjoint another thread has not
#   finished adding.

# %%
d2 = kernel_derivatives(ir, "block_sumsq")
g2 = function_text(d2.ir, d2.gradient)
show_span(g2, r"%first\.thread =", r"barrier")
barriers = {"forward": [], "reverse": []}
label = None
for line in g2.splitlines():
    if re.match(r"^[\w.]+:$", line):
        label = line[:-1]
    elif "barrier" in line:
        barriers["reverse" if label.startswith("rev.") else "forward"].append(label)
in_kernel = function_text(ir, "block_sumsq").count("barrier")
print(f"\nthe kernel: {in_kernel} barriers (the loop is unrolled)")
for sweep, where in barriers.items():
    print(f"{sweep} sweep: {len(where)} barriers, in {', '.join(where)}")
assert len(barriers["forward"]) == in_kernel + 1 and len(barriers["reverse"]) == in_kernel

# %% [markdown]
# The forward sweep has one barrier more than the kernel, the one after the zeroing; the
# reverse sweep has one for each of the kernel's, in reverse order.
#
# The gradient kernel synchronizes, so it runs on the threaded grid (the serial grid refuses
# it):

# %%
seed = rng.random(blocks)  # the adjoints of the four block sums
dxs, sums, dsums = np.zeros(64 * blocks), np.zeros(blocks), seed.copy()
grad_sumsq = SimulatedGrid(d2.ir, d2.gradient)
grad_sumsq.run((xs, dxs, sums, dsums), grid=blocks, block=64)


def sumsq(x):
    return (x * x).reshape(blocks, 64).sum(axis=1)


_, back = jax.vjp(sumsq, xs)
assert np.allclose(dxs, back(seed)[0], rtol=1e-14)
print("dx matches jax.vjp; the seeds of `out` were consumed:", dsums)

txs = rng.random(64 * blocks)
sums, tsums = np.zeros(blocks), np.zeros(blocks)
SimulatedGrid(d2.ir, d2.tangent).run((xs, txs, sums, tsums), grid=blocks, block=64)
assert np.allclose(tsums, jax.jvp(sumsq, (xs,), (txs,))[1], rtol=1e-13)
print("the tangents of the block sums match jax.jvp:", tsums)

try:
    grad_sumsq.run((xs, dxs, sums, dsums), grid=blocks, block=64, threaded=False)
except GridError as err:
    print("GridError:", err)

# %% [markdown]
# `out` is only written, so its old value has no adjoint: the gradient kernel reads each
# seed and clears it, as Enzyme does.
#
# ## Why shadow updates are atomic
#
# In `shared_weight` every thread reads `w[0..4)`, `reps` times each. The adjoint of a value
# read by many threads is the sum of what each thread contributes, so in the gradient kernel
# all 64 threads add into the same four elements of `dw`, at the same time. enzyme_py makes
# every shadow update into memory that other threads can reach an `atomicrmw fadd` (unless,
# as for `dx` above, it proves each thread reaches its own element only).
#
# To see what the atomics prevent, the same gradient can be built without them, with the
# passes that `kernel_derivatives` runs, spelled out (`atomics=False` is there only for this
# demonstration). Only `w` (argument 2) and `out` (4) are `dup`:

# %%
acts = ["const", "const", "dup", "const", "dup"]
d3 = kernel_derivatives(ir, "shared_weight", activities=acts, forward=False)
without = Pipeline.parse(",".join([
    pass_text("prepare", fn=["shared_weight"]),
    pass_text("reverse", fn="shared_weight", acts=acts, ret="const", atomics=False),
    "O2"])).run(parse(ir))
print("with atomics:")
show_span(function_text(d3.ir, d3.gradient), r"%v\.shadow\.7 =", r"%v\.shadow\.7,")
print("without:")
show_span(function_text(str(without), "diffe_shared_weight"), r"%v\.shadow\.7 =",
          r"store .*%v\.shadow\.7,")

# %% [markdown]
# With atomics, the update of `dw[idx[r]]` (`%3` is `dw`) is one indivisible read-add-write;
# without, it is a load, an `fadd` and a store, and two threads that load the same element
# before either stores lose one of the two additions. The threaded grid runs the 64 threads
# of a block as 64 OS threads, so the race is real. Every weight is read `reps / 4` times by
# each thread with `x = 1`, so each element of `dw` must be `64 * reps / 4`:

# %%
reps, threads = 40_000, 64
idx = (np.arange(reps) % 4).astype(np.int32)
ones = np.ones(threads)
exact = np.full(4, threads * reps / 4)


def gradient_of_w(grid):
    dw = np.zeros(4)
    grid.run((reps, idx, np.ones(4), dw, ones, np.zeros(threads), np.ones(threads)),
             grid=1, block=threads, threaded=True)
    return dw


atomic = SimulatedGrid(d3.ir, d3.gradient)
three = [gradient_of_w(atomic) for _ in range(3)]
assert all(np.array_equal(dw, exact) for dw in three)
print("with atomics, three runs, each: dw =", three[0], "(exact)")

racy = SimulatedGrid(without, "diffe_shared_weight")
runs = 0
while runs < 20:  # a race need not show in every run: repeat until it does
    runs += 1
    dw = gradient_of_w(racy)
    if dw.sum() < exact.sum():
        break
assert dw.sum() < exact.sum(), "no update was lost in 20 runs"
print(f"without atomics, run {runs}: dw = {dw}")
print(f"lost {exact.sum() - dw.sum():.0f} of {exact.sum():.0f} additions")

# %% [markdown]
# ## PTX
#
# `.ptx(sm=80)` emits the whole module, the kernels and their derivatives, as PTX, through
# LLVM's NVPTX backend (no GPU or CUDA toolkit needed). The atomics are `atom` or `red` (a
# reduction whose old value is unused) instructions on global memory:

# %%
ptx = d.ptx(sm=80)
show(ptx, r"^\.(version|target)|\.entry|\batom\.|\bred\.")
if shutil.which("ptxas"):  # NVIDIA's assembler checks it (pip install nvidia-cuda-nvcc-cu12)
    (work / "saxpy.ptx").write_text(ptx)
    run("ptxas", "-arch=sm_80", "saxpy.ptx", "-o", "saxpy.cubin")
    print("ptxas assembled it:", (work / "saxpy.cubin").stat().st_size, "bytes of cubin")
else:
    print("ptxas is not installed, so the PTX is not assembled here")

# %% [markdown]
# From the command line, `enzyme-py grad --target nvptx64` writes the module with the
# gradient kernel as PTX:

# %%
out = run(sys.executable, "-m", "enzyme_py", "grad", "kernels.ll", "-f", "saxpy",
          "--target", "nvptx64", "--sm", "80", "-o", "diffe_saxpy.ptx")
show((work / "diffe_saxpy.ptx").read_text(), r"^\.target|\.entry")

# %% [markdown]
# ## `__enzyme_autodiff` inside device code
#
# Enzyme's C interface (tutorial 3) works in device code too: each thread calls
# `__enzyme_autodiff` on a `__device__` function, and `enzyme-py transform` replaces the call
# by a call to the generated derivative (which `-O2` then inlines into the kernel). Here each
# thread computes the force `-dV/dr` of a Lennard-Jones-like potential at its own distance
# (`r`, a double, is `out` by default, so the call returns `dV/dr`):

# %%
force_cu = r"""
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define threadIdx_x __nvvm_read_ptx_sreg_tid_x()
#define blockIdx_x __nvvm_read_ptx_sreg_ctaid_x()
#define blockDim_x __nvvm_read_ptx_sreg_ntid_x()
extern __device__ double __enzyme_autodiff(void *, ...);

__device__ double potential(double r) {
  double s = 1.0 / (r * r * r);
  return s * s - s;
}

extern "C" __global__ void force(int n, const double *r, double *f) {
  int i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i < n) f[i] = -__enzyme_autodiff((void *)potential, r[i]);
}
"""
(work / "force.cu").write_text(force_cu)
run(CLANG, *CUDA, "force.cu", "-o", "force.ll")
run(sys.executable, "-m", "enzyme_py", "transform", "force.ll", "-o", "force_grad.ll")
force_ir = (work / "force_grad.ll").read_text()
show(force_ir, r"^define")
assert "enzyme" not in function_text(force_ir, "force")  # the call is gone

m = 100
r = rng.uniform(0.9, 2.0, m)
f = np.zeros(m)
SimulatedGrid(force_ir, "force").run((m, r, f), grid=2, block=64)
assert np.allclose(f, 6 / r**7 - 3 / r**4, rtol=1e-13)  # -d/dr (r^-6 - r^-3)
print("f = -dV/dr on every thread:", f[:3], "...")
run(sys.executable, "-m", "enzyme_py", "transform", "force.ll", "--target", "nvptx64",
    "-o", "force.ptx")
show((work / "force.ptx").read_text(), r"\.entry|\.func")

# %% [markdown]
# ## On a real GPU
#
# `enzyme_py.gpu` (the optional extra: `pip install 'enzyme_py[gpu]'`, and the NVIDIA driver)
# loads PTX and launches its kernels on NumPy arrays: arrays are copied to the device and,
# unless read-only, back. Each kernel's parameter types come from its PTX entry, and the
# arguments are checked against them before anything is launched; that part needs no GPU:

# %%
signature = gpu.signature_of(ptx, "diffe_saxpy")
print(signature)
args = (n, a, np.zeros(1, F32), x, np.zeros(n, F32), y0.copy(), ybar.copy())
gpu.check_arguments(signature, args, "diffe_saxpy")  # fine
try:
    gpu.check_arguments(signature, (n, a, x, y0), "diffe_saxpy")  # saxpy's arguments
except CallError as err:
    print("CallError:", err)

# %% [markdown]
# On a machine with a GPU, the cell below runs the gradient kernel there, checks it against
# the `jax.vjp` values above, and times the kernel and its gradient; here it says why it
# cannot:

# %%
if gpu.available():
    sm = gpu.device_info().sm
    module = gpu.load(d.ptx(sm=sm))
    da, dx, y, dy = np.zeros(1, F32), np.zeros(n, F32), y0.copy(), ybar.copy()
    module.kernel(d.gradient)(n, a, da, x, dx, y, dy, grid=4, block=64)
    assert np.allclose(da[0], want_a, rtol=1e-5) and np.allclose(dx, want_x, rtol=1e-6)
    print(gpu.device_info().name, ": diffe_saxpy agrees with jax.vjp")
    big = 1 << 22
    xb, yb = rng.random(big, dtype=F32), rng.random(big, dtype=F32)
    dims = {"grid": big // 256, "block": 256}
    t_k = min(module.kernel("saxpy").time(big, a, xb, yb, **dims))
    t_g = min(module.kernel(d.gradient).time(big, a, np.zeros(1, F32), xb, np.zeros_like(xb),
                                             yb, np.ones_like(yb), **dims))
    print(f"saxpy {t_k:.4f} ms, diffe_saxpy {t_g:.4f} ms ({t_g / t_k:.1f}x)")
else:
    try:
        gpu.device_info()
    except gpu.GpuUnavailable as err:
        print("no GPU here:", err)

# %% [markdown]
# `benchmarks/gpu_device_check.py` does this for every kernel of the test corpus: it runs
# each kernel, its gradient kernel and its tangent kernel on the device and on the simulated
# grid from the same random inputs, compares every array, and times the gradient against the
# kernel. With `--simulate-only` it needs no GPU and checks the PTX and the simulation:

# %%
print(run(sys.executable, "benchmarks/gpu_device_check.py", "--simulate-only", "--kernels",
          "saxpy", "block_sum", cwd=Path.cwd().parent))  # (from the root of the checkout)

# %% [markdown]
# To remember:
#
# - `kernel_derivatives(ir, "k")` gives `diffe_k` and `fwddiffe_k`, kernels you launch with
#   the grid and block of `k`; shadows accumulate (seed outputs, zero inputs), and an `out`
#   scalar's adjoint is added to a pointer you pass;
# - shadow updates into memory other threads can reach are atomic, shared-memory shadows are
#   zeroed at entry, and barriers are mirrored in the reverse sweep;
# - `SimulatedGrid` checks all of it on the CPU (threaded when a kernel synchronizes or races);
#   `.ptx(sm=)` and `enzyme_py.gpu` take it to the device.
