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
# # 1. Quickstart: gradients of NumPy code
#
# enzyme_py differentiates ordinary Python functions: NumPy array code as you would write it for
# JAX, or plain loops. If you know `jax.grad`, you already know the interface. What happens
# underneath is different: your function is compiled to LLVM IR (array expressions become fused
# loop nests), optimized, differentiated *at the IR level*, optimized again, and compiled to
# native code. There is no tracing, so Python `for` loops, `while` loops and `if` statements on
# values work as written too.
#
# This notebook covers `grad`, `value_and_grad`, `argnums`, `jit`, `vjp` and `jacrev` of
# array-valued functions, non-contiguous arguments, checking a gradient against JAX with
# `enzyme_py.testing.check_grad`, a timing against `jax.jit(jax.grad)`, and loop-style code.

# %%
import math
import os
import platform
import time
import timeit
import types

import jax
import jax.numpy as jnp
import numpy as np

import enzyme_py as ez
from enzyme_py.testing import check_grad, numpy_as_jax

jax.config.update("jax_enable_x64", True)  # compare in float64, like our gradients

# %% [markdown]
# ## A first gradient: least squares
#
# `ez.grad(f)` returns a function that computes the gradient of `f` with respect to its first
# argument; it works as a decorator too. The gradient with respect to an array is an array of
# the same shape, exactly like `jax.grad`.

# %%
def least_squares(w, b, X, y):
    return np.mean((X @ w + b - y) ** 2)


rng = np.random.default_rng(0)
X = rng.normal(size=(100, 3))
y = X @ np.array([1.0, -2.0, 0.5]) + 0.3 + 0.01 * rng.normal(size=100)
w = np.zeros(3)
b = 0.0

g = ez.grad(least_squares)(w, b, X, y)
print("gradient  ", g)
print("by hand   ", 2.0 / len(y) * X.T @ (X @ w + b - y))

# %% [markdown]
# The first call compiles the function for the types of its arguments (for arrays: dtype, rank
# and whether they are contiguous, not their shapes); later calls with the same types reuse the
# native code. Measured on the machine that ran this notebook:

# %%
grad_ls = ez.grad(least_squares, argnums=(0, 1))
start = time.perf_counter()
grad_ls(w, b, X, y)
first = time.perf_counter() - start
start = time.perf_counter()
for _ in range(1000):
    grad_ls(w, b, X, y)
later = (time.perf_counter() - start) / 1000
print(f"first call (compiles): {first * 1e3:.0f} ms, later calls: {later * 1e6:.1f} us each")

# %% [markdown]
# ## `value_and_grad` and `argnums`
#
# As in JAX, `value_and_grad` returns the value and the gradient from one call, and `argnums`
# picks the arguments to differentiate: an integer gives one gradient, a tuple gives a tuple. A
# float argument gets a float gradient. A few steps of gradient descent:

# %%
step = ez.value_and_grad(least_squares, argnums=(0, 1))
for it in range(201):
    loss, (gw, gb) = step(w, b, X, y)
    if it % 50 == 0:
        print(f"step {it:3d}  loss {loss:.6f}")
    w, b = w - 0.1 * gw, b - 0.1 * gb
print("w", w, " b", b)

# %% [markdown]
# ## Checking against JAX
#
# A NumPy-style function runs under JAX unchanged once `np` means `jax.numpy`. `jax_version`
# below makes that copy (same code, `np` rebound); `check_grad(f, *args, argnums=...,
# reference=jax_f)` compares our gradient with `jax.grad(jax_f)` and with central finite
# differences of our compiled `f`, raises an `AssertionError` with a table of the worst
# entries on a mismatch, and returns our gradient.

# %%
def jax_version(f):
    """`f` with the name `np` bound to `jax.numpy`."""
    return types.FunctionType(f.__code__, {**f.__globals__, "np": jnp}, f.__name__,
                              f.__defaults__, f.__closure__)


check_grad(least_squares, w, b, X, y, argnums=(0, 1, 2, 3), reference=jax_version(least_squares))
print("least_squares: gradients agree with JAX and finite differences")

# %% [markdown]
# A few more losses, the way they are usually written: logistic regression, a one-hidden-layer
# MLP, softmax cross-entropy (with the usual `max` subtraction for stability) and the
# Rosenbrock function, whose neighbour differences are slices `x[1:]`, `x[:-1]`.

# %%
def logistic(w, X, labels):
    return np.mean(np.log1p(np.exp(-labels * (X @ w))))


def mlp(W1, b1, w2, x):
    return np.sum(np.tanh(W1 @ x + b1) * w2)


def softmax_cross_entropy(logits, onehot):
    z = logits - np.max(logits, axis=1, keepdims=True)
    log_p = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(onehot * log_p, axis=1))


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


