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
# # 5. Performance: against `jax.jit(jax.grad)`
#
# This notebook times gradients of two functions with enzyme_py and with JAX, on the machine
# that runs it (every number below is measured here, by the cells that print it), and then
# looks at what makes a gradient fast.
#
# - **loop-heavy**: a nonlinear recurrence, each step depending on the previous one. Written
#   as a Python loop for us, and with `jax.lax.scan` for JAX.
# - **vectorizable**: a logistic-regression loss. A double loop for us, and `X @ w` with
#   `jax.numpy` for JAX.
#
# Method: every function is called once before timing (compilation, JAX tracing), then timed
# with `timeit` in several repeats; we report the median time per call. Sizes are small so
# the notebook runs quickly; the CPU is shared, so expect some noise.

# %%
import math
import timeit

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np

import enzyme_py as ez
from enzyme_py import backend
from enzyme_py.ad.driver import gradient_module
from enzyme_py.api import optimize_before_ad
from enzyme_py.calling import arg_types
from enzyme_py.frontend import compile_python
from enzyme_py.passes import OptLevel

jax.config.update("jax_enable_x64", True)


def median_time(fn, *args, repeats=7, budget=0.01):
    """Median seconds per call of fn(*args), after a warm-up call."""
    fn(*args)
    timer = timeit.Timer(lambda: fn(*args))
    number = 1
    while timer.timeit(number) < budget and number < 100_000:
        number *= 4
    return float(np.median(timer.repeat(repeats, number))) / number


def blocking(jax_fn):
    """jax_fn, waiting for its result (JAX dispatches asynchronously)."""
    return lambda *args: jax_fn(*args).block_until_ready()

# %% [markdown]
# ## The two functions

# %%
def recurrence(p, n):
    """n steps of x <- x + h (a - b x^2 + c sin x), summing x^2."""
    x = 0.1
    s = 0.0
    for _ in range(n):
        x = x + 0.01 * (p[0] - p[1] * x * x + p[2] * math.sin(x))
        s += x * x
    return s / n


def recurrence_jax(p, n):
    def step(x, _):
        x = x + 0.01 * (p[0] - p[1] * x * x + p[2] * jnp.sin(x))
        return x, x * x

    _, squares = jax.lax.scan(step, jnp.asarray(0.1), None, length=n)
    return jnp.sum(squares) / n


def logistic_loss(w, X, y):
    """Mean of log(1 + exp(-y_i <x_i, w>))."""
    s = 0.0
    for i in range(X.shape[0]):
        z = 0.0
        for j in range(X.shape[1]):
            z += X[i, j] * w[j]
        s += math.log1p(math.exp(-y[i] * z))
    return s / X.shape[0]


def logistic_loss_jax(w, X, y):
    return jnp.mean(jnp.log1p(jnp.exp(-y * (X @ w))))


p = np.array([1.0, 0.8, 0.5])
rng = np.random.default_rng(0)
X_all = rng.normal(size=(10_000, 16))
y_all = np.sign(rng.normal(size=10_000))
w = 0.1 * rng.normal(size=16)

# the two implementations agree
g_ours = ez.grad(recurrence)(p, 1000)
g_jax = jax.jit(jax.grad(recurrence_jax), static_argnums=1)(p, 1000)
print("recurrence:    largest gradient difference", np.max(np.abs(g_ours - g_jax)))
g_ours = ez.grad(logistic_loss)(w, X_all[:1000], y_all[:1000])
g_jax = jax.jit(jax.grad(logistic_loss_jax))(w, X_all[:1000], y_all[:1000])
print("logistic loss: largest gradient difference", np.max(np.abs(g_ours - g_jax)))

# %% [markdown]
# ## Timing

# %%
sizes = [100, 1000, 10_000]
labels = ("enzyme_py primal", "enzyme_py grad", "jax.jit primal", "jax.jit(jax.grad)")
rec_fns = (ez.jit(recurrence), ez.grad(recurrence),
           blocking(jax.jit(recurrence_jax, static_argnums=1)),
           blocking(jax.jit(jax.grad(recurrence_jax), static_argnums=1)))
