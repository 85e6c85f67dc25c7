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
# # 6. Forward mode, Jacobians, Hessians, and custom rules
#
# Reverse mode (`grad`) gives the derivative of one output with respect to all inputs in one
# sweep. Forward mode gives the derivative of all outputs along one input direction. This
# notebook covers
#
# - `ez.jvp`: forward mode, like `jax.jvp`;
# - `ez.jacfwd` and `ez.jacrev`: Jacobians by forward or reverse sweeps;
# - `ez.hvp` and `ez.hessian`: second derivatives by forward-over-reverse;
# - `ez.inactive`: functions that carry no derivative;
# - `ez.custom_jvp` and `ez.custom_vjp`: your own derivative rules,
#
# each checked against JAX.

# %%
import math
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import enzyme_py as ez
from enzyme_py.testing import check_grad

jax.config.update("jax_enable_x64", True)


def rosenbrock(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def rosenbrock_jax(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


x = np.array([0.5, -0.3, 1.2, 0.8])
v = np.array([1.0, 0.0, -1.0, 2.0])

# %% [markdown]
# ## Forward mode: `jvp`
#
# `ez.jvp(f, primals, tangents)` returns `f(*primals)` and the directional derivative along
# `tangents`, one tangent per argument (zero for arguments you do not vary, and any value for
# integers, which have no tangent). One forward sweep costs a small multiple of one evaluation
# of `f`, whatever the number of inputs.

# %%
value, slope = ez.jvp(rosenbrock, (x,), (v,))
ref_value, ref_slope = jax.jvp(rosenbrock_jax, (x,), (v,))
print("enzyme_py:", value, slope)
print("jax.jvp:  ", float(ref_value), float(ref_slope))
print("grad . v: ", ez.grad(rosenbrock)(x) @ v)

# %% [markdown]
# With several arguments, the tangents say how each one moves. Here only `a` moves:

# %%
def decay(a, b, t):
    s = 0.0
    for i in range(t.shape[0]):
        s += a * math.exp(-b * t[i])
    return s


t = np.linspace(0.0, 2.0, 5)
print(ez.jvp(decay, (2.0, 0.7, t), (1.0, 0.0, np.zeros_like(t))))
print(jax.jvp(lambda a, b, t: jnp.sum(a * jnp.exp(-b * t)), (2.0, 0.7, t),
              (1.0, 0.0, np.zeros_like(t))))

# %% [markdown]
# ### Vector forward mode
#
# Several tangents can be propagated in one sweep ("vector mode"). The Python API does not
# expose it; the command line (`enzyme-py grad --mode forward --width k`) and the C ABI
# (`__enzyme_fwddiff` with `enzyme_width, k`) do. For IR taken from a Python function, the
# generated function takes `k` tangents per float argument and returns the `k` directional
# derivatives:

# %%
def polar_x(r, theta):
    return r * math.cos(theta)


with tempfile.TemporaryDirectory() as tmp:
    Path(tmp, "polar_x.ll").write_text(ez.show(polar_x, 1.0, 0.5, stage="python"))
    subprocess.run([sys.executable, "-m", "enzyme_py", "grad", "polar_x.ll", "-f", "polar_x",
                    "--mode", "forward", "--width", "2", "-o", "polar_x_fwd.ll"],
                   cwd=tmp, check=True)
    ir = Path(tmp, "polar_x_fwd.ll").read_text()
print(next(line for line in ir.splitlines() if line.startswith("define")
           and "@fwddiffe_polar_x(" in line))

# %% [markdown]
# ## Jacobians: `jacfwd` and `jacrev`
#
# `ez.jacfwd(f)` runs one forward sweep per input element; `ez.jacrev(f)` one reverse sweep
# per output. For a scalar function both give the gradient, with the input's shape:

# %%
print(ez.jacfwd(rosenbrock)(x))
print(ez.jacrev(rosenbrock)(x))
print(np.asarray(jax.jacfwd(rosenbrock_jax)(x)))

# %% [markdown]
# Functions returning a tuple of floats are differentiated with `jacrev` (a row per output,
# via `ez.vjp`). `jacfwd` needs a function returning one float.

# %%
def to_cartesian(r, theta):
    return r * math.cos(theta), r * math.sin(theta)


for argnum in (0, 1):
    ours = ez.jacrev(to_cartesian, argnum)(2.0, 0.3)
    theirs = jax.jacrev(lambda r, th: jnp.stack([r * jnp.cos(th), r * jnp.sin(th)]),
                        argnum)(2.0, 0.3)
    print(f"d(x, y)/d{'r' if argnum == 0 else 'theta'}: {ours}  jax: {np.asarray(theirs)}")

# %% [markdown]
# ## Second derivatives: `hvp` and `hessian`
#
# The Hessian-vector product is forward mode applied to the reverse-mode gradient
# ("forward-over-reverse"): the forward transform runs on the *IR of the gradient*, which is
# just another function. `ez.hessian` builds the full matrix from one `hvp` per column.

# %%
H = ez.hessian(rosenbrock)(x)
H_jax = np.asarray(jax.hessian(rosenbrock_jax)(x))
print(H)
print("largest difference from jax.hessian:", np.max(np.abs(H - H_jax)))

(Hv,) = ez.hvp(rosenbrock, (x,), (v,))
Hv_jax = jax.jvp(jax.grad(rosenbrock_jax), (x,), (v,))[1]
print("hvp:", Hv, "  jax:", np.asarray(Hv_jax))

# %% [markdown]
# With the gradient and the Hessian, Newton's method on the Rosenbrock function heads for the
# minimum at (1, 1, 1, 1); once close, each step roughly squares the error:

# %%
z = np.array([0.8, 0.6, 0.5, 0.3])
grad_rosen = ez.grad(rosenbrock)
hess_rosen = ez.hessian(rosenbrock)
for step in range(10):
    z = z - np.linalg.solve(hess_rosen(z), grad_rosen(z))
    print(f"step {step}: f = {rosenbrock(z):.3e}   max |z - 1| = {np.max(np.abs(z - 1)):.1e}")

# %% [markdown]
# ## Functions without a derivative: `ez.inactive`
#
# A helper decorated with `@ez.inactive` is treated as a constant by differentiation, like
# `jax.lax.stop_gradient` applied to its result. Typical uses: logging, or a normalization that
# the optimizer should not see.

# %%
@ez.inactive
def reference_scale(x, target):
    scale = 0.0
    for i in range(x.shape[0]):
        scale += target[i] ** 2 + x[i] ** 2
    return scale


def relative_error(x, target):
    s = 0.0
    for i in range(x.shape[0]):
        s += (x[i] - target[i]) ** 2
    return s / reference_scale(x, target)


def relative_error_jax(x, target):
    scale = jax.lax.stop_gradient(jnp.sum(target ** 2 + x ** 2))
    return jnp.sum((x - target) ** 2) / scale


target = np.array([1.0, 2.0, 3.0, 4.0])
print("enzyme_py:", ez.grad(relative_error)(x, target))
print("jax:      ", np.asarray(jax.grad(relative_error_jax)(x, target)))

# %% [markdown]
# ## Custom derivative rules
#
# Sometimes the derivative that AD computes is not the one you want: it overflows, it is
# undefined at a point where you know the right value, or you know a cheaper formula. As in
# JAX, `ez.custom_jvp` and `ez.custom_vjp` attach your own rule to a function. The rules are
# functions of the same Python subset; they are compiled together with the code that calls
# them, and registered in Enzyme's ABI, so the rule runs natively.
#
# ### `custom_jvp`: a stable softplus
#
# `log(1 + exp(x))` overflows for large `x`, and so does its derivative as AD sees it,
# `exp(x) / (1 + exp(x))`, which becomes `inf / inf = nan`. A `custom_jvp` rule returns the
# value and the tangent of the output; here the tangent uses the stable form
# `1 / (1 + exp(-x))`:

# %%
def softplus_plain(x):
    return math.log(1.0 + math.exp(x))


@ez.custom_jvp
def softplus(x):
    return math.log(1.0 + math.exp(x))


@softplus.defjvp
def softplus_jvp(x, dx):
    return softplus(x), dx / (1.0 + math.exp(-x))


def loss_plain(x):
    return 2.0 * softplus_plain(x)


def loss(x):
    return 2.0 * softplus(x)


for point in (0.5, 1000.0):
    print(f"x = {point:6}:  AD of the body {ez.grad(loss_plain)(point)!s:20s}"
          f"custom rule {ez.grad(loss)(point)!s:20s} jvp {ez.jvp(loss, (point,), (1.0,))[1]}")
print("jax.grad of 2 softplus at 0.5:", float(jax.grad(lambda x: 2 * jax.nn.softplus(x))(0.5)))

# %% [markdown]
# The rule is used by forward mode (`jvp`) and by reverse mode (`grad`; it is linear in the
# tangent, so reverse mode differentiates it with respect to `dx`, as JAX transposes it).
#
# ### `custom_vjp`: a norm with a gradient at zero
#
# The Euclidean norm has no derivative at the origin, and AD of `sqrt(sum x^2)` gives
# `0 / 0 = nan` there. With `custom_vjp` you supply the two halves of reverse mode:
#
# - `fwd(*args)` returns the output and the *residuals* the backward rule needs, flat:
#   `(out, r1, ..., rk)`;
# - `bwd(r1, ..., rk, g)` gets the residuals and the output's cotangent `g`. It returns the
#   cotangents of the float arguments; for each array argument it also receives the array and
#   its cotangent array, after `g`, and *adds* into the latter.

# %%
@ez.custom_vjp
def norm(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return math.sqrt(s)


def norm_fwd(x):
    n = norm(x)
    return n, n  # the output, and the residual: the norm itself


def norm_bwd(n, g, x, x_bar):
    if n > 0.0:  # at the origin, choose the zero subgradient
        for i in range(x.shape[0]):
            x_bar[i] += g * x[i] / n


norm.defvjp(norm_fwd, norm_bwd)


def norm_plain(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * x[i]
    return math.sqrt(s)


def penalty(x, y):
    return norm(x) + 0.5 * norm(y)


def penalty_plain(x, y):
    return norm_plain(x) + 0.5 * norm_plain(y)


a = np.array([3.0, 4.0])
origin = np.zeros(2)
print("custom rule:   ", ez.grad(penalty, argnums=(0, 1))(a, origin))
print("AD of the body:", ez.grad(penalty_plain, argnums=(0, 1))(a, origin))

# %% [markdown]
# Away from the origin the rule must agree with the true gradient. `check_grad` compares our
# gradient with a JAX reference and with finite differences:

# %%
def penalty_jax(x, y):
    return jnp.linalg.norm(x) + 0.5 * jnp.linalg.norm(y)


check_grad(penalty, a, np.array([1.0, -2.0]), argnums=(0, 1), reference=penalty_jax)

# %% [markdown]
# For C and C++, the same mechanism is Enzyme's `__enzyme_register_gradient_f` (see
# [03_c_and_cpp](03_c_and_cpp.ipynb)); a `custom_vjp` function is registered in the IR the same
# way.