cases = [
    (logistic, (rng.normal(size=3), X, np.sign(y)), 0),
    (mlp, (rng.normal(size=(8, 3)), rng.normal(size=8), rng.normal(size=8), rng.normal(size=3)),
     (0, 1, 2)),
    (softmax_cross_entropy, (rng.normal(size=(6, 4)), np.eye(4)[rng.integers(0, 4, 6)]), 0),
    (rosenbrock, (rng.normal(size=10),), 0),
]
for f, args, argnums in cases:
    ours = check_grad(f, *args, argnums=argnums, reference=jax_version(f))
    shapes = [np.shape(g) for g in (ours if isinstance(ours, tuple) else (ours,))]
    print(f"{f.__name__:22s} value {ez.jit(f)(*args):10.6f}  gradient shapes {shapes}  agrees")

# %% [markdown]
# ## Parameters as pytrees, and `has_aux`
#
# As in JAX, parameters can be a *pytree*: dicts, tuples, lists, `NamedTuple`s and dataclasses
# of arrays and floats, nested. The compiled code sees the leaves (a dict's keys and the
# nesting are part of the specialization); the gradient comes back in the same structure.
# Inside the function a tree is read with constant keys (`params["layers"]`, `p[0]`, `p.W`),
# unpacked, iterated over (the loop below is unrolled at compile time: each layer may have
# its own shape) and passed on to other functions. With `has_aux=True` the function returns
# `(value, aux)`: the gradient is of the value, and aux comes back as computed.

# %%
def predict(params, x):
    for W, b in params["layers"]:
        x = np.tanh(W @ x + b)
    return x


def mlp_loss(params, x, target):
    r = predict(params, x) - target
    return np.sum(r * r) * params["scale"], {"residual": r, "worst": np.max(np.abs(r))}


params = {"layers": [(rng.normal(size=(8, 3)), rng.normal(size=8)),
                     (rng.normal(size=(2, 8)), rng.normal(size=2))],
          "scale": 0.5}
x, target = rng.normal(size=3), rng.normal(size=2)
grads, aux = ez.grad(mlp_loss, has_aux=True)(params, x, target)
print("dW of layer 0:", grads["layers"][0][0].shape, " d scale:", round(grads["scale"], 6))
print("aux:", {k: np.round(v, 4) for k, v in aux.items()})
# numpy_as_jax: like jax_version, for the helpers the function calls too
theirs, _ = jax.grad(numpy_as_jax(mlp_loss), has_aux=True)(params, x, target)
print("same as jax.grad:", all(np.allclose(a, b) for a, b in
                               zip(jax.tree_util.tree_leaves(grads),
                                   jax.tree_util.tree_leaves(theirs))))

# %% [markdown]
# ## `jit`, and functions that return arrays
#
# `ez.jit(f)` compiles the function itself, without a gradient. A result that is an array comes
# back as a new NumPy array:

# %%
def standardize(x):
    return (x - np.mean(x)) / np.std(x)


x = rng.normal(size=5)
print(ez.jit(standardize)(x))
print(standardize(x))

# %% [markdown]
# `grad` needs a scalar result, but `ez.vjp` and `ez.jacrev` (and `jvp`, `jacfwd`) take
# array-valued functions, with JAX's conventions: `vjp` returns the value and a function from
# a cotangent (shaped like the value) to one cotangent per argument; a Jacobian of a result of
# shape `S` with respect to an argument of shape `A` has shape `S + A`.

# %%
def layer(W, x):
    return np.tanh(W @ x)


W = rng.normal(size=(2, 3))
x = rng.normal(size=3)
value, layer_vjp = ez.vjp(layer, W, x)
dW, dx = layer_vjp(np.array([1.0, -1.0]))
print("value", value)
print("dW", dW, sep="\n")
print("dx", dx)

J = ez.jacrev(layer)(W, x)
J_jax = jax.jacrev(jax_version(layer))(W, x)
print("jacrev shape", J.shape, " largest difference from jax.jacrev:",
      np.max(np.abs(J - J_jax)))

# %% [markdown]
# ## Non-contiguous arguments
#
# Arrays are passed to native code without copying, with their strides, so a view such as
# every other column `X[:, ::2]` or a transpose `X.T` is passed as it is. The gradient with
# respect to such an argument is a new array of the view's shape. (`check_grad` copies its
# arguments, which makes them contiguous, so here we compare with JAX directly.)

