"""Failed checks inside `jax.jit`: each call reports its own failure (the error record is per
call, `enzyme_py.jax.record`), as a `JaxRuntimeError` with `ez.jit`'s message and source line,
from every compiled form, and from calls XLA runs at the same time on several threads."""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py.jax as ezjax


def pick(x, i):
    s = 0.0
    for k in range(x.shape[0]):
        s += np.sin(x[k]) * x[k]
    return x[i] * s


P = ezjax.primitive(pick)
X = np.linspace(0.1, 1.0, 64)


@pytest.mark.parametrize("transform", [lambda f: f, jax.grad, jax.jacfwd, jax.hessian],
                         ids=["primal", "vjp", "tangent", "hvp"])
def test_every_form_raises_with_the_source_line(transform):
    f = jax.jit(transform(P))
    with pytest.raises(jax.errors.JaxRuntimeError,
                       match=r"OUT_OF_RANGE: IndexError: index 70 is out of bounds for axis 0 "
                             r"with size 64\n  at .*test_errors.py:\d+: return x\[i\] \* s"):
        f(X, jnp.asarray(70)).block_until_ready()
    f(X, jnp.asarray(3)).block_until_ready()  # nothing left over from the failure


def test_concurrent_calls_each_report_their_own_failure():
    f = jax.jit(P)
    want = pick(np.asarray(X), 5)
    errors: dict[int, str] = {}
    values: list[float] = []

    def worker(t: int) -> None:
        with jax.enable_x64(True):  # a thread-local setting
            work(t)

    def work(t: int) -> None:
        for _ in range(20):
            bad = 100 + t
            try:
                f(X, jnp.asarray(bad)).block_until_ready()
                errors[t] = "no error"
            except jax.errors.JaxRuntimeError as err:
                if f"index {bad} is out" not in str(err):
                    errors[t] = str(err)
            values.append(float(f(X, jnp.asarray(5))))

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(values) == 120 and all(v == pytest.approx(want, rel=1e-14) for v in values)


def test_a_failure_in_one_batch_element_fails_the_batched_call():
    idx = jnp.array([1, 2, 99, 3])
    with pytest.raises(jax.errors.JaxRuntimeError, match="index 99 is out of bounds"):
        jax.jit(jax.vmap(P, in_axes=(None, 0)))(X, idx).block_until_ready()


def test_no_compiled_form_keeps_a_global_record():
    sig = jax.make_jaxpr(P)(X, jnp.asarray(1)).eqns[0].params["sig"]
    for kind, n in (("primal", 2), ("tangent", 3), ("vjp", 3), ("hvp", 4)):
        plan = P.plan(kind, sig, ((),) * n)
        assert plan.error_param and plan.error_global is None
        assert plan.params[-1].kind == "record" and plan.param_types[-1] == "ptr"
        assert "enzyme_py.error" not in plan.text


def positive_log(x):
    assert np.all(x >= 0.0), "x must not be negative (100%)"
    return np.sum(np.log(x))


def test_an_assert_of_the_source_raises_its_message_under_jit():
    f = jax.jit(jax.grad(ezjax.primitive(positive_log)))
    with pytest.raises(jax.errors.JaxRuntimeError,
                       match=r"AssertionError: x must not be negative \(100%\)\n  at .*"
                             r"test_errors.py:\d+: assert np.all"):
        f(-X).block_until_ready()
    np.testing.assert_allclose(f(X), 1.0 / X, rtol=1e-6)


def recurrence(x, n):
    s = 0.0
    for i in range(n):
        s += np.sin(x[i % 3] * s + 1.0)
    return s


R = ezjax.primitive(recurrence)


@pytest.mark.parametrize("transform", [jax.grad, jax.hessian], ids=["vjp", "hvp"])
def test_a_tape_that_cannot_be_allocated_is_resource_exhausted(transform):
    """The gradient's tape (2^60 steps) cannot be allocated: an error naming the function,
    where the process aborted; the next call runs (XLA raises RESOURCE_EXHAUSTED as a
    `ValueError`)."""
    f = jax.jit(transform(R))
    x = jnp.asarray(np.ones(3))
    want = np.asarray(f(x, jnp.asarray(4)))
    with pytest.raises(ValueError,
                       match=r"RESOURCE_EXHAUSTED: MemoryError: the gradient's tape needs \d+ "
                             r"bytes.*\n  at .*test_errors.py:\d+: def recurrence"):
        f(x, jnp.asarray(2 ** 60)).block_until_ready()
    assert np.array_equal(np.asarray(f(x, jnp.asarray(4))), want)
