"""`custom_vjp` / `custom_jvp` on Python functions.

Most rules here differ from the true derivative on purpose (a factor 2 or 10), so a test that
passes proves the rule was called rather than the body differentiated; the correct rules are
checked against JAX on the undecorated function.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.analysis.errors import DifferentiationError

jax.config.update("jax_enable_x64", True)


# --- custom_vjp with scalars (a rule twice the true d/dx) ---------------------------------------


@ez.custom_vjp
def sin_times(x, y):
    return math.sin(x) * y


def sin_times_fwd(x, y):
    return math.sin(x) * y, math.cos(x), math.sin(x), y


def sin_times_bwd(c, s, y, g):
    return 2.0 * g * c * y, g * s


sin_times.defvjp(sin_times_fwd, sin_times_bwd)


def calls_sin_times(x, y):
    return sin_times(x, y) + x * y


def test_custom_vjp_rule_is_used() -> None:
    x, y = 0.3, 3.0
    dx, dy = ez.grad(calls_sin_times, argnums=(0, 1))(x, y)
    assert dx == pytest.approx(2.0 * math.cos(x) * y + y, rel=1e-14)
    assert dy == pytest.approx(math.sin(x) + x, rel=1e-14)
    value, g = ez.value_and_grad(calls_sin_times)(x, y)
    assert value == pytest.approx(math.sin(x) * y + x * y, rel=1e-14)
    assert g == pytest.approx(dx, rel=1e-14)


def test_custom_vjp_function_differentiated_directly() -> None:
    assert ez.grad(sin_times)(0.3, 3.0) == pytest.approx(2.0 * math.cos(0.3) * 3.0, rel=1e-14)
    assert ez.jit(sin_times)(0.3, 3.0) == pytest.approx(math.sin(0.3) * 3.0, rel=1e-14)
    assert sin_times(0.3, 3.0) == pytest.approx(math.sin(0.3) * 3.0)  # plain Python call


def test_custom_vjp_inside_a_loop_and_hessian() -> None:
    def chain(x, n):
        s = 0.0
        for i in range(n):
            s += sin_times(x * i, x)
        return s

    x, n = 0.7, 4
    # d/dx sin(x i) x with the rule: 2 cos(x i) x * i + sin(x i)
    want = sum(2.0 * math.cos(x * i) * x * i + math.sin(x * i) for i in range(n))
    assert ez.grad(chain)(x, n) == pytest.approx(want, rel=1e-13)

    def pair(p):
        return sin_times(p[0], p[1]) + p[0] * p[1]

    h = ez.hessian(pair)(np.array([0.3, 3.0]))
    # forward-over-reverse differentiates the rule's gradient [2 cos(a) b + b, sin(a) + a]
    want_h = [[-2.0 * math.sin(0.3) * 3.0, 2.0 * math.cos(0.3) + 1.0],
              [math.cos(0.3) + 1.0, 0.0]]
    np.testing.assert_allclose(h, want_h, rtol=1e-13, atol=1e-15)


# --- custom_vjp with arrays: bwd adds into the cotangent array ----------------------------------


@ez.custom_vjp
def norm(a):
    s = 0.0
    for i in range(a.shape[0]):
        s += a[i] * a[i]
    return math.sqrt(s)


def norm_fwd(a):
    r = norm(a)
    return r, r


def norm_bwd(r, g, a, a_bar):
    for i in range(a.shape[0]):
        a_bar[i] += g * a[i] / r


norm.defvjp(norm_fwd, norm_bwd)


def scaled_norm(a, w):
    return w * norm(a) + w * w


def test_custom_vjp_with_arrays_matches_jax() -> None:
    a = np.array([1.0, -2.0, 2.5, 0.5])
    w = 1.7

    def ref(a, w):
        return w * jnp.sqrt(jnp.sum(a * a)) + w * w

    ga, gw = ez.grad(scaled_norm, argnums=(0, 1))(a, w)
    ra, rw = jax.grad(ref, argnums=(0, 1))(a, w)
    np.testing.assert_allclose(ga, ra, rtol=1e-13)
    assert gw == pytest.approx(float(rw), rel=1e-13)
    # the array is const here: the rule gets zeroed scratch memory for its cotangent
    assert ez.grad(scaled_norm, argnums=1)(a, w) == pytest.approx(float(rw), rel=1e-13)
    value, pullback = ez.vjp(scaled_norm, a, w)
    pa, pw = pullback(2.0)
    np.testing.assert_allclose(pa, 2.0 * np.asarray(ra), rtol=1e-13)
    assert value == pytest.approx(float(ref(a, w)), rel=1e-14)


def test_custom_vjp_array_written_after_the_call_is_an_error() -> None:
    def overwrite(a):
        s = norm(a)
        a[0] = 5.0 * a[0]
        return s + a[0]

    with pytest.raises(DifferentiationError, match="writes that memory after the call"):
        ez.grad(overwrite)(np.array([1.0, 2.0]))


# --- custom_vjp returning an array (its fwd runs in the forward sweep; residuals on a tape) ----


@ez.custom_vjp
def scaled_squares(a, w):
    return w * a * a


def scaled_squares_fwd(a, w):
    return w * a * a, a.copy(), w


def scaled_squares_bwd(a, w, g, a_bar):
    a_bar += 3.0 * w * a * g  # 1.5 times the true derivative: proves the rule is called
    return np.sum(a * a * g)


scaled_squares.defvjp(scaled_squares_fwd, scaled_squares_bwd)


def weighted_squares(a, w):
    return np.sum(scaled_squares(a, w) * np.arange(1.0, 1.0 + a.shape[0]))


def squares_in_a_loop(a, w):
    """The call runs three times on an argument the loop rewrites each time."""
    s = 0.0
    for k in range(3):
        y = scaled_squares(a + k, w)
        s += np.sum(y * np.arange(1.0, 1.0 + a.shape[0])) * (1.0 + 0.1 * s)
    return s


def test_custom_vjp_returning_an_array_uses_its_rule() -> None:
    a, w = np.array([1.0, -2.0, 0.5]), 1.3
    idx = np.arange(1.0, 4.0)
    ga, gw = ez.grad(weighted_squares, argnums=(0, 1))(a, w)
    np.testing.assert_allclose(ga, 1.5 * 2.0 * w * a * idx, rtol=1e-14)
    assert gw == pytest.approx(float(np.sum(a * a * idx)), rel=1e-14)
    np.testing.assert_allclose(ez.jit(scaled_squares)(a, w), w * a * a, rtol=1e-15)
    assert ez.jit(weighted_squares)(a, w) == pytest.approx(float(np.sum(w * a * a * idx)))

    @jax.custom_vjp
    def jax_squares(x, w):  # the same rule in JAX
        return w * x * x

    jax_squares.defvjp(lambda x, w: (w * x * x, (x, w)),
                       lambda res, g: (3.0 * res[1] * res[0] * g, jnp.sum(res[0] ** 2 * g)))

    def ref(a, w):
        s = 0.0
        for k in range(3):
            s += jnp.sum(jax_squares(a + k, w) * jnp.arange(1.0, 4.0)) * (1.0 + 0.1 * s)
        return s

    got = ez.grad(squares_in_a_loop, argnums=(0, 1))(a, w)
    want = jax.grad(ref, argnums=(0, 1))(a, w)
    np.testing.assert_allclose(got[0], np.asarray(want[0]), rtol=1e-13)
    assert got[1] == pytest.approx(float(want[1]), rel=1e-13)


def test_custom_vjp_returning_an_array_checks_its_rules() -> None:
    @ez.custom_vjp
    def doubled(a):
        return 2.0 * a

    def doubled_fwd(a):
        return np.sum(a)  # not (out, ...)

    def doubled_bwd(g, a_bar):
        a_bar += 2.0 * g

    doubled.defvjp(doubled_fwd, doubled_bwd)

    def uses(a):
        return np.sum(doubled(a))

    with pytest.raises(ez.FrontendError, match=r"doubled_fwd \(fwd of doubled\) must return "
                       r"\(out, r1, ..., rk\) with out a float64\[:\]"):
        ez.grad(uses)(np.ones(3))


# --- custom_jvp: forward mode uses the rule; reverse mode transposes it -------------------------


@ez.custom_jvp
def softplus(x):
    return math.log(1.0 + math.exp(x))


@softplus.defjvp
def softplus_jvp(x, dx):
    return softplus(x), 10.0 * dx / (1.0 + math.exp(-x))  # ten times the true derivative


def softplus_times(x, y):
    return softplus(x) * y


def test_custom_jvp_rule_is_used_in_both_modes() -> None:
    x, y = 0.5, 2.0
    sig = 1.0 / (1.0 + math.exp(-x))
    value, tangent = ez.jvp(softplus_times, (x, y), (1.0, 0.0))
    assert value == pytest.approx(math.log1p(math.exp(x)) * y, rel=1e-14)
    assert tangent == pytest.approx(10.0 * sig * y, rel=1e-14)
    assert ez.grad(softplus_times)(x, y) == pytest.approx(10.0 * sig * y, rel=1e-14)
    dy = ez.grad(softplus_times, argnums=1)(x, y)
    assert dy == pytest.approx(math.log1p(math.exp(x)), rel=1e-14)

    def both(p):
        return softplus(p[0]) * p[1]

    np.testing.assert_allclose(ez.jacfwd(both)(np.array([x, y])), [10.0 * sig * y,
                               math.log1p(math.exp(x))], rtol=1e-14)


@ez.custom_jvp
def stable_log1pexp(x):
    return math.log(1.0 + math.exp(x))


@stable_log1pexp.defjvp
def stable_log1pexp_jvp(x, dx):
    # JAX's documentation example: the body's derivative is nan at large x, the rule is not
    return stable_log1pexp(x), (1.0 - 1.0 / (1.0 + math.exp(x))) * dx


def test_custom_jvp_gives_a_stable_gradient() -> None:
    def plain(x):
        return math.log(1.0 + math.exp(x))

    assert ez.grad(stable_log1pexp)(3.0) == pytest.approx(1.0 - 1.0 / (1.0 + math.exp(3.0)))
    assert ez.grad(stable_log1pexp)(800.0) == 1.0
    assert math.isnan(ez.grad(plain)(800.0))  # the body's own derivative: inf / inf


@ez.custom_jvp
def weighted_sum(a, w):
    s = 0.0
    for i in range(a.shape[0]):
        s += w * a[i]
    return s


@weighted_sum.defjvp
def weighted_sum_jvp(a, w, da, dw):
    s = 0.0
    t = 0.0
    for i in range(a.shape[0]):
        s += w * a[i]
        t += 2.0 * (w * da[i] + dw * a[i])  # twice the true tangent
    return s, t


def test_custom_jvp_with_arrays() -> None:
    a = np.array([1.0, 2.0, -0.5])
    w = 0.5

    def outer(a, w):
        return weighted_sum(a, w) * 3.0

    ga, gw = ez.grad(outer, argnums=(0, 1))(a, w)
    np.testing.assert_allclose(ga, 6.0 * w * np.ones(3), rtol=1e-14)
    assert gw == pytest.approx(6.0 * a.sum(), rel=1e-14)
    _, t = ez.jvp(outer, (a, w), (np.array([1.0, 0.0, 0.0]), 0.0))
    assert t == pytest.approx(6.0 * w, rel=1e-14)
    _, t = ez.jvp(outer, (a, w), (np.zeros(3), 1.0))  # zero tangent array
    assert t == pytest.approx(6.0 * a.sum(), rel=1e-14)


# --- errors -------------------------------------------------------------------------------------


def test_forward_mode_of_custom_vjp_is_an_error() -> None:
    with pytest.raises(DifferentiationError, match="custom_vjp rule, which forward mode"):
        ez.jvp(calls_sin_times, (0.3, 3.0), (1.0, 0.0))


def test_missing_or_mistyped_rules_are_errors() -> None:
    @ez.custom_vjp
    def no_rule(x):
        return x * x

    def uses(x):
        return no_rule(x)

    with pytest.raises(ez.FrontendError, match=r"without a rule: call no_rule.defvjp"):
        ez.grad(uses)(1.0)

    @ez.custom_vjp
    def bad(x, y):
        return x * y

    def bad_fwd(x, y):
        return x * y, y

    def bad_bwd(y, g):
        return g * y  # one cotangent, but two float arguments

    bad.defvjp(bad_fwd, bad_bwd)

    def uses_bad(x, y):
        return bad(x, y)

    with pytest.raises(ez.FrontendError, match="bad_bwd must return one cotangent per float"):
        ez.grad(uses_bad)(1.0, 2.0)
    with pytest.raises(TypeError, match="already has a custom_vjp rule"):
        ez.custom_jvp(bad)


# --- rules on functions the optimizer could see through -----------------------------------------


@ez.inactive
def stop_gradient(v):
    return v


@ez.custom_vjp
def clip_gradient(x):
    return x


def clip_gradient_fwd(x):
    return x


def clip_gradient_bwd(g):
    return max(-0.5, min(0.5, g))


clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)


@ez.custom_vjp
def one(x):
    return 1.0


def one_fwd(x):
    return 1.0


def one_bwd(g):
    return 7.0 * g


one.defvjp(one_fwd, one_bwd)


def test_identity_and_constant_functions_keep_their_rules() -> None:
    """-O2 before differentiation must not replace these calls by their argument or their
    constant result (that would bypass the rule)."""

    def uses_stop(x):
        return x * stop_gradient(x)

    assert ez.grad(uses_stop)(3.0) == 3.0
    assert ez.jvp(uses_stop, (3.0,), (1.0,)) == (9.0, 3.0)

    def uses_clip(x):
        return clip_gradient(x * 3.0)

    assert ez.grad(uses_clip)(2.0) == 1.5  # the cotangent 1.0 clipped to 0.5, times 3

    def uses_one(x):
        return one(x) * 2.0

    assert ez.grad(uses_one)(2.0) == 14.0


def test_check_grad_runs_functions_with_rules() -> None:
    """JAX differentiates the undecorated body, so a correct rule passes `check_grad`."""
    from enzyme_py.testing import check_grad

    check_grad(scaled_norm, np.array([1.0, -2.0, 2.5]), 1.3, argnums=(0, 1))