# %%
wide = rng.normal(size=(100, 6))
tall = rng.normal(size=(3, 100))
for name, view in [("wide[:, ::2]", wide[:, ::2]), ("tall.T", tall.T)]:
    ours = ez.grad(least_squares, argnums=(0, 2))(w, b, view, y)
    theirs = jax.grad(jax_version(least_squares), argnums=(0, 2))(w, b, view, y)
    diff = max(np.max(np.abs(o - t)) for o, t in zip(ours, theirs, strict=True))
    print(f"{name:13s} C-contiguous: {view.flags.c_contiguous!s:5s}  strides {view.strides}  "
          f"gradient shapes {ours[0].shape}, {ours[1].shape}  "
          f"largest difference from JAX {diff:.1e}")

# %% [markdown]
# ## How fast, against `jax.jit(jax.grad)`
#
# Each gradient is called once first (compilation, JAX tracing), then timed in several repeats,
# ours and JAX's taking turns; the table shows the median time per call, measured on the
# machine that ran this notebook (below), on a shared CPU, so expect some noise. JAX's side
# is `jax.jit(jax.grad(jf))` of the same source with `np` bound to `jax.numpy`.
# `rosenbrock_loop` is the Rosenbrock function written as a loop (see the last section); JAX
# gets the NumPy form for it.

# %%
def rosenbrock_loop(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def mlp_batch(W1, b1, W2, X, Y):
    H = np.tanh(X @ W1 + b1)
    return np.mean((H @ W2 - Y) ** 2)


def median_times(fns, *args, repeats=9, budget=0.01):
    """Median seconds per call of each fn(*args), after a warm-up call; the functions take
    turns in each repeat, so that they see the same load on the machine."""
    timers = []
    for fn in fns:
        fn(*args)
        timer = timeit.Timer(lambda fn=fn: fn(*args))
        number = 1
        while timer.timeit(number) < budget and number < 100_000:
            number *= 4
        timers.append((timer, number))
    samples = [[] for _ in fns]
    for _ in range(repeats):
        for (timer, number), out in zip(timers, samples, strict=True):
            out.append(timer.timeit(number) / number)
    return [float(np.median(out)) for out in samples]


def blocking(jax_fn):
    """jax_fn, waiting for its result (JAX dispatches asynchronously)."""
    return lambda *args: jax.block_until_ready(jax_fn(*args))


n = 1000
timed = [
    ("least_squares 2000x50", least_squares, least_squares,
     (rng.normal(size=50), 0.1, rng.normal(size=(2000, 50)), rng.normal(size=2000))),
    ("softmax_xent 1000x10", softmax_cross_entropy, softmax_cross_entropy,
     (rng.normal(size=(n, 10)), np.eye(10)[rng.integers(0, 10, n)])),
    ("mlp_batch 1000x20x64x4", mlp_batch, mlp_batch,
     (rng.normal(size=(20, 64)), rng.normal(size=64), rng.normal(size=(64, 4)),
      rng.normal(size=(n, 20)), rng.normal(size=(n, 4)))),
    ("rosenbrock n=10000", rosenbrock, rosenbrock, (rng.normal(size=10_000),)),
    ("rosenbrock_loop n=10000", rosenbrock_loop, rosenbrock, (rng.normal(size=10_000),)),
]
print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}")
print(f"{'gradient of':24s} {'enzyme_py':>11s} {'jax.jit':>11s} {'ours/jax':>9s}")
for label, f, jf, args in timed:
    ours, theirs = median_times([ez.grad(f), blocking(jax.jit(jax.grad(jax_version(jf))))], *args)
    print(f"{label:24s} {ours * 1e6:8.1f} us {theirs * 1e6:8.1f} us {ours / theirs:9.2f}")

# %% [markdown]
# A ratio below 1 means our gradient was faster on this run.
# [05_performance](05_performance.ipynb) looks at what makes a gradient fast; `make bench` runs
# the full benchmark suite.
#
# ## What the array subset covers
#
# - **Arrays** of float64/float32/int64/int32, any rank, any strides (views of the caller's
#   arrays, Fortran order); `.shape`, `.ndim`, `.size`, `len`, `.T`.
# - **Views** (no copy): `x[1:]`, `x[::-1]`, `X[i]`, `X[:, j]`, `X[1:, ::2]`, `x[None, :]`,
#   `np.transpose`, `.swapaxes`, `.reshape`, `.ravel()`, `for row in X`.
# - **Element-wise expressions with broadcasting**, fused into one loop: arithmetic,
#   comparisons, `&`/`|`/`~`, ufuncs (`np.exp`, `np.log`, `np.tanh`, `np.sqrt`, `np.log1p`, ...),
#   `np.where`, `np.maximum`/`np.minimum`/`np.clip`, `np.sign`; NumPy's dtype promotion.
# - **Reductions** with `axis=` and `keepdims=` (also as methods): `np.sum`, `np.mean`,
#   `np.std`, `np.var`, `np.prod`, `np.max`/`np.min`, `np.argmax`/`np.argmin`, `np.cumsum`,
#   `np.linalg.norm`; **contractions**: `@`, `np.dot`, `np.outer`, `np.inner`, `np.trace`,
#   two-operand `np.einsum`.
# - **Constructors**: `np.zeros`/`ones`/`empty`/`full` (and `_like`), `np.arange`, `np.linspace`,
#   `np.eye`, `np.array([...])`, `np.concatenate`, `np.stack`, `x.copy()`.
# - **Masks and index arrays**: `x[x > 0]`, `x[x < 0] = 0.0`, `x[idx]` with an integer array.
# - **Writes** with NumPy semantics: `y[1:] = expr`, `X[:, j] = col`,
#   `u[1:-1] += k * (u[:-2] - 2 * u[1:-1] + u[2:])`.
#
# A shape mismatch that NumPy would reject is a `ValueError` with the source line when the
# function is called (the file name is the notebook cell's, replaced here by `<cell>`):

