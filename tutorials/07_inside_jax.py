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
# # 7. enzyme_py inside JAX
#
# `enzyme_py.jax.primitive(f)` turns a function of enzyme_py's Python subset into a real JAX
# primitive. Under `jax.jit` it is one XLA custom call (through the XLA FFI) into the native
# code enzyme_py compiled, so no Python runs on the hot path; JAX's transformations use
# enzyme_py's own derivatives: `jax.grad` its reverse mode, `jax.jvp`/`jacfwd` its forward
# mode, `jax.hessian` forward over reverse, and `jax.vmap` runs a whole batch in one call.
#
# This notebook fits the parameters of a small simulation written as a plain Python loop:
#
# - wrapping it as a primitive, with a dict of parameters (pytrees work as in JAX);
# - `jax.jit`, `jax.grad`, `jax.vmap` and `jax.hessian` of it, checked against the same
#   simulation written in `jax.numpy`;
# - a training loop with plain SGD, all in one jitted step;
# - errors (an index out of bounds) inside `jax.jit`;
# - the batch sharded over 4 CPU devices, under `jax.jit` and inside `shard_map`;
# - the cost of one call, against `jax.pure_callback`.
#
# JAX must be told to show 4 CPU devices before it is imported:

# %%
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import timeit  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import enzyme_py as ez  # noqa: E402
import enzyme_py.jax as ezjax  # noqa: E402

jax.config.update("jax_enable_x64", True)
print(jax.devices())

# %% [markdown]
# ## A simulation step as a JAX primitive
#
# A damped oscillator `x'' = -k x - c x'` integrated with `n` semi-implicit Euler steps, from
# an initial position and velocity. It is ordinary loop code: enzyme_py compiles it to native
# code (the loop stays a loop; nothing is unrolled or traced). `n` is a Python int, so JAX knows
# it when it traces, and it decides the shape of the result.

# %%
DT = 0.05


def simulate(params, x0, v0, n):
    k, c = params["k"], params["c"]
    x, v = x0, v0
    traj = np.zeros(n)
    for i in range(n):
        v = v + DT * (-k * x - c * v)
        x = x + DT * v
        traj[i] = x
    return traj


def simulate_jnp(params, x0, v0, n):  # the same in jax.numpy, to check against
    def body(state, _):
        x, v = state
        v = v + DT * (-params["k"] * x - params["c"] * v)
        x = x + DT * v
        return (x, v), x

    return jax.lax.scan(body, (x0, v0), None, length=n)[1]


sim = ezjax.primitive(simulate)
true = {"k": 4.0, "c": 0.3}
traj = sim(true, 1.0, 0.0, 8)
print(traj)
print(np.max(np.abs(traj - simulate_jnp(true, 1.0, 0.0, 8))))

# %% [markdown]
# Under `jax.jit` the call is one `stablehlo.custom_call` to a target whose name is a hash of
# the compiled code; there is no callback into Python:

# %%
text = jax.jit(lambda p, x0, v0: sim(p, x0, v0, 100)).lower(true, 1.0, 0.0).as_text()
print([line.strip()[:70] for line in text.splitlines() if "custom_call" in line])
print("callback" in text)

# %% [markdown]
# ## `jax.vmap` and `jax.grad`
#
# The data: 64 trajectories of 100 steps from random initial conditions, with noise. `vmap`
# over the initial conditions runs the batch in one call (the handler loops over it; the
# parameters, not batched, are read once). The loss is ordinary JAX code around the primitive,
# and `jax.grad` of it gives a dict like `params`, computed by enzyme_py's reverse mode.

# %%
N_STEPS, BATCH = 100, 64
rng = np.random.default_rng(0)
x0s = rng.uniform(-1.0, 1.0, BATCH)
v0s = rng.uniform(-1.0, 1.0, BATCH)
batched = jax.vmap(sim, in_axes=(None, 0, 0, None))
observed = batched(true, x0s, v0s, N_STEPS) + 0.01 * rng.normal(size=(BATCH, N_STEPS))


def loss(params, x0s, v0s, observed, run=sim):
    pred = jax.vmap(run, in_axes=(None, 0, 0, None))(params, x0s, v0s, N_STEPS)
    return jnp.mean((pred - observed) ** 2)


guess = {"k": 2.0, "c": 1.0}
grad = jax.jit(jax.grad(loss))
print(grad(guess, x0s, v0s, observed))
print(jax.grad(loss)(guess, x0s, v0s, observed, run=simulate_jnp))

# %% [markdown]
# ## Training with plain SGD
#
# One jitted step computes the loss and its gradient and updates the parameters (no optimizer
# library needed); everything, the primitive included, is one XLA program.

# %%
@jax.jit
def sgd_step(params, x0s, v0s, observed, lr=0.5):
    value, g = jax.value_and_grad(loss)(params, x0s, v0s, observed)
    return jax.tree.map(lambda p, d: p - lr * d, params, g), value


params = dict(guess)
for it in range(301):
    params, value = sgd_step(params, x0s, v0s, observed)
    if it % 60 == 0:
        print(f"step {it:3d}  loss {float(value):.6f}  k {float(params['k']):.4f}  "
              f"c {float(params['c']):.4f}")
