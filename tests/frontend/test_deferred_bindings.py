"""Deferred bindings (`frontend/deferred_bindings.py`): an array variable bound to cheap
element-wise arithmetic and read in one later statement is computed where it is read, not
stored. Each case checks the values against NumPy and the gradients against JAX (`check`),
and counts the heap buffers the compiled function makes: one fewer where the binding is
deferred, as many as before where something between could change what it reads."""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.frontend import compile_python
from enzyme_py.frontend.binding_sites import once_bound
from enzyme_py.frontend.deferred_bindings import deferred_bindings
from enzyme_py.frontend.ftypes import type_of_value
from tests.frontend.against_numpy_and_jax import check


def _buffers(f, *args) -> int:
    """The `malloc` calls in `f` compiled for `args` (before any optimization)."""
    module, _, _ = compile_python(f, tuple(type_of_value(a) for a in args))
    return str(module).count("call ptr @malloc")


def _args():
    rng = np.random.default_rng(7)
    return rng.standard_normal((5, 3)), rng.standard_normal((5, 3)), rng.standard_normal(3)


# --- deferred -------------------------------------------------------------------------------


def sum_of_squares(a, b, w):
    r = a * w[None, :] - b
    return np.sum(r * r)


def stored_sum_of_squares(a, b, w):  # the same, with `r` stored (`np.exp(0.0)` is a call)
    r = a * w[None, :] - b
    s = np.exp(0.0) * np.sum(r * r)
    return s + 0.0 * np.sum(r)


def product_then_square(a, b, w):
    ls = np.outer(w, w)
    q = 2.0 * a + np.einsum("ij,nj->ni", ls, b)
    scale = np.sum(w)
    return scale * np.sum(q * q)


def read_once_by_a_reduction(a, b, w):
    r = -(a - b) / 3.0
    n = a.shape[0]
    return np.sum(np.log1p(r * r)) / n


def chained(a, b, w):
    r = a * w[None, :]
    p = r - b
    return np.sum(p * p)


def test_arithmetic_read_in_the_next_statement_is_not_stored():
    args = _args()
    check(sum_of_squares, *args, argnums=(0, 1, 2))
    assert _buffers(sum_of_squares, *args) == 0
    check(chained, *args, argnums=(0, 1, 2))  # (r read by p's binding, p by the return)
    assert _buffers(chained, *args) == 0
    assert _buffers(stored_sum_of_squares, *args) == 1  # (read by two statements)


def test_a_matrix_product_in_the_binding_is_kept_until_the_read():
    args = _args()
    check(product_then_square, *args, argnums=(0, 1, 2))
    # np.outer's result and the einsum's product stay; `q` is not stored
    assert _buffers(product_then_square, *args) == 2


def hinge(a, b, w):
    m = np.maximum(a * w[None, :] - b, 0.0)
    return np.sum(np.square(m))


def selected(a, b, w):
    keep = (a > b) & (b > -1.0)
    t = np.where(keep, a, 0.0)
    return np.sum(t * w[None, :])


def test_cheap_numpy_functions_and_masks_are_deferred_too():
    args = _args()
    check(hinge, *args, argnums=(0, 1, 2))
    check(selected, *args, argnums=(0, 2))
    assert _buffers(hinge, *args) == 0
    assert _buffers(selected, *args) == 0  # (keep is read by t's binding, t by the return)


def test_assignments_of_other_names_may_come_between():
    args = _args()
    check(read_once_by_a_reduction, *args, argnums=(0, 1))
    assert _buffers(read_once_by_a_reduction, *args) == 0


# --- bound as before: something could change what the binding reads ---------------------------


def written_between(a, b, w):
    c = a.copy()
    r = c * w[None, :]
    c[0, 0] = 100.0
    return np.sum(r * b)


def rebound_between(a, b, w):
    r = a * w[None, :]
    a = b * 2.0
    return np.sum(r * a)


def bump(c):
    c[0, 0] = c[0, 0] + 10.0
    return 1.0


def written_by_a_call_in_the_reading_statement(a, b, w):
    c = a.copy()
    r = c * w[None, :]
    return bump(c) * np.sum(r * b)


def written_by_a_call_statement(a, b, w):
    c = a.copy()
    r = c * w[None, :]
    bump(c)
    return np.sum(r * b)