rec = {label: [median_time(fn, p, n) for n in sizes]
       for label, fn in zip(labels, rec_fns, strict=True)}

vec_fns = (ez.jit(logistic_loss), ez.grad(logistic_loss),
           blocking(jax.jit(logistic_loss_jax)), blocking(jax.jit(jax.grad(logistic_loss_jax))))
vec = {label: [median_time(fn, w, X_all[:n], y_all[:n]) for n in sizes]
       for label, fn in zip(labels, vec_fns, strict=True)}


def table(title, results):
    print(title)
    print(f"{'n':>8s}" + "".join(f"{k:>20s}" for k in results) + f"{'grad/primal (ours)':>20s}")
    for i, n in enumerate(sizes):
        row = "".join(f"{results[k][i] * 1e6:17.1f} us" for k in results)
        ratio = results["enzyme_py grad"][i] / results["enzyme_py primal"][i]
        print(f"{n:8d}{row}{ratio:20.2f}")
    print()


table("loop-heavy recurrence (n steps)", rec)
table("logistic loss (n samples x 16 features)", vec)

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
for ax, results, title in ((axes[0], rec, "loop-heavy: recurrence"),
                           (axes[1], vec, "vectorizable: logistic loss")):
    for (label, times), style in zip(results.items(), ("o--", "o-", "s--", "s-"), strict=True):
        ax.loglog(sizes, np.array(times) * 1e6, style, label=label,
                  color="tab:blue" if label.startswith("enzyme") else "tab:red")
    ax.set_xlabel("n")
    ax.set_ylabel("median time per call (us)")
    ax.set_title(title)
    ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# How to read this:
#
# - The **gradient/primal ratio** is the cost of the gradient in units of the function itself.
#   Reverse mode is bounded by a small constant factor in operation counts, independent of the
#   number of inputs; the last column shows what this machine measured.
# - For the **recurrence**, JAX runs `lax.scan` as a loop whose every iteration is a
#   sequence of small array operations, while our loop compiles to a tight scalar loop.
# - For the **logistic loss**, JAX maps `X @ w` to an optimized matrix-vector kernel. Our
#   loops get vectorized by LLVM where it can prove it safe, but a library kernel can still
#   win for large sizes.
# - At the smallest sizes, the fixed cost of a call from Python (argument checks, dispatch) is a
#   large part of each time.
# - A gradient can even cost *less* than the function: it does not need the function's value,
#   so work that only feeds the value is dropped. The derivative of `log1p(e)` needs `e` but
#   not the logarithm, and the optimized gradient of `logistic_loss` calls no `log1p`:

# %%
ir = ez.show(logistic_loss, w, X_all[:10], y_all[:10], stage="optimized")
for name in ("logistic_loss", "diffe_logistic_loss"):
    start = ir.rindex("\ndefine", 0, ir.index(f" @{name}("))
    body = ir[start:ir.index("\n}\n", start)]
    print(f"@{name}: {body.count('@llvm.log1p') + body.count('@log1p(')} call(s) of log1p")

# %% [markdown]
#
# ## What makes gradients fast
#
# ### 1. Optimizing *before* differentiating
#
# `ez.grad` optimizes the function first, then differentiates, then optimizes the gradient
# with the full `-O2`. The first optimization is LLVM's `-O2` without loop unrolling and
# vectorization (the place in the pipeline where Enzyme runs): code that the optimizer removes
# or hoists out of a loop never needs a derivative or a tape, while each loop stays one loop,
# which needs one tape array per cached value. To see the effect we build gradients by hand,
# with the same internal steps `grad` uses: without the first optimization, with the full
# `-O2`, and with the one `grad` uses, and count the tape allocations (`malloc` calls; all
# the arrays one loop nest needs share one) in each gradient. The first function has a
# loop-invariant `exp(a)`:

# %%
def scaled_sum(x, a):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * math.exp(a)
    return s


