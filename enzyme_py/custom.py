"""Custom derivative rules for Python functions, in JAX's style: `custom_vjp` and `custom_jvp`.

The rules are functions of the Python subset themselves: they are compiled with the function
that calls them (never called back into Python), and registered in the IR in Enzyme's ABI
(`__enzyme_register_gradient_*`, `__enzyme_register_derivative_*`), so reverse and forward
mode call them instead of differentiating the function's body.

`custom_vjp` (reverse mode: `grad`, `value_and_grad`, `vjp`, `jacrev`, `hessian`)::

    @ez.custom_vjp
    def f(x, y):                       # floats and arrays in, a float out
        return math.log(1.0 + math.exp(x)) * y

    def f_fwd(x, y):                   # (out, r1, ..., rk): the residuals the rule needs
        e = math.exp(x)
        return math.log(1.0 + e) * y, e / (1.0 + e), y

    def f_bwd(s, y, g):                # residuals, then g = the output's cotangent
        return g * s * y, g * math.log(1.0 + math.exp(s))   # one cotangent per float argument

    f.defvjp(f_fwd, f_bwd)

The subset has no nested tuples, so `fwd` returns `(out, r1, ..., rk)` flat (JAX: `(out, res)`)
and `bwd` takes the residuals unpacked, then `g` (JAX: `bwd(res, g)`). `bwd` returns the
cotangents of the *float* arguments in order (a float for one, a tuple for several, nothing
when there are none); integers have none. Arrays cannot be returned in the subset, so for
every array argument `bwd` also receives, after `g`, the array and its cotangent array, and
*adds* into the latter (`x_bar[i] += ...`), as Enzyme's shadows do.

`fwd` runs in the reverse sweep (the forward sweep runs `f`), so residuals cost no tape. The
arrays a rule reads must stay unchanged after the call: a later write to them is an error.

A `custom_vjp` function may also return an array (as `np.linalg.solve` does here). Then,
as in JAX, `fwd` runs in the forward sweep instead of `f`; its residuals (numbers and arrays)
are kept on the tape. `bwd(r1, ..., rk, g, a_bar, ...)` gets `g` (the output's cotangent
array), then one cotangent array per array argument to add into, and no primal array:
what it needs of them it takes as residuals. So the arguments may change after the call
(a loop that rewrites them, say)::

    @ez.custom_vjp
    def scaled_squares(a, w):
        return w * a * a

    def scaled_squares_fwd(a, w):
        return w * a * a, a.copy(), w

    def scaled_squares_bwd(a, w, g, a_bar):
        a_bar += 2.0 * w * a * g
        return np.sum(a * a * g)          # the cotangent of the float argument w

`custom_jvp` (forward mode: `jvp`, `jacfwd`; reverse mode too, as in JAX)::

    @ez.custom_jvp
    def softplus(x):
        return math.log(1.0 + math.exp(x))

    @softplus.defjvp
    def softplus_jvp(x, dx):          # primals, then one tangent per float/array argument
        return softplus(x), dx / (1.0 + math.exp(-x))

The rule returns `(out, tangent_out)` and must be linear in the tangents: reverse mode
differentiates `tangent_out` with respect to the tangents (JAX transposes the rule the same
way). Forward mode of a `custom_vjp` function is an error, as in JAX, unless it also has a
forward rule: `f.defjvp(rule)` on a `custom_vjp` function takes a rule as `custom_jvp` does,
which forward mode calls while reverse mode keeps `fwd`/`bwd` (the np.linalg stand-ins
have both).

Invariant: calling a decorated function from Python runs the undecorated function.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

__all__ = ["CustomRule", "custom_jvp", "custom_vjp"]


class CustomRule:
    """A Python function with a user-supplied derivative rule (see the module docstring)."""

    kind = "custom"

    def __init__(self, fun: Callable) -> None:
        if isinstance(fun, CustomRule):
            raise TypeError(f"{fun.__name__} already has a {fun.kind} rule")
        functools.update_wrapper(self, fun)  # type: ignore[arg-type]
        self.fun = fun

    def __call__(self, *args: Any) -> Any:
        return self.fun(*args)

    def rules_defined(self) -> bool:
        raise NotImplementedError


class custom_vjp(CustomRule):  # noqa: N801 - JAX's name
    """`f = custom_vjp(f); f.defvjp(fwd, bwd)`: reverse mode calls `fwd`/`bwd` for `f`."""

    kind = "custom_vjp"

    def __init__(self, fun: Callable) -> None:
        super().__init__(fun)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.jvp: Callable | None = None  # forward mode's rule, when given (`defjvp`)

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        for rule, what in ((fwd, "fwd"), (bwd, "bwd")):
            if not callable(rule) or isinstance(rule, CustomRule):
                raise TypeError(f"defvjp: {what} must be a plain Python function")
        self.fwd, self.bwd = fwd, bwd

    def defjvp(self, jvp: Callable) -> Callable:
        """Also a forward-mode rule, as `custom_jvp.defjvp` takes it (JAX's custom_vjp has
        none: forward mode of it is an error there): `jvp`, `jacfwd` call it, reverse mode
        keeps `fwd`/`bwd`. Returns the rule, so `@f.defjvp` works as a decorator."""
        if not callable(jvp) or isinstance(jvp, CustomRule):
            raise TypeError("defjvp: the rule must be a plain Python function")
        self.jvp = jvp
        return jvp

    def rules_defined(self) -> bool:
        return self.fwd is not None


class custom_jvp(CustomRule):  # noqa: N801 - JAX's name
    """`f = custom_jvp(f); f.defjvp(rule)`: forward (and reverse) mode use `rule` for `f`."""

    kind = "custom_jvp"

    def __init__(self, fun: Callable) -> None:
        super().__init__(fun)
        self.jvp: Callable | None = None

    def defjvp(self, jvp: Callable) -> Callable:
        """Set the rule; returns it, so `@f.defjvp` works as a decorator."""
        if not callable(jvp) or isinstance(jvp, CustomRule):
            raise TypeError("defjvp: the rule must be a plain Python function")
        self.jvp = jvp
        return jvp

    def rules_defined(self) -> bool:
        return self.jvp is not None
