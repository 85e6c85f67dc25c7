"""`hoist-allocations`: temporaries made and freed on every iteration of a loop nest are made
once before it, in the primal's code and in the gradient's, and the gradient is unchanged."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.ad.hoist_allocations import hoist_allocations
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse


def cell(h, w):
    """A function returning a new array: its result and temporaries are heap blocks."""
    return np.tanh(h * w + 0.1)


def rollout(h0, w, steps):
    h = h0.copy()
    total = 0.0
    for _ in range(steps):
        h[:] = cell(h, w)  # (a block returned by a call, dead after the statement)
        total += np.sum(h * h)
    return total


def jax_rollout(h0, w, steps):
    h = h0
    total = 0.0
    for _ in range(steps):
        g = jnp.tanh(h * w + 0.1)
        total += jnp.sum(g * g)
        h = g
    return total


def test_gradients_match_jax_and_allocations_do_not_grow_with_the_steps() -> None:
    rng = np.random.default_rng(0)
    h0, w = rng.standard_normal(7), rng.standard_normal(7)
    for steps in (0, 1, 5):
        got = ez.grad(rollout, argnums=(0, 1))(h0, w, steps)
        with jax.enable_x64(True):
            want = jax.grad(jax_rollout, argnums=(0, 1))(h0, w, steps) if steps else \
                (np.zeros(7), np.zeros(7))
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-15)
    tangent = ez.jvp(rollout, (h0, w, 5), (np.ones(7), np.zeros(7), 0))[1]
    with jax.enable_x64(True):
        want_tangent = float(jax.jvp(lambda a: jax_rollout(a, w, 5), (h0,), (np.ones(7),))[1])
    assert np.isclose(tangent, want_tangent, rtol=1e-12)

    def calls(steps: int) -> int:
        p = ez.profile(rollout, h0, w, steps, argnums=(0, 1), repeat=1)
        return sum(s.calls for s in p.gradient_heap if s.site.allocator == "malloc")

    assert calls(40) == calls(10)  # (before the pass: several blocks per step)


def recurrent(xs, w, steps):
    """`h = f(h)`: each step's array is made while the previous one is still read."""
    h = np.zeros(w.shape[0])
    total = 0.0
    for t in range(steps):
        h = np.tanh(xs[t] * w + 0.1 * np.sum(h))
        total += np.sum(h * h)
    return total + np.sum(h)


def jax_recurrent(xs, w, steps):
    h = jnp.zeros(w.shape[0])
    total = 0.0
    for t in range(steps):
        h = jnp.tanh(xs[t] * w + 0.1 * jnp.sum(h))
        total += jnp.sum(h * h)
    return total + jnp.sum(h)


def test_a_carried_array_uses_two_blocks_in_turn() -> None:
    rng = np.random.default_rng(1)
    xs, w = rng.standard_normal((40, 9)), rng.standard_normal(9)
    for steps in (0, 1, 2, 7):
        got = ez.grad(recurrent, argnums=(0, 1))(xs, w, steps)
        with jax.enable_x64(True):
            want = jax.grad(jax_recurrent, argnums=(0, 1))(xs, w, steps)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-15)
        assert np.isclose(ez.jit(recurrent)(xs, w, steps), recurrent(xs, w, steps),
                          rtol=1e-13)  # (the same source run by NumPy)
    tangent = ez.jvp(recurrent, (xs, w, 7), (np.ones((40, 9)), np.zeros(9), 0))[1]
    with jax.enable_x64(True):
        want_tangent = float(jax.jvp(lambda a: jax_recurrent(a, w, 7), (xs,),
                                     (np.ones((40, 9)),))[1])
    assert np.isclose(tangent, want_tangent, rtol=1e-12)

    def calls(steps: int) -> int:
        p = ez.profile(recurrent, xs, w, steps, argnums=(0, 1), repeat=1)
        return sum(s.calls for s in p.gradient_heap if s.site.allocator == "malloc")

    assert calls(40) == calls(10)


def test_only_blocks_private_to_an_iteration_move() -> None:
    text = """
declare ptr @malloc(i64)
declare void @free(ptr)

define void @two(ptr %out, i64 %n, i64 %steps) {
entry:
  br label %loop
loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %join ]
  %a = call ptr @malloc(i64 %n)
  %b = call ptr @malloc(i64 %n)
  %c = icmp eq i64 %t, 3
  br i1 %c, label %keep, label %join
keep:
  store ptr %b, ptr %out
  br label %join
join:
  %m = phi ptr [ %a, %loop ], [ null, %keep ]
  call void @free(ptr %m)
  %t.next = add i64 %t, 1
  %done = icmp eq i64 %t.next, %steps
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
"""
    m = parse(text)
    fn = m.get_function("two")
    assert hoist_allocations(fn) == 1  # %a (freed through a phi with null); %b escapes
    entry_calls = [i.name for i in fn.entry.instructions if isinstance(i, I.Call)]
    assert entry_calls == ["a"]
    loop = next(b for b in fn.blocks if b.name == "loop")
    assert [i.name for i in loop.instructions if isinstance(i, I.Call)] == ["b"]
    exit_block = next(b for b in fn.blocks if b.name == "exit")
    freed = [i for i in exit_block.instructions if isinstance(i, I.Call)]
    assert len(freed) == 1 and freed[0].args[0].name == "a"
    assert not any(isinstance(i, I.Call) and i.callee_name == "free"
                   for b in fn.blocks if b.name != "exit" for i in b.instructions)


def _switch_into_join(x):
    a = np.zeros((4,))
    t = a * (x @ x)  # its broadcast check becomes a switch with two cases to one block
    b = np.zeros_like(a)
    for _ in range(2):
        b = b + 1.0
    return np.sum(x) + np.sum(t) + np.sum(b)


def test_carried_block_phi_has_an_entry_per_edge() -> None:
    # (found by the NumPy fuzzer: the phi had one entry for a switch's two edges, and LLVM's
    # verifier refused the gradient)
    x = np.arange(16.0).reshape(4, 4) / 16.0
    np.testing.assert_allclose(ez.grad(_switch_into_join)(x), np.ones((4, 4)), rtol=1e-15)
    _, tangent = ez.jvp(_switch_into_join, (x,), (np.ones_like(x),))
    assert tangent == pytest.approx(16.0)
