"""Strings known at compile time (`ftypes.Text`): literals, defaults and arguments bound to
them select a branch while compiling (`kind == "relu"`), one specialization per string, as
Python code passes modes and options; what a string cannot do is refused with its line."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import enzyme_py as ez
from enzyme_py.errors import ArgnumsError
from enzyme_py.frontend.errors import FrontendError


def activate(x, kind="tanh"):
    if kind == "relu":
        return np.maximum(x, 0.0)
    elif kind == "softplus":
        return np.log1p(np.exp(x))
    elif kind != "tanh":
        raise ValueError("unknown activation")
    return np.tanh(x)


def passes_on(x, kind):
    return activate(x, kind) * 2.0


def layers(W, x):
    h = activate(W @ x, "relu")
    mode = "softplus"  # (a name bound to a string in straight-line code)
    return np.sum(activate(h, kind=mode)) + np.sum(activate(x)) + np.sum(passes_on(x, "relu"))


def _jax_layers():
    """`layers` and its helpers with `np` bound to jax.numpy (defaults kept)."""
    g = layers.__globals__.copy()
    g["np"] = jnp
    for f in (layers, activate, passes_on):
        g[f.__name__] = type(f)(f.__code__, g, f.__name__, f.__defaults__)
    return g["layers"]


RNG = np.random.default_rng(4)
W, X = RNG.standard_normal((3, 4)), RNG.standard_normal(4)


def test_a_string_argument_picks_its_branch_and_the_gradient_is_jax_s() -> None:
    assert ez.jit(layers)(W, X) == pytest.approx(layers(W, X), rel=1e-14)
    got = ez.grad(layers, argnums=(0, 1))(W, X)
    with jax.enable_x64(True):
        want = jax.grad(_jax_layers(), argnums=(0, 1))(W, X)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-13, atol=1e-15)


def unknown_kind(x):
    return np.sum(activate(x, "gelu"))


def test_a_branch_the_string_rules_out_raises_at_run_time_with_its_line() -> None:
    with pytest.raises(ValueError, match="^unknown activation\n  at .*raise ValueError"):
        ez.jit(unknown_kind)(X)


def compares_with_a_number(x, kind="a"):
    if kind == 1:
        return x * 3.0
    return x * 2.0


def test_a_string_never_equals_a_number() -> None:
    assert ez.jit(compares_with_a_number)(1.5) == 3.0


def returns_a_string(x):
    return "done"


def adds_a_string(x):
    s = "a"
    return x + s


def binds_in_a_branch(x):
    if x > 0.0:
        kind = "relu"
    else:
        kind = "tanh"
    return np.sum(activate(np.ones(2) * x, kind))


@pytest.mark.parametrize("f, match", [
    (returns_a_string, "returning a string is not supported"),
    (adds_a_string, "arithmetic on str 'a' is not supported"),
    (binds_in_a_branch, "'kind' holds str 'tanh', which is bound at compile time; it cannot "
     "be bound inside an if"),
], ids=["return", "arithmetic", "branch"])
def test_what_a_string_cannot_do_is_refused_at_its_line(f, match) -> None:
    with pytest.raises(FrontendError, match=match):
        ez.jit(f)(1.0)


def activation_sum(x, kind="tanh"):
    return np.sum(activate(x, kind))


def test_a_string_passed_to_the_api_is_part_of_the_specialization() -> None:
    f = ez.jit(activation_sum)
    for kind, want in (("relu", np.maximum(X, 0.0)), ("tanh", np.tanh(X)),
                       ("softplus", np.log1p(np.exp(X)))):
        assert f(X, kind) == pytest.approx(np.sum(want), rel=1e-14)
    assert f(X) == pytest.approx(np.sum(np.tanh(X)), rel=1e-14)  # (the default)
    np.testing.assert_allclose(ez.grad(activation_sum)(X, "relu"), (X > 0) * 1.0)
    np.testing.assert_allclose(ez.grad(activation_sum)(X), 1.0 - np.tanh(X) ** 2, rtol=1e-14)
    with pytest.raises(ValueError, match="^unknown activation"):
        f(X, "gelu")
    with pytest.raises(ArgnumsError, match="argument 1 is the string 'relu': strings are "
                       "known at compile time and have no gradient"):
        ez.grad(activation_sum, argnums=1)(X, "relu")
