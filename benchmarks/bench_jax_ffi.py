"""Per-call cost of an enzyme_py function inside one jitted JAX graph (microseconds, medians).

A chain of K dependent calls `x = x + 1e-3 * f(x)` on a 16-element array is jitted as one graph
and timed against the same chain with K = 0; the difference over K is the cost of one call (the
function itself is a few nanoseconds). Compared: `enzyme_py.jax.primitive` (an XLA FFI custom
call into native code), the same function written in jax.numpy (XLA's own fused code), and
`jax.pure_callback` into `ez.jit(f)` (Python on the hot path). Also the gradient of the chain,
and one jitted SGD step of ADBench's GMM objective (`objectives/gmm.py`, d=10 K=25 n=1000)
with the objective as the primitive against the same step in pure JAX (milliseconds).
Run: `python benchmarks/bench_jax_ffi.py [--quick]`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import enzyme_py as ez  # noqa: E402
import enzyme_py.jax as ezjax  # noqa: E402

jax.config.update("jax_enable_x64", True)


def step(x):
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i]) * x[i]
    return y


def step_jnp(x):
    return jnp.sin(x) * x


def _chain(call, k: int):
    def f(x):
        for _ in range(k):
            x = x + 1e-3 * call(x)
        return x

    return jax.jit(f)


def _median_s(fn, number: int, repeat: int) -> float:
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


def run(quick: bool = False) -> dict[str, float]:
    k = 50 if quick else 200
    number, repeat = (20, 3) if quick else (200, 7)
    x = jnp.linspace(0.0, 1.0, 16)
    native = ez.jit(step)
    op = ezjax.primitive(step)
    spec = jax.ShapeDtypeStruct((16,), jnp.float64)
    callback = lambda x: jax.pure_callback(  # noqa: E731
        lambda v: native(np.asarray(v)), spec, x)
    calls = {"enzyme_py.jax.primitive (FFI)": op, "jax.numpy (fused by XLA)": step_jnp,
             "jax.pure_callback(ez.jit(f))": callback}
    out: dict[str, float] = {}
    for name, call in calls.items():
        kk = k // 10 if "callback" in name else k
        base, chained = _chain(call, 0), _chain(call, kk)
        base(x).block_until_ready()
        chained(x).block_until_ready()
        n = number // 10 if "callback" in name else number
        t0 = _median_s(lambda b=base: b(x).block_until_ready(), n, repeat)
        t1 = _median_s(lambda c=chained: c(x).block_until_ready(), n, repeat)
        out[f"{name}, per call"] = (t1 - t0) / kk * 1e6
    grad = jax.jit(jax.grad(lambda x: jnp.sum(_chain(op, k)(x))))
    grad_jnp = jax.jit(jax.grad(lambda x: jnp.sum(_chain(step_jnp, k)(x))))
    for name, g in (("grad of the chain, primitive", grad), ("grad of the chain, jnp", grad_jnp)):
        g(x).block_until_ready()
        out[f"{name}, per call"] = _median_s(lambda g=g: g(x).block_until_ready(),
                                             max(number // 4, 1), repeat) / k * 1e6
    return out


def gmm_step(quick: bool = False) -> dict[str, float]:
    """Milliseconds per jitted SGD step on the GMM objective: loss, gradient, update."""
    from benchmarks.objectives import gmm

    size = gmm.sizes(True)[0] if quick else gmm.Size("d10 K25 n1k", 10, 25, 1000)
    alphas, means, icf, x, gamma, m, d, k, n = gmm.make_args(size)
    op = ezjax.primitive(gmm.primal)
    out: dict[str, float] = {}
    for name, objective in (("primitive", op), ("pure JAX", gmm.jax_primal)):
        def loss(p, objective=objective):
            return objective(p[0], p[1], p[2], x, gamma, m, d, k, n)

        @jax.jit
        def step(p, loss=loss):
            value, g = jax.value_and_grad(loss)(p)
            return tuple(a - 1e-4 * b for a, b in zip(p, g, strict=True)), value

        params = (jnp.asarray(alphas), jnp.asarray(means), jnp.asarray(icf))
        step(params)[1].block_until_ready()
        reps = 3 if quick else 20
        out[f"GMM {size.label} SGD step, {name}"] = _median_s(
            lambda s=step, p=params: s(p)[1].block_until_ready(), reps, 3) * 1e3
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer calls (a smoke test)")
    args = ap.parse_args(argv)
    for name, us in run(args.quick).items():
        print(f"{name:45s} {us:10.3f} us")
    for name, ms in gmm_step(args.quick).items():
        print(f"{name:45s} {ms:10.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