# %%
try:
    ez.grad(least_squares)(w, b, wide, y)  # 100x6 @ 3
except ValueError as err:
    print("ValueError:", str(err).replace(least_squares.__code__.co_filename, "<cell>"))

# %% [markdown]
# A construct outside the subset is a `FrontendError` when the function is compiled, with the
# line, a caret, and what is supported instead. Sorting is one such construct:

# %%
def sorted_weights(x):
    y = x.copy()
    y.sort()
    return np.sum(y * np.arange(3.0))


try:
    ez.grad(sorted_weights)(np.array([1.0, -2.0, 3.0]))
except ez.FrontendError as err:
    print(str(err).replace(err.filename, "<cell>"))

# %% [markdown]
# Boolean mask indexing, whose result has a length known only at run time, works both as a
# value and inside a reduction (JAX handles `x[x > 0]` only outside `jax.jit`; `check_grad`
# runs it eagerly):

# %%
def positive_part(x):
    return x[x > 0]


def positive_energy(x):
    return np.sum(x[x > 0] ** 2)


x = np.array([1.0, -2.0, 3.0, -0.5])
print(ez.jit(positive_part)(x))
print(check_grad(positive_energy, x, reference=jax_version(positive_energy)))

# %% [markdown]
# ## Loops work too (and are often the fastest form)
#
# Code written with scalar loops, indexing (`a[i]`, `a[i, j]`), `if`/`while` and `math`
# functions compiles to the same kind of native code. A loop keeps one element at a time in
# registers and needs no temporary arrays at all, in the primal or in the gradient; compare the
# two Rosenbrock rows of the timing above. Integer arguments, such as a loop count, are
# constants: only floats and float arrays can be differentiated.

# %%
def power_series(x, n):
    s = 0.0
    term = 1.0
    for k in range(n):
        s += term
        term *= x / (k + 1)
    return s  # approximates exp(x)


print(ez.grad(power_series)(0.7, 20), math.exp(0.7))
try:
    ez.grad(power_series, argnums=1)(0.7, 20)
except ez.EnzymePyError as err:
    print("EnzymePyError:", err)

# %% [markdown]
# For loop-style code `check_grad` needs no `reference`: it runs *the same Python function*
# under `jax.grad`, element by element (eagerly, so keep the inputs small). Here a loop-style
# loss for the model `a * exp(-b t) + c`, and then what a failure looks like, with a
# deliberately wrong reference:

# %%
def decay_loss(params, t, y):
    s = 0.0
    for i in range(t.shape[0]):
        r = params[0] * math.exp(-params[1] * t[i]) + params[2] - y[i]
        s += r * r
    return s / t.shape[0]


t = np.linspace(0.0, 4.0, 10)
data = 2.0 * np.exp(-1.3 * t) + 0.5
print(check_grad(decay_loss, np.array([1.0, 1.0, 0.0]), t, data))


def wrong_reference(x):
    return 1.01 * jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


try:
    check_grad(rosenbrock_loop, np.array([0.0, 0.5, 1.5]), reference=wrong_reference)
except AssertionError as err:
    print(err)

# %% [markdown]
# Indexing is bounds-checked; an out-of-range index is a Python `IndexError`, never a crash:

# %%
def off_by_one(a):
    s = 0.0
    for i in range(len(a) + 1):
        s += a[i]
    return s


try:
    ez.grad(off_by_one)(np.ones(3))
except IndexError as err:
    print("IndexError:", str(err).replace(off_by_one.__code__.co_filename, "<cell>"))

# %% [markdown]
# ## Next
#
# - [02_how_it_works](02_how_it_works.ipynb): the compiler stages behind `grad`.
# - [04_fitting](04_fitting.ipynb): fitting models with these gradients.
# - [06_forward_hessians_custom](06_forward_hessians_custom.ipynb): forward mode, Jacobians and
#   Hessians.