print("true:", true)

# %% [markdown]
# ## Second derivatives
#
# `jax.hessian` (forward over reverse) works on the primitive, and so do `jacfwd(jacfwd)` and
# `grad` of `grad`. With the Hessian, a few Newton steps finish the fit:

# %%
hess = jax.jit(jax.hessian(loss))
H = hess(params, x0s, v0s, observed)
print({a: {b: float(H[a][b]) for b in H[a]} for a in H})
H_jnp = jax.hessian(loss)(params, x0s, v0s, observed, run=simulate_jnp)
print(max(abs(float(H[a][b] - H_jnp[a][b])) for a in H for b in H))

for _ in range(3):
    g = grad(params, x0s, v0s, observed)
    H = hess(params, x0s, v0s, observed)
    M = np.array([[H["c"]["c"], H["c"]["k"]], [H["k"]["c"], H["k"]["k"]]])
    step = np.linalg.solve(M, np.array([g["c"], g["k"]]))
    params = {"c": params["c"] - step[0], "k": params["k"] - step[1]}
print({k: float(v) for k, v in params.items()}, float(loss(params, x0s, v0s, observed)))

# %% [markdown]
# ## Errors inside `jax.jit`
#
# enzyme_py checks indices as NumPy does. Inside XLA a failed check becomes a
# `JaxRuntimeError` with the same message `ez.jit` gives, and the source line. Each call has
# its own error record, so calls XLA runs at the same time on several threads (one per device)
# each report their own failure.

# %%
def sample(traj, i):
    return traj[i] * 2.0


try:
    jax.jit(ezjax.primitive(sample))(jnp.arange(5.0), 7).block_until_ready()
except jax.errors.JaxRuntimeError as err:
    print(err)

# %% [markdown]
# ## Sharded over 4 devices
#
# The custom calls are registered as batch-partitionable: with the batch sharded across a mesh,
# each device runs the call on its own shard (XLA gathers nothing). Under plain `jax.jit`:

# %%
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

mesh = jax.make_mesh((4,), ("batch",))
shard = NamedSharding(mesh, P("batch"))
x0_s, v0_s, obs_s = (jax.device_put(a, shard) for a in (x0s, v0s, observed))
g_sharded = grad(guess, x0_s, v0_s, obs_s)
print(g_sharded)
print(max(abs(float(g_sharded[k] - grad(guess, x0s, v0s, observed)[k])) for k in guess))
hlo = grad.lower(guess, x0_s, v0_s, obs_s).compile().as_text()
print([line.split("custom-call(")[0].strip() for line in hlo.splitlines()
       if "custom_call_target=\"enzyme_py_" in line])

# %% [markdown]
# Each device's call has 16 of the 64 trajectories. The same with explicit per-device code,
# `shard_map`, summing the per-device losses with `psum`:

# %%
def local_loss(params, x0s, v0s, observed):
    pred = jax.vmap(sim, in_axes=(None, 0, 0, None))(params, x0s, v0s, N_STEPS)
    # observed is this device's shard: divide by the size of the whole batch
    return jax.lax.psum(jnp.sum((pred - observed) ** 2), "batch") / (BATCH * N_STEPS)


sharded_loss = jax.shard_map(local_loss, mesh=mesh,
                             in_specs=(P(), P("batch"), P("batch"), P("batch")), out_specs=P())
print(jax.jit(jax.grad(sharded_loss))(guess, x0_s, v0_s, obs_s))

# %% [markdown]
# ## The cost of a call
#
# A chain of `K` dependent calls on a 16-element array inside one jitted program, minus the
# same program without them, over `K`: the cost of one call. The primitive is a direct call into
# native code; `jax.pure_callback` into `ez.jit(f)` goes back to Python for every call.
# (`benchmarks/bench_jax_ffi.py` measures more carefully.)

# %%
def wobble(x):
    return np.sin(x) * x


native = ez.jit(wobble)
spec = jax.ShapeDtypeStruct((16,), jnp.float64)
ways = {
    "primitive (XLA FFI)": ezjax.primitive(wobble),
    "jax.numpy": lambda x: jnp.sin(x) * x,
    "pure_callback": lambda x: jax.pure_callback(lambda v: native(np.asarray(v)), spec, x),
}


def chain(call, k):
    def f(x):
        for _ in range(k):
            x = x + 1e-3 * call(x)
        return x

    return jax.jit(f)


def seconds(fn, number):  # the best of 5 runs: the least disturbed by other processes
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


x16 = jnp.linspace(0.0, 1.0, 16)
for name, call in ways.items():
    k = 10 if name == "pure_callback" else 200
    base, chained = chain(call, 0), chain(call, k)
    base(x16).block_until_ready(), chained(x16).block_until_ready()
    t0 = seconds(lambda b=base: b(x16).block_until_ready(), 50)
    t1 = seconds(lambda c=chained: c(x16).block_until_ready(), 50)
    print(f"{name:22s} {(t1 - t0) / k * 1e6:8.2f} us per call")

# %% [markdown]
# The primitive costs about a microsecond a call or less, as XLA's own fused code does for so
# small an array; the callback costs a hundred times more, most of it the trip back into
# Python and the copies of its arguments.
