"""`enzyme_py.jax` on 4 CPU devices (a subprocess with
`XLA_FLAGS=--xla_force_host_platform_device_count=4`): a data-parallel loss over a sharded
batch under `jax.jit` and inside `shard_map` (with `check_vma` on and off), gradients equal to
the unsharded ones, each device running the custom call on its own shard, whichever operand
holds the batch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r'''
import re
import jax, jax.numpy as jnp, numpy as np
jax.config.update("jax_enable_x64", True)
from jax.sharding import NamedSharding, PartitionSpec as P
import enzyme_py.jax as ezjax

def residual(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += (w[i] * x[i] - 1.0) ** 2
    return s

op = ezjax.primitive(residual)
assert jax.device_count() == 4
mesh = jax.make_mesh((4,), ("b",))
w = jnp.linspace(0.1, 1.0, 8)
xs = jnp.arange(64.0).reshape(8, 8) / 64

def loss(w, xs):
    return jnp.mean(jax.vmap(op, in_axes=(0, None))(xs, w))

def loss_jnp(w, xs):
    return jnp.mean(jnp.sum((w * xs - 1.0) ** 2, axis=1))

g0 = jax.grad(loss_jnp)(w, xs)
xs_s = jax.device_put(xs, NamedSharding(mesh, P("b")))
w_r = jax.device_put(w, NamedSharding(mesh, P()))
grad = jax.jit(jax.grad(loss))
np.testing.assert_allclose(grad(w_r, xs_s), g0, rtol=1e-12)
hlo = grad.lower(w_r, xs_s).compile().as_text()
calls = [l for l in hlo.splitlines() if "custom_call_target=\"enzyme_py_" in l]
assert calls and all("f64[2,8]" in l for l in calls), calls   # a quarter of the batch each
params = set(re.findall(r"(%param[.\d]*) = f64\[2,8\]", hlo))
gathered = set(re.findall(r"all-gather\((%param[.\d]*)\)", hlo))
assert params and not (params & gathered), "the batch input was all-gathered"

for check in (True, False):
    f = jax.shard_map(
        lambda w, xs: jax.lax.psum(jnp.sum(jax.vmap(op, in_axes=(0, None))(xs, w)), "b") / 8,
        mesh=mesh, in_specs=(P(), P("b")), out_specs=P(), check_vma=check)
    np.testing.assert_allclose(jax.jit(f)(w_r, xs_s), loss_jnp(w, xs), rtol=1e-12)
    np.testing.assert_allclose(jax.jit(jax.grad(f))(w_r, xs_s), g0, rtol=1e-12)
    assert "all-gather" not in jax.jit(jax.grad(f)).lower(w_r, xs_s).compile().as_text()

# the batch in the second operand: the custom call lists the sharded one first
def residual_wx(w, x):
    return residual(x, w)

op_wx = ezjax.primitive(residual_wx)
loss_wx = lambda w, xs: jnp.mean(jax.vmap(op_wx, in_axes=(None, 0))(w, xs))
for fn in (jax.jit(loss_wx), jax.jit(jax.grad(loss_wx))):
    hlo = fn.lower(w_r, xs_s).compile().as_text()
    calls = [l for l in hlo.splitlines() if "custom_call_target=\"enzyme_py_" in l]
    assert calls and all("f64[2,8]" in l.split("custom-call(")[0] or "f64[2]" in
                         l.split("custom-call(")[0] for l in calls), calls
    params = set(re.findall(r"(%param[.\d]*) = f64\[2,8\]", hlo))
    gathered = set(re.findall(r"all-gather\((%param[.\d]*)\)", hlo))
    assert params and not (params & gathered), "the batch input was all-gathered"
np.testing.assert_allclose(jax.jit(jax.grad(loss_wx))(w_r, xs_s), g0, rtol=1e-12)
np.testing.assert_allclose(jax.jit(loss_wx)(w_r, xs_s), loss_jnp(w, xs), rtol=1e-12)
f = jax.shard_map(lambda w, xs: jax.lax.psum(jnp.sum(jax.vmap(op_wx, in_axes=(None, 0))(w, xs)),
                                             "b") / 8,
                  mesh=mesh, in_specs=(P(), P("b")), out_specs=P())
np.testing.assert_allclose(jax.jit(jax.grad(f))(w_r, xs_s), g0, rtol=1e-12)
hlo = jax.jit(jax.grad(f)).lower(w_r, xs_s).compile().as_text()
calls = [l for l in hlo.splitlines() if "custom_call_target=\"enzyme_py_" in l]
# inside shard_map nothing is broadcast: w is read with stride 0 from its own buffer
assert "all-gather" not in hlo and calls and all("{f64[8]{0}, f64[2,8]{1,0}" in l
                                                 for l in calls), calls

# operands that are only batch axes (a float per batch element): still one shard per device
def decay(k, x0):
    y = np.zeros(4)
    x = x0
    for i in range(4):
        x = x * (1.0 - k)
        y[i] = x
    return y

op_decay = ezjax.primitive(decay)
x0s = jax.device_put(jnp.linspace(-1.0, 1.0, 8), NamedSharding(mesh, P("b")))
fit = lambda k, x0s: jnp.sum(jax.vmap(op_decay, in_axes=(None, 0))(k, x0s) ** 2)
fit_jnp = lambda k, x0s: jnp.sum((x0s[:, None] * (1.0 - k) ** jnp.arange(1, 5)) ** 2)
for fn in (jax.jit(fit), jax.jit(jax.grad(fit))):
    hlo = fn.lower(0.1, x0s).compile().as_text()
    calls = [l.split("custom-call(")[0] for l in hlo.splitlines()
             if "custom_call_target=\"enzyme_py_" in l]
    assert calls and all("f64[2,4]" in l or "f64[2]" in l for l in calls), calls
np.testing.assert_allclose(jax.jit(jax.grad(fit))(0.1, x0s),
                           jax.grad(fit_jnp)(0.1, np.linspace(-1.0, 1.0, 8)), rtol=1e-12)
print("OK")
'''


def test_data_parallel_on_four_devices(tmp_path):
    script = tmp_path / "sharded.py"  # a file: the front end reads the function's source
    script.write_text(SCRIPT)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=4",
               PYTHONPATH=str(ROOT))
    res = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300, check=False)
    assert res.returncode == 0 and res.stdout.strip().endswith("OK"), res.stdout + res.stderr