def chained_then_rebound(a, b, w):
    c = a + 0.0
    r = c * w[None, :]
    p = r - b  # (deferred to the return, p would read c after `c = ...` freed it)
    c = b * 3.0
    return np.sum(p * p) + np.sum(c)


def read_in_a_branch(a, b, w):
    r = a * w[None, :]
    s = 0.0
    if w[0] > -10.0:
        s = np.sum(r * b)
    return s


def computed_per_element(a, b, w):
    r = np.exp(a) * w[None, :]
    return np.sum(r * r)


def read_by_a_product(a, b, w):
    r = a * w[None, :]
    return np.sum(r.T @ r)


def _numpy_differences(f, args, argnums, h=1e-6):
    """Central differences of `f` run by NumPy (in-place writes rule out JAX)."""
    out = []
    for k in argnums:
        g = np.zeros_like(args[k])
        for idx in np.ndindex(args[k].shape):
            up, down = [np.copy(a) for a in args], [np.copy(a) for a in args]
            up[k][idx] += h
            down[k][idx] -= h
            g[idx] = (f(*up) - f(*down)) / (2 * h)
        out.append(g)
    return out


@pytest.mark.parametrize("f, buffers", [
    (written_between, 2), (rebound_between, 2), (written_by_a_call_in_the_reading_statement, 2),
    (written_by_a_call_statement, 2), (chained_then_rebound, 3), (read_in_a_branch, 1),
    (computed_per_element, 1), (read_by_a_product, 2)])
def test_bindings_that_must_be_stored_are(f, buffers):
    args = _args()
    got = ez.jit(f)(*[np.copy(a) for a in args])
    np.testing.assert_allclose(got, f(*[np.copy(a) for a in args]), rtol=1e-13)
    ours = ez.grad(f, argnums=(0, 1, 2))(*[np.copy(a) for a in args])
    for g, want in zip(ours, _numpy_differences(f, args, (0, 1, 2)), strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-7)
    assert _buffers(f, *args) == buffers + _buffers(sum_of_squares, *args)


# --- the analysis ----------------------------------------------------------------------------


SOURCE = textwrap.dedent("""
    def f(x, y, n):
        a = x * 2.0
        s = np.sum(a * a)
        b = x + y
        t = np.sum(b) + np.sum(b)
        c = np.exp(x)
        u = np.sum(c)
        h = x * 3.0
        x = y
        v = np.sum(h)
        e = y * y
        w = np.sum(e.T @ e)
        d = y - 1.0
        for i in range(n):
            s = s + 1.0
        z = np.sum(d)
        k = (y + 1.0) @ y
        q = y.sum() + np.sum(k / 2.0)
        m = y * 0.5
        r = write(y) + np.sum(m)
        return s + t + u + v + w + z + q + r
""")


def _write(y):
    y[0] = 1.0
    return 0.0


def _resolve(e: ast.expr) -> object:
    parts = ast.unparse(e).split(".")
    got = {"np": np, "write": _write}.get(parts[0])
    for part in parts[1:]:
        got = getattr(got, part, None)
    return got


def test_the_plan_names_only_cheap_bindings_read_by_one_statement_safely():
    fdef = ast.parse(SOURCE).body[0]
    arrays = set("xyabchedkm")
    plan = deferred_bindings(fdef, arrays, set(), once_bound(fdef, set()), _resolve)
    # a: read twice as operands of arithmetic; k: a matrix product, read by a statement
    # that calls a method returning a new value. Not: b (read twice as arguments), c
    # (np.exp per element), h (`x = y` rebinds what it reads), e (two reads by `@`), d (a
    # loop between), m (the reading statement calls a function of the program)
    assert {p.name: ast.unparse(p.use) for p in plan.values()} == {
        "a": "s = np.sum(a * a)", "k": "q = y.sum() + np.sum(k / 2.0)"}
    asked: list[str] = []
    deferred_bindings(fdef, arrays, set(), once_bound(fdef, set()),
                      lambda e: asked.append(ast.unparse(e)) or _resolve(e))
    # (each global lookup is recorded for the persistent cache: a parameter or a local that
    # shares a global's name, a module-level array say, is never looked up)
    assert asked and not [n for n in asked if n.split(".")[0] in set("xyabchedkmnstuvwzqr")]
    assert deferred_bindings(fdef, arrays, {"a"}, once_bound(fdef, set()), _resolve).keys() \
        == {id(p.binding) for p in plan.values() if p.name == "k"}  # a shared: bound as before
