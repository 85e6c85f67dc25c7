"""Joined axes (`Lazy.joins`, `loops.joined_nest`): an element-wise result stored into a
C-contiguous buffer runs each pair of axes that every operand addresses as one flat index as
one loop, so an inner extent of 2 or 10 does not cap the vector loop.

The IR tests count the loops the front end emits; the value tests compare against NumPy
for the layouts where axes may join and where they must not (broadcast axes, stretched
extents of 1 at run time, transposed and sliced arguments); the gradient tests compare
against JAX and finite differences.
"""

from __future__ import annotations

import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.api.show import show
from enzyme_py.testing import check_grad

RNG = np.random.default_rng(11)


# (each result is read by two statements, so it is stored: a variable read by one statement
# only is computed where it is read, `deferred_bindings`)


def scaled_shift(a, b, q):
    c = q[None, :, :] * a + b
    s = np.sum(c * c)
    return s + c[0, 0, 0]


def outer_difference(x, m):
    xc = x[:, None, :] - m[None, :, :]
    s = np.sum(xc * xc)
    return s + xc[0, 0, 0]


def _loops(f, *args) -> int:
    """How many counted loops the front end emits for `f` (before any optimization)."""
    return show(f, *args, stage="python").count("\nloop.cond")


def _args3(n=5, k=3, d=2):
    return RNG.standard_normal((n, k, d)), RNG.standard_normal((n, k, d)), \
        RNG.standard_normal((k, d))


def test_axes_every_operand_reads_flat_run_as_one_loop():
    a, b, q = _args3()
    # the store of c: (n, k*d) where nothing stretches, (n, k, d) where something may;
    # then the sum of c * c over the contiguous c: one loop
    assert _loops(scaled_shift, a, b, q) == 2 + 3 + 1


def test_a_broadcast_axis_between_keeps_its_loop():
    x, m = RNG.standard_normal((6, 2)), RNG.standard_normal((4, 2))
    # x[:, None, :] reads axis 1 with stride 0 and axis 2 with stride 1: nothing joins
    # (the fast and the general store: 3 loops each) and the sum of xc * xc joins all
    assert _loops(outer_difference, x, m) == 3 + 3 + 1


@pytest.mark.parametrize("shape", [(5, 3, 2), (4, 1, 3), (1, 3, 4), (3, 4, 1)])
def test_values_equal_numpy_for_stretched_and_plain_extents(shape):
    n, k, d = shape
    a = RNG.standard_normal((n, k, d))
    b = RNG.standard_normal((n, 1, d)) if k > 1 else RNG.standard_normal((n, k, d))
    q = RNG.standard_normal((k, d))
    np.testing.assert_allclose(ez.jit(scaled_shift)(a, b, q), scaled_shift(a, b, q),
                               rtol=1e-13)


def test_values_equal_numpy_for_views_of_arguments():
    a = RNG.standard_normal((3, 4, 5)).transpose(1, 0, 2)  # (4, 3, 5), not contiguous
    b = RNG.standard_normal((4, 6, 5))[:, ::2, :]  # (4, 3, 5), strided
    q = np.asfortranarray(RNG.standard_normal((3, 5)))
    np.testing.assert_allclose(ez.jit(scaled_shift)(a, b, q), scaled_shift(a, b, q),
                               rtol=1e-13)
    x, m = RNG.standard_normal((7, 3))[::2], RNG.standard_normal((3, 2)).T
    np.testing.assert_allclose(ez.jit(outer_difference)(x, m), outer_difference(x, m),
                               rtol=1e-13)


@pytest.mark.parametrize("shape", [(6, 4, 2), (3, 5, 10)])
def test_gradients_through_joined_loops_equal_jax(shape):
    check_grad(scaled_shift, *_args3(*shape), argnums=(0, 1, 2))
    x, m = RNG.standard_normal((shape[0], shape[2])), RNG.standard_normal(shape[1:])
    check_grad(outer_difference, x, m, argnums=(0, 1))


def batched_products(ls, xc):
    return np.sum(np.einsum("kji,nki->nkj", ls, xc) ** 2)


def _memsets_in(text: str, name: str) -> int:
    """Calls of memset in the body of function `@name` of the IR `text`."""
    body = text[text.index(f"@{name}("):]
    return body[:body.index("\n}")].count("call void @llvm.memset")


def test_a_fresh_buffer_is_zeroed_by_one_memset_not_one_per_row():
    # (the kernel adds into the einsum's fresh (n, k, d) result: its zero fill joins all
    # axes, so the gradient's forward sweep and its shadow each take one memset, where a
    # fill row by row took n * k calls of 8 * d bytes)
    ls, xc = RNG.standard_normal((4, 3, 3)), RNG.standard_normal((6, 4, 3))
    text = show(batched_products, ls, xc, stage="optimized", argnums=(0, 1), preoptimize=True)
    assert _memsets_in(text, "batched_products") == 1
    check_grad(batched_products, ls, xc, argnums=(0, 1))
