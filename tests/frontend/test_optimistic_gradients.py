"""Optimistic gradients (`api/gradients.py`): compiled without the checked copies of versioned
loops, they ask for the checked version where a loop's bounds test fails, and the result is
the checked version's."""

from __future__ import annotations

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.api.gradients import GradCache
from enzyme_py.calling import arg_types
from enzyme_py.config import Config
from enzyme_py.frontend import compile_python


def wrapped_sum(x, n):
    s = 0.0
    for i in range(n):
        s += x[i - 1] * x[i]  # x[-1] at i = 0: valid, but only the checked copy takes it
    return s


def helper(x, n):
    s = 0.0
    for i in range(n):
        s += x[i - 1] * x[i - 1]
    return s


def caller(x, n):
    a = helper(x, n)
    t = 0.0
    for i in range(n):
        t += a * x[i]
    return t


def writes(x, n):
    for i in range(n):
        x[i] = x[i] * 2.0
    return x[0]


def _wrapped_grad(x, n):
    g = np.zeros_like(x)
    for i in range(n):
        g[(i - 1) % x.size] += x[i]
        g[i] += x[i - 1]
    return g


def _cache_entries(fn):
    return {k[1]: v.optimistic_key is not None for k, v in fn._grads.cache.items()}


def test_a_failed_bounds_test_reruns_the_checked_version():
    x = np.linspace(0.5, 2.0, 6)
    gf = ez.grad(wrapped_sum)
    np.testing.assert_allclose(gf(x, 6), _wrapped_grad(x, 6), rtol=1e-14)
    assert _cache_entries(gf) == {True: True, False: False}
    assert len(gf._grads.checked_keys) == 1
    np.testing.assert_allclose(gf(x, 6), _wrapped_grad(x, 6), rtol=1e-14)  # the stub
    v, g = ez.value_and_grad(wrapped_sum)(x, 6)
    assert v == pytest.approx(sum(x[i - 1] * x[i] for i in range(6)))
    np.testing.assert_allclose(g, _wrapped_grad(x, 6), rtol=1e-14)


def test_a_callee_passes_the_request_on():
    x = np.linspace(0.5, 2.0, 5)
    a = float(np.sum(x[np.arange(5) - 1] ** 2))
    expect = a * np.ones(5) + 2 * x * np.sum(x)  # d/dx of a * sum(x)
    np.testing.assert_allclose(ez.grad(caller)(x, 5), expect, rtol=1e-13)
    y, pullback = ez.vjp(caller, x, 5)
    assert y == pytest.approx(a * np.sum(x))
    np.testing.assert_allclose(pullback(2.0)[0], 2 * expect, rtol=1e-13)


def test_an_index_error_is_still_raised():
    x = np.ones(4)
    with pytest.raises(IndexError, match="index 4 is out of bounds"):
        ez.grad(caller)(x, 5)


def test_the_optimistic_module_has_no_checked_loop_copy():
    x = np.ones(4)
    types = arg_types("wrapped_sum", ["x", "n"], [x, 4])
    text = {opt: str(compile_python(wrapped_sum, types, optimistic=opt)[0])
            for opt in (False, True)}
    assert text[False].count("for.body") == 2 * text[True].count("for.body") > 0
    session = compile_python(wrapped_sum, types, optimistic=True)[2]
    assert session.retry_site and session.sites[session.retry_site - 1].what == ez_retry()


def ez_retry():
    from enzyme_py.frontend import RETRY

    return RETRY


def _recursive(x, n):
    s = 0.0
    for i in range(n):
        s += x[i]
    if n > 1:
        s += _recursive(x, n - 1)
    return s


def test_a_recursive_function_keeps_its_checked_copies():
    x = np.ones(4)
    types = arg_types("_recursive", ["x", "n"], [x, 4])
    assert compile_python(_recursive, types, optimistic=True)[2].retry_site == 0


def test_a_function_writing_its_arrays_is_not_optimistic():
    x = np.ones(4)
    g = GradCache(writes, Config()).get([x, 4], (True, False), False, require_scalar=True,
                                        optimistic=True)
    assert g.optimistic_key is None
    g = GradCache(wrapped_sum, Config()).get([x, 4], (True, False), False,
                                             require_scalar=True, optimistic=True)
    assert g.optimistic_key is not None


def scaled(w, v):
    """`w * v` broadcasts only when one of the two has length 1 at run time; `t` is
    materialized (it is read twice), by a loop versioned on that."""
    t = np.tanh(w * v)
    return np.sum(t * v) + np.sum(t)


def test_the_optimistic_module_has_no_stretching_copy():
    w, v = np.ones(4), np.ones(4)
    types = arg_types("scaled", ["w", "v"], [w, v])
    text = {opt: str(compile_python(scaled, types, optimistic=opt)[0])
            for opt in (False, True)}
    assert text[False].count("bcast.some") > 0
    assert "bcast.some" in text[True]  # (the block that leaves) ...
    assert text[True].count("call double @llvm.tanh") < text[False].count(
        "call double @llvm.tanh")  # ... without the general form's loop
    assert compile_python(scaled, types, optimistic=True)[2].retry_site


@pytest.mark.parametrize("wn, vn", [(5, 5), (1, 5), (5, 1)])
def test_a_stretching_operand_reruns_the_version_that_has_it(wn, vn):
    w, v = np.linspace(0.3, 1.1, wn), np.linspace(-0.7, 0.9, vn)
    gf = ez.grad(scaled, argnums=(0, 1))
    gw, gv = gf(w, v)
    t = np.tanh(w * v)
    dt = v + 1.0  # d/dt of sum(t v) + sum(t), on the broadcast shape
    dw = (1 - t * t) * v * dt
    dv = (1 - t * t) * w * dt + t
    fold = lambda g, n: g if n > 1 else np.sum(g, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(gw, fold(dw, wn), rtol=1e-13)
    np.testing.assert_allclose(gv, fold(dv, vn), rtol=1e-13)
    assert len(gf._grads.checked_keys) == (wn != vn)
    gw2, gv2 = gf(w, v)  # the remembered key: the version with the general form at once
    np.testing.assert_array_equal(gw2, gw)
    np.testing.assert_array_equal(gv2, gv)
