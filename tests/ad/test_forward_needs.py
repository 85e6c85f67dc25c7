"""`ad/forward_needs.py`: a pure math call in a loop is recomputed in the reverse sweep when
the forward sweep needs it for nothing else (then the forward loop is dead code), and cached
otherwise. The answers on small IR, then gradients of both kinds against JAX."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.ad.forward_needs import ForwardNeeds
from enzyme_py.ir import instructions as I
from enzyme_py.ir import parse

jax.config.update("jax_enable_x64", True)

MODULE = """
declare double @llvm.sin.f64(double)
declare double @llvm.exp.f64(double)
declare double @llvm.log.f64(double)

define double @sum_of_sin(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sv = call double @llvm.sin.f64(double %v)
  %t = fmul double %sv, 2.0
  %s1 = fadd double %s, %t
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = phi double [ %s1, %loop ]
  ret double %r
}

define double @log_sum_exp(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %e = call double @llvm.exp.f64(double %v)
  %s1 = fadd double %s, %e
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = phi double [ %s1, %loop ]
  %l = call double @llvm.log.f64(double %r)
  ret double %l
}

define void @stores_sin(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sv = call double @llvm.sin.f64(double %v)
  %q = getelementptr double, ptr %y, i64 %i
  store double %sv, ptr %q
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret void
}

define double @branches_on_sin(ptr %x, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %latch ]
  %s = phi double [ 0.0, %entry ], [ %s2, %latch ]
  %p = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %p
  %sv = call double @llvm.sin.f64(double %v)
  %pos = fcmp ogt double %sv, 0.0
  br i1 %pos, label %add, label %latch
add:
  %s1 = fadd double %s, %v
  br label %latch
latch:
  %s2 = phi double [ %s1, %add ], [ %s, %loop ]
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %s2
}
"""


def _call(fn_name: str, callee: str, result_needed: bool = False) -> bool:
    fn = parse(MODULE).get_function(fn_name)
    call = next(i for i in fn.instructions() if isinstance(i, I.Call) and
                i.callee_name == callee)
    return ForwardNeeds(list(fn.instructions()), result_needed).needed(call)


def test_a_sum_only_the_reverse_reads_needs_nothing_forward() -> None:
    assert not _call("sum_of_sin", "llvm.sin.f64")
    assert _call("sum_of_sin", "llvm.sin.f64", result_needed=True)  # the value is returned


def test_a_sum_whose_log_is_taken_is_needed_forward() -> None:
    assert _call("log_sum_exp", "llvm.exp.f64")  # the reverse divides by the cached sum


def test_stores_and_branches_need_the_value_forward() -> None:
    assert _call("stores_sin", "llvm.sin.f64")
    assert _call("branches_on_sin", "llvm.sin.f64")


def weighted_sines(x, y, n):
    s = 0.0
    for i in range(n):
        s += math.sin(x[i]) * math.cos(y[i]) * math.exp(-(x[i] * x[i]))
    return s


def log_sum_exp(x, n):
    s = 0.0
    for i in range(n):
        s += math.exp(x[i])
    return math.log(s)


def _reverse_calls(f, *args, name: str, argnums) -> int:
    """Calls of `name` in the reverse blocks of the gradient, before LLVM's -O2."""
    text = ez.show(f, *args, stage="gradient", argnums=argnums, preoptimize=True)
    body = text[text.find("define void @diffe"):]
    count, in_reverse = 0, False
    for line in body.split("\n"):
        if line and not line.startswith(" ") and line.endswith(":"):
            in_reverse = line.startswith("rev.")
        elif in_reverse and f"@{name}(" in line and "call" in line:
            count += 1
    return count


def test_recomputed_call_gradient_matches_jax_and_has_no_tape() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.uniform(-1, 1, 37), rng.uniform(-1, 1, 37)
    gx, gy = ez.grad(weighted_sines, argnums=(0, 1))(x, y, 37)

    def ref(x, y):
        return jnp.sum(jnp.sin(x) * jnp.cos(y) * jnp.exp(-(x * x)))

    jx, jy = jax.grad(ref, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, jx, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gy, jy, rtol=1e-13, atol=1e-15)
    assert _reverse_calls(weighted_sines, x, y, 37, name="llvm.sin.f64", argnums=(0, 1)) >= 1
    text = ez.show(weighted_sines, x, y, 37, stage="optimized", argnums=(0, 1),
                   preoptimize=True)
    assert "@malloc" not in text[text.find("define void @diffe"):]  # no tape at all
    value, _ = ez.value_and_grad(weighted_sines, argnums=(0, 1))(x, y, 37)
    assert value == pytest.approx(float(ref(x, y)), rel=1e-13)  # (the result is computed)


def test_needed_call_stays_cached() -> None:
    x = np.linspace(-1.0, 2.0, 29)
    np.testing.assert_allclose(ez.grad(log_sum_exp)(x, 29),
                               jax.grad(lambda x: jnp.log(jnp.sum(jnp.exp(x))))(x),
                               rtol=1e-13)
    assert _reverse_calls(log_sum_exp, x, 29, name="llvm.exp.f64", argnums=0) == 0