def weighted_squares(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        s += w[i] * x[i] * x[i]
    return s


def gradient_by_hand(f, args, activities, optimize_first):
    """f compiled, optimized first (`"none"`, `"full -O2"`, or `"grad"`: what `grad` does),
    differentiated and optimized; returns the native gradient and its number of tape
    allocations."""
    names = f.__code__.co_varnames[:f.__code__.co_argcount]
    module, compiled, _ = compile_python(f, arg_types(f.__name__, names, args))
    if optimize_first == "full -O2":
        module = OptLevel(2).run(module)
    elif optimize_first == "grad":
        module = optimize_before_ad(module, 2)
    out, name = gradient_module(module, compiled.function.name, activities, True)
    text = str(out)
    start = text.rindex("\ndefine", 0, text.index(f" @{name}("))
    tapes = text[start:text.index("\n}\n", start)].count("@malloc(")
    return backend.compile_ir(text).function(name), tapes


x = np.linspace(0.5, 1.5, 10_000)
wx = np.cos(x)
dx, dw = np.zeros_like(x), np.zeros_like(x)
cases = [  # (function, arguments, activities of the IR arguments, call of the gradient)
    (scaled_sum, [x, 0.3], ["dup", "const", "out"],  # x (+ shadow), len(x), a
     lambda g: g(x, dx, x.size, 0.3, 1.0)),
    (weighted_squares, [wx, x], ["dup", "const", "dup", "const"],
     lambda g: g(wx, dw, x.size, x, dx, x.size, 1.0)),
    (recurrence, [p, 1000], ["dup", "const", "const"],
     lambda g: g(p, np.zeros(3), 3, 1000, 1.0)),
]
print(f"{'function':18s}{'first':>10s}{'tape mallocs':>13s}{'time':>12s}")
for f, args, acts, call in cases:
    for optimize_first in ("none", "full -O2", "grad"):
        native, tapes = gradient_by_hand(f, args, acts, optimize_first)
        t = median_time(call, native)
        print(f"{f.__name__:18s}{optimize_first:>10s}{tapes:13d}{t * 1e6:9.1f} us")

# %% [markdown]
# For `scaled_sum`, without the first `-O2`, `exp(a)` is computed inside the loop, and the
# reverse sweep needs its value in every iteration. Caching it would keep the forward loop
# alive only to fill a tape, so the reverse sweep calls `exp` again instead (a pure math call
# is recomputed in that case; see "Recompute or cache" below), and the optimization of the
# gradient hoists that call out of the reversed loop. With the first `-O2`, `exp(a)` is hoisted
# out of the loop before differentiation. Neither needs a tape.
#
# The other two show why `grad` leaves loop unrolling and vectorization for later: the full
# `-O2` unrolls their loops before differentiation, so the unrolled loop and its remainder
# loop each need a tape, and the reverse sweep follows the unrolled shape. The optimization
# `grad` uses keeps the hoisting and drops the unrolling; the gradient is unrolled and
# vectorized afterwards. Compare the measured times above.
#
# ### 2. Recompute or cache
#
# For every value the reverse sweep needs, the transform picks: **recompute** it if it is cheap
# and its inputs are still available (arithmetic, or a load from memory that the function never
# writes), otherwise **cache** it on the tape. Recomputing costs a few instructions; caching
# costs a memory write and a read per iteration plus the tape's allocation. A pure math call
# such as `sin` is recomputed too when caching it is the only reason the forward loop would
# still run: then the forward loop and its tape become dead code. In the example of
# [02_how_it_works](02_how_it_works.ipynb), `x[i]` is reloaded and `sin(x[i])` recomputed in
# the reverse sweep, while a value carried from one iteration to the next is cached. In-place updates
# (writing an array that was read before) force caching of the overwritten values, so
# functions that only read their inputs tend to have cheaper gradients.
#
# ### 3. `noalias`
#
# When two array arguments might overlap, writing one may change the other, and LLVM must
# keep every load and store in order; it cannot vectorize or reorder them freely. numpy arrays
# passed to enzyme_py usually do not overlap, so it checks the arguments on each call, marks
# them `noalias` (as `restrict` in C), and compiles a separate version without `noalias`
# when they do overlap. The same function, called with two different arrays and with the same
# array twice:

# %%
def weighted_sines(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.sin(x[i]) * y[i]
    return s


a = np.linspace(0.0, 1.0, 20_000)
b = np.cos(a)
g = ez.grad(weighted_sines, argnums=(0, 1))
t_distinct = median_time(g, a, b)
t_same = median_time(g, a, a)
print(f"grad(weighted_sines)(a, b): {t_distinct * 1e6:.1f} us   (noalias)")
print(f"grad(weighted_sines)(a, a): {t_same * 1e6:.1f} us   (may alias)")

# %% [markdown]
# ## Where the time goes: `ez.profile`
#
# `ez.profile(f, *args, argnums=...)` compiles `jit(f)` and `grad(f)` afresh and reports the
# median run time of each, the wall time of every compile stage (the front end, the -O2
# before AD, each pass of the AD pipeline, LLVM's -O2 and code generation), the heap one
# gradient call asks for per call site (`%tape` is the tape) and the instructions of the
# optimized code by opcode. A recurrence needs its history on the tape: the reverse sweep
# reads what each step computed, so the tape grows with the number of steps.

# %%
def sine_recurrence(x, n):
    s = 0.0
    t = 1.0
    for i in range(n):
        t = math.sin(t * x[i])
        s += t
    return s


xs = np.linspace(0.1, 1.0, 10_000)
report = ez.profile(sine_recurrence, xs, 10_000)
print(report)
print("tape bytes per step:", report.heap_bytes(prefix="tape") / 10_000)

# %% [markdown]
# ## Long loops: checkpointing
#
# A time loop that updates arrays (a heat stencil here) puts every step's values on the
# tape: 32 kB per step at 4096 points, 64 MB over 2000 steps, written once and read back
# once, from main memory. `checkpoint=True` keeps a few copies of the loop's state instead
# and runs blocks of steps again in the reverse sweep, each block with a tape small enough
# to stay in the cache; `memory_budget="64MB"` keeps as many states as that budget holds
# (then no step runs a third time). The gradient is the taped one. `ez.profile` tells the
# allocations of one gradient call; the largest is the tape, or a block's tape.

# %%
def heat(u0, kappa, r, steps):
    n = u0.shape[0]
    u = np.zeros(n)  # (the loop's state: two arrays made before it)
    v = np.zeros(n)
    u[:] = u0
    v[:] = u0
    for _ in range(steps // 2):
        for i in range(1, n - 1):
            v[i] = u[i] + r * kappa[i] * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(1, n - 1):
            u[i] = v[i] + r * kappa[i] * (v[i - 1] - 2.0 * v[i] + v[i + 1])
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


rng = np.random.default_rng(0)
u0, kappa = rng.uniform(-1.0, 1.0, 4096), rng.uniform(0.5, 1.5, 4096)
heat_args = (u0, kappa, 0.2, 2000)
taped = ez.grad(heat, argnums=(0, 1))
for label, options in (("taped", {}), ("checkpoint=True", {"checkpoint": True}),
                       ('memory_budget="64MB"', {"memory_budget": "64MB"})):
    g = ez.grad(heat, argnums=(0, 1), **options)
    same = all(np.allclose(a, b, rtol=1e-12, atol=1e-15)
               for a, b in zip(g(*heat_args), taped(*heat_args)))
    sites = ez.profile(heat, *heat_args, argnums=(0, 1), repeat=1, **options).gradient_heap
    largest = max(s.bytes / s.calls for s in sites if s.calls)  # (a tape, a state ...)
    print(f"{label:22s} {median_time(g, *heat_args) * 1e3:6.2f} ms  "
          f"largest allocation {largest / 1e6:5.2f} MB  same gradient as taped: {same}")

# %% [markdown]
# ## Summary
#
# - Differentiating optimized code lets the gradient inherit every optimization of the
#   function, and optimizing the gradient afterwards cleans up what the transform generated.
# - The tape holds only what cannot be recomputed cheaply; read-only inputs can be reloaded.
# - Non-overlapping arrays (`noalias`) let LLVM vectorize both the function and its gradient.
- Checkpointing bounds the memory of long loops, and where the tape would not fit in the
  cache it is faster than taping too.
#
# `make bench` in the repository runs larger benchmarks.
