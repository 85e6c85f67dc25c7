"""`binding_sites.once_bound`: the names bound at one site that is compiled once, whose
constant (or argument) extents a read may use as they are (`array_vars`)."""

from __future__ import annotations

import ast
import textwrap

import numpy as np

import enzyme_py as ez
from enzyme_py.frontend.binding_sites import once_bound
from enzyme_py.testing import check_grad

SOURCE = textwrap.dedent("""
    def f(v, w, *rest, scale=1.0, **more):
        mx = np.max(v, axis=-1, keepdims=True)
        for i in range(3):
            t = v + i
        for key in ("a", "b"):
            u = w[key]
        g = lambda q: q + mx
        z = [y * 2 for y in v]
        w = w + 1
        try:
            pass
        except ValueError as err:
            pass
        def inner(p):
            h = p
            return h
        del t
        return mx
""")


def _once(unrolled_loop: int | None) -> list[str]:
    fdef = ast.parse(SOURCE).body[0]
    loops = [n for n in ast.walk(fdef) if isinstance(n, ast.For)]
    return sorted(once_bound(fdef, set() if unrolled_loop is None
                             else {id(loops[unrolled_loop])}))


def test_names_with_one_site_compiled_once():
    # w: a parameter bound again; t: bound and deleted (two sites); u: in an unrolled loop;
    # q, y, h, p: inside a lambda, a comprehension or a nested function
    assert _once(unrolled_loop=1) == ["err", "g", "i", "inner", "more", "mx", "rest",
                                      "scale", "v", "z"]
    assert "u" in _once(unrolled_loop=None)


def shifted_logsumexp(v):
    mx = np.max(v, axis=-1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(v - mx), axis=-1, keepdims=True)) + mx)


def test_a_keepdims_extent_stays_one_so_the_gradient_compiles_once():
    # (`v - mx` knows mx's last extent is 1: no run-time broadcast test, so the optimistic
    # gradient never leaves for the version with the stretching copy)
    v = np.random.default_rng(4).standard_normal((6, 5))
    gf = ez.grad(shifted_logsumexp)
    check_grad(shifted_logsumexp, v)
    gf(v)
    assert not gf._grads.checked_keys
