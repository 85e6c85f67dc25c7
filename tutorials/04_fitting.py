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
# # 4. Fitting an ODE model to data
#
# A typical use of gradients: estimate the parameters of a simulation from measurements. The
# model is a damped oscillator,
#
# $$\ddot x + 2\zeta\omega\,\dot x + \omega^2 x = 0,\qquad x(0) = x_0,\ \dot x(0) = 0,$$
#
# with unknown frequency $\omega$, damping ratio $\zeta$ and initial displacement $x_0$. We
# integrate it with the classical Runge–Kutta method (RK4) written as plain Python loops,
# measure $x$ at 60 times with noise, and recover the parameters by minimizing the mean squared
# error with `scipy.optimize.minimize` (L-BFGS-B) and with plain gradient descent, using
# gradients from `ez.value_and_grad`.
#
# Nothing here is vectorized: the time stepping is a loop, and a helper function returns a
# tuple. Both are fine in the subset, and both are compiled to native code.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from scipy.optimize import minimize

import enzyme_py as ez
from enzyme_py.testing import check_grad

# %% [markdown]
# ## The model

# %%
def accel(x, v, omega, zeta):
    """x'' as a function of the state."""
    return -2.0 * zeta * omega * v - omega * omega * x


def rk4_step(x, v, omega, zeta, dt):
    """One RK4 step of the first-order system x' = v, v' = accel(x, v)."""
    k1x = v
    k1v = accel(x, v, omega, zeta)
    k2x = v + 0.5 * dt * k1v
    k2v = accel(x + 0.5 * dt * k1x, v + 0.5 * dt * k1v, omega, zeta)
    k3x = v + 0.5 * dt * k2v
    k3v = accel(x + 0.5 * dt * k2x, v + 0.5 * dt * k2v, omega, zeta)
    k4x = v + dt * k3v
    k4v = accel(x + dt * k3x, v + dt * k3v, omega, zeta)
    x_new = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
    v_new = v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
    return x_new, v_new


def simulate(params, t, steps, out):
    """Write x(t[k]) into out[k]; `steps` RK4 steps between consecutive times."""
    omega = params[0]
    zeta = params[1]
    x = params[2]
    v = 0.0
    out[0] = x
    for k in range(1, t.shape[0]):
        dt = (t[k] - t[k - 1]) / steps
        for _ in range(steps):
            x, v = rk4_step(x, v, omega, zeta, dt)
        out[k] = x


def loss(params, t, y, steps):
    """Mean squared error between the simulated x(t[k]) and the data y[k]."""
    omega = params[0]
    zeta = params[1]
    x = params[2]
    v = 0.0
    r = x - y[0]
    s = r * r
    for k in range(1, t.shape[0]):
        dt = (t[k] - t[k - 1]) / steps
        for _ in range(steps):
            x, v = rk4_step(x, v, omega, zeta, dt)
        r = x - y[k]
        s += r * r
    return s / t.shape[0]

# %% [markdown]
# ## Synthetic data
#
# `ez.jit(simulate)` compiles the simulator; it writes into the array `out` like the Python
# version would.

# %%
STEPS = 10
truth = np.array([2.0, 0.15, 1.0])  # omega, zeta, x0
t = np.linspace(0.0, 10.0, 60)
clean = np.empty_like(t)
run_simulation = ez.jit(simulate)
run_simulation(truth, t, STEPS, clean)

rng = np.random.default_rng(42)
y = clean + 0.05 * rng.normal(size=t.size)

reference = np.empty_like(t)
simulate(truth, t, STEPS, reference)  # plain Python, for comparison
print("compiled vs Python simulator, largest difference:", np.max(np.abs(clean - reference)))

# %% [markdown]
# ## Gradients, checked
#
# Before optimizing, check the gradient of the loss against JAX and finite differences on a
# short piece of the data (JAX runs this loop eagerly, one operation at a time, so we keep it
# small):

