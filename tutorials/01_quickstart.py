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
# # 1. Quickstart: gradients of plain Python
#
# enzyme_py differentiates ordinary Python functions written in a small numeric subset: floats,
# ints, numpy arrays, loops, branches and `math` functions. If you know `jax.grad`, you already
# know the interface. What happens underneath is different: your function is compiled to LLVM IR,
# optimized, differentiated *at the IR level*, optimized again, and compiled to native code.
# There is no tracing, so Python `for` loops, `while` loops and `if` statements on values work
# as written.
#
# This notebook covers `grad`, `value_and_grad`, `argnums`, arrays, `jit`, and how to check a
# gradient against JAX and finite differences with `enzyme_py.testing.check_grad`.

# %%
import math
import time

import jax
import jax.numpy as jnp
import numpy as np

import enzyme_py as ez
from enzyme_py.testing import check_grad

jax.config.update("jax_enable_x64", True)  # compare in float64, like our gradients

# %% [markdown]
# ## A first gradient
#
# `ez.grad(f)` returns a function that computes the derivative of `f` with respect to its first
# argument. It works as a decorator too.

# %%
def f(x, y):
    return x * math.sin(y) + y * y


df_dx = ez.grad(f)
print(df_dx(1.5, 0.5))
print(math.sin(0.5))  # d/dx (x sin y + y^2) = sin y

# %%
@ez.grad
def dsquare(x):
    return x * x


dsquare(3.0)

# %% [markdown]
# The first call compiles the function for the types of its arguments (here one float); later
# calls with the same types reuse the native code. The timings below are measured on the
# machine that ran this notebook.

# %%
def cubic(x):
    return x * x * x - 2.0 * x


g = ez.grad(cubic)
start = time.perf_counter()
g(1.0)
first = time.perf_counter() - start
start = time.perf_counter()
for _ in range(1000):
    g(1.0)
later = (time.perf_counter() - start) / 1000
print(f"first call (compiles): {first * 1e3:.0f} ms, later calls: {later * 1e6:.1f} us each")

# %% [markdown]
# ## `value_and_grad` and `argnums`
#
# As in JAX, `value_and_grad` returns the value and the gradient from one call, and `argnums`
# picks the arguments to differentiate: an integer gives one gradient, a tuple gives a tuple.

# %%
value, slope = ez.value_and_grad(f)(1.5, 0.5)
print("value", value, "  df/dx", slope)
print("df/dy  ", ez.grad(f, argnums=1)(1.5, 0.5))
print("both   ", ez.grad(f, argnums=(0, 1))(1.5, 0.5))

# %% [markdown]
# Only floats (and float arrays) can be differentiated. Integer arguments, such as a loop count,
# are constants:

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
# ## Arrays
#
# Numpy arrays are passed to native code without copying. The gradient with respect to an
# array is an array of the same shape, exactly like `jax.grad`. Indexing (`a[i]`, `a[i, j]`),
# `a.shape`, `len(a)`, loops over `range`, and `np.sum`, `np.dot`, `@` are available. Here is a
# least-squares loss for the model `a * exp(-b t) + c`:

# %%
def loss(params, t, y):
    s = 0.0
    for i in range(t.shape[0]):
        r = params[0] * math.exp(-params[1] * t[i]) + params[2] - y[i]
        s += r * r
    return s / t.shape[0]


rng = np.random.default_rng(0)
t = np.linspace(0.0, 4.0, 50)
y = 2.0 * np.exp(-1.3 * t) + 0.5 + 0.01 * rng.normal(size=t.size)
params = np.array([1.0, 1.0, 0.0])

print("loss    ", loss(params, t, y))
print("gradient", ez.grad(loss)(params, t, y))

# %% [markdown]
# With `argnums=(0, 2)` we get the gradient with respect to the parameters and to the data `y`:

# %%
g_params, g_y = ez.grad(loss, argnums=(0, 2))(params, t, y)
print(g_params.shape, g_y.shape)

# %% [markdown]
# The same loss written with `jax.numpy` gives the same gradient:

# %%
def loss_jax(params, t, y):
    return jnp.mean((params[0] * jnp.exp(-params[1] * t) + params[2] - y) ** 2)


ours = ez.grad(loss)(params, t, y)
theirs = np.asarray(jax.grad(loss_jax)(params, t, y))
print("largest difference:", np.max(np.abs(ours - theirs)))

# %% [markdown]
# ## Checking gradients with `check_grad`
#
# You do not have to rewrite a function in `jax.numpy` to check it. `check_grad(f, *args,
# argnums=...)` runs *the same Python function* under `jax.grad` (it swaps `math` and `numpy`
# for JAX-backed versions), compares with our gradient, also compares with central finite
# differences, and raises an `AssertionError` with a table of the worst entries on a mismatch.
# It returns our gradient.

# %%
check_grad(loss, params, t[:10], y[:10], argnums=(0, 2))

# %% [markdown]
# (JAX runs eagerly inside `check_grad`, one scalar operation at a time, so keep the checked
# inputs small.) Here is what a failure looks like: a "gradient" that is deliberately wrong,
# passed to JAX as the `reference`.

# %%
def energy(k, x):
    e = 0.0
    for i in range(x.shape[0] - 1):
        e += k * (x[i + 1] - x[i]) ** 2 + math.cos(x[i])
    return e


def wrong_reference(k, x):
    return 1.01 * jnp.sum(k * (x[1:] - x[:-1]) ** 2 + jnp.cos(x[:-1]))


x = np.array([0.0, 0.5, 1.5])
try:
    check_grad(energy, 2.0, x, argnums=1, reference=wrong_reference)
except AssertionError as err:
    print(err)

# %% [markdown]
# ## Native primal code: `jit`
#
# `ez.jit(f)` compiles the function itself, without a gradient:

# %%
fast_loss = ez.jit(loss)
print(fast_loss(params, t, y), loss(params, t, y))

# %% [markdown]
# ## What is outside the subset
#
# Constructs outside the subset are reported when the function is compiled, with the line and
# a caret (the file name is the notebook cell's, replaced here by `<cell>`):

# %%
def uses_a_list(x):
    values = [x, 2.0 * x]
    return values[0]


try:
    ez.grad(uses_a_list)(1.0)
except ez.FrontendError as err:
    print(str(err).replace(err.filename, "<cell>"))

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
# - [06_forward_hessians_custom](06_forward_hessians_custom.ipynb): forward mode, Jacobians and
#   Hessians.
