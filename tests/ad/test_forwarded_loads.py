"""Loads of a scratch array that an earlier sibling loop filled (`ad/forwarded_loads.py`): the
reverse sweep recomputes the stored value (here `x[i, j] * w[j]`, memory nobody writes)
instead of caching the load. Each program's gradient is checked against JAX and finite
differences, and its tape against a variant that must keep the cache: one double per (i, j)
less where the load is forwarded, none less where something could change what it read (a
write between, the read before the fill, a fill under a condition, a read past the filled
range)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import enzyme_py as ez
from benchmarks.objectives import gmm
from enzyme_py.testing import check_grad

N, D = 6, 4


def filled_then_read(x, w, n, d):
    tmp = np.empty(d)
    out = 0.0
    for i in range(n):
        for j in range(d):
            tmp[j] = x[i, j] * w[j]
        for j in range(d):
            out += math.sin(tmp[j]) * tmp[j]
    return out


def written_between(x, w, n, d):
    tmp = np.empty(d)
    out = 0.0
    for i in range(n):
        for j in range(d):
            tmp[j] = x[i, j] * w[j]
        tmp[0] = w[0]
        for j in range(d):
            out += math.sin(tmp[j]) * tmp[j]
    return out


def read_before_filled(x, w, n, d):
    tmp = np.zeros(d)
    out = 0.0
    for i in range(n):
        for j in range(d):
            out += math.sin(tmp[j]) * tmp[j]
        for j in range(d):
            tmp[j] = x[i, j] * w[j]
    return out


def filled_under_a_condition(x, w, n, d):
    tmp = np.zeros(d)
    out = 0.0
    for i in range(n):
        for j in range(d):
            if x[i, j] > 0.0:
                tmp[j] = x[i, j] * w[j]
        for j in range(d):
            out += math.sin(tmp[j]) * tmp[j]
    return out


def read_past_the_fill(x, w, n, d):
    tmp = np.zeros(d + 1)
    out = 0.0
    for i in range(n):
        for j in range(d):
            tmp[j] = x[i, j] * w[j]
        for j in range(d + 1):
            out += math.sin(tmp[j]) * tmp[j]
    return out


def two_readers_and_a_triangle(x, w, n, d):
    tmp = np.empty(d)
    acc = np.empty(d)
    out = 0.0
    for i in range(n):
        for j in range(d):
            tmp[j] = x[i, j] - w[j]
        for j in range(d):
            acc[j] = w[j] * tmp[j]
        for j in range(d):
            for m in range(j + 1, d):
                acc[m] += x[i, m] * tmp[j]
        for j in range(d):
            out += acc[j] * acc[j]
    return out


def written_after_the_read(x, w, n, d):
    tmp = np.empty(d)
    out = 0.0
    for i in range(n):
        for j in range(d):
            tmp[j] = x[i, j] * w[j]
        for j in range(d):
            out += math.sin(tmp[j]) * tmp[j]
        for j in range(d):
            tmp[j] = tmp[j] * 2.0
        out += tmp[0]
    return out


def filled_from_memory_read_later_written(x, w, n, d):
    tmp = np.empty(d)
    acc = np.ones(d)
    out = 0.0
    for i in range(n):
        for j in range(d):
            tmp[j] = x[i, j] * acc[j]
        for j in range(d):
            out += math.sin(tmp[j]) * tmp[j]
            acc[j] = acc[j] + 0.5 * tmp[j]
    return out


def _args():
    rng = np.random.default_rng(3)
    return rng.standard_normal((N, D)), rng.standard_normal(D), N, D


def _tape_bytes(f, *args) -> int:
    p = ez.profile(f, *args, argnums=(0, 1), repeat=1)
    return sum(s.bytes for s in p.gradient_heap if s.site.name.startswith("tape"))


def test_a_filled_scratch_array_is_recomputed_not_cached():
    args = _args()
    check_grad(filled_then_read, *args, argnums=(0, 1))
    # (both keep sin's values for the reverse; only the stored one keeps tmp[j] too)
    assert _tape_bytes(filled_then_read, *args) == \
        _tape_bytes(written_between, *args) - 8 * N * D


@pytest.mark.parametrize("f", [written_between, read_before_filled, filled_under_a_condition,
                               read_past_the_fill])
def test_what_might_not_be_the_stored_value_stays_cached(f):
    args = _args()
    check_grad(f, *args, argnums=(0, 1))
    # (sin's values, as the forwarded program keeps them, and tmp[j] for each (i, j))
    assert _tape_bytes(f, *args) >= _tape_bytes(filled_then_read, *args) + 8 * N * D


def test_two_reading_loops_and_a_nested_one_are_forwarded_and_right():
    args = _args()
    check_grad(two_readers_and_a_triangle, *args, argnums=(0, 1))
    # (no double per (i, j) of tmp on the tape: the two readers' loads are not cached)
    assert _tape_bytes(two_readers_and_a_triangle, *args) < 2 * 8 * N * D


@pytest.mark.parametrize("f", [written_after_the_read, filled_from_memory_read_later_written])
def test_a_fill_whose_inputs_or_array_change_later_gets_the_right_gradient(f):
    check_grad(f, *_args(), argnums=(0, 1))


def _gmm_tape(n: int) -> int:
    p = ez.profile(gmm.primal, *gmm.make_args(gmm.Size("", 10, 3, n)), argnums=(0, 1, 2),
                   repeat=1)
    return sum(s.bytes for s in p.gradient_heap if s.site.name.startswith("tape"))


def test_gmm_caches_neither_read_of_its_centered_point():
    # xcentered is filled per (point, component), then read by two loops: the tape per point
    # keeps 2 d doubles per component (the triangle's running index, the final qxcentered)
    # and a few per point, where the two cached reads took 2 d more
    size = gmm.Size("d10 K3 n7", 10, 3, 7)
    check_grad(gmm.primal, *gmm.make_args(size), argnums=(0, 1, 2),
               reference=gmm.jax_primal, fd=False)
    per_point = (_gmm_tape(14) - _gmm_tape(7)) / 7
    assert per_point < 8 * size.k * 3 * size.d