# %%
start = np.array([1.5, 0.3, 0.8])
check_grad(loss, start, t[:5], y[:5], 2)

# %%
loss_and_grad = ez.value_and_grad(loss)
value, gradient = loss_and_grad(start, t, y, STEPS)
print("loss", value, " gradient", gradient)

# %% [markdown]
# ## L-BFGS-B with `jac=True`
#
# `scipy.optimize.minimize` accepts one function returning `(value, gradient)` when `jac=True`,
# which is exactly what `value_and_grad` gives. Bounds keep the parameters physical.

# %%
lbfgs_history = []


def objective(p):
    value, gradient = loss_and_grad(p, t, y, STEPS)
    lbfgs_history.append(value)
    return value, gradient


tic = time.perf_counter()
result = minimize(objective, start, jac=True, method="L-BFGS-B",
                  bounds=[(0.1, 5.0), (0.0, 1.0), (-3.0, 3.0)])
elapsed = time.perf_counter() - tic
print(result.message)
print(f"{result.nit} iterations, {result.nfev} loss+gradient evaluations, {elapsed:.3f} s")
print("fitted  omega, zeta, x0 =", np.round(result.x, 4))
print("truth   omega, zeta, x0 =", truth)

# %% [markdown]
# ## Plain gradient descent
#
# The same gradients drive a hand-written optimizer just as well; here gradient descent with
# momentum and a fixed step:

# %%
p = start.copy()
velocity = np.zeros_like(p)
gd_history = []
tic = time.perf_counter()
for _ in range(1000):
    value, gradient = loss_and_grad(p, t, y, STEPS)
    gd_history.append(value)
    velocity = 0.9 * velocity - 0.02 * gradient
    p = p + velocity
elapsed = time.perf_counter() - tic
print(f"1000 steps in {elapsed:.3f} s; fitted omega, zeta, x0 =", np.round(p, 4))

# %% [markdown]
# ## The fit and the loss curves

# %%
fitted = np.empty_like(t)
run_simulation(result.x, t, STEPS, fitted)
guess = np.empty_like(t)
run_simulation(start, t, STEPS, guess)
dense_t = np.linspace(0.0, 10.0, 400)
dense = np.empty_like(dense_t)
run_simulation(result.x, dense_t, 2, dense)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 3.8))
ax1.plot(t, y, "o", ms=4, color="0.4", label="noisy data")
ax1.plot(t, guess, "--", color="tab:orange", label="initial guess")
ax1.plot(dense_t, dense, color="tab:blue", label="L-BFGS-B fit")
ax1.set_xlabel("t")
ax1.set_ylabel("x(t)")
ax1.set_title("damped oscillator")
ax1.legend()
ax2.semilogy(np.arange(1, len(lbfgs_history) + 1), lbfgs_history, ".-",
             label="L-BFGS-B (per evaluation)")
ax2.semilogy(np.arange(1, len(gd_history) + 1), gd_history,
             label="gradient descent + momentum (per step)")
ax2.axhline(loss(truth, t, y, STEPS), color="0.6", ls=":", label="loss at the true parameters")
ax2.set_xscale("log")
ax2.set_xlabel("loss + gradient evaluations")
ax2.set_ylabel("mean squared error")
ax2.set_title("loss")
ax2.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# %%
print("loss at the true parameters:", loss(truth, t, y, STEPS))
print("loss after L-BFGS-B:        ", lbfgs_history[-1])
print("loss after gradient descent:", gd_history[-1])

# %% [markdown]
# Both optimizers end slightly *below* the loss of the true parameters: with 60 noisy samples,
# the fitted parameters absorb a little of the noise. L-BFGS-B needs far fewer evaluations than
# gradient descent, because it builds a curvature model from the gradients.
#
# Next: [05_performance](05_performance.ipynb) measures how fast these gradients are, and
# [06_forward_hessians_custom](06_forward_hessians_custom.ipynb) computes the Hessian of a loss
# like this one.
