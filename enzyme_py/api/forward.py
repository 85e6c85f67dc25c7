"""Forward-mode entry points: `jvp`, `jacfwd`, `jacrev`, and Hessians by forward-over-reverse
(`hvp`, `hessian`).

`hessian` applies the forward transform to the reverse gradient's IR (the two transforms
compose). Invariants: inputs are never modified (arrays are copied before native code runs);
results follow JAX's conventions (`jax.jvp`, `jax.hessian` for one argument).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py.analysis.activities import Activity
from enzyme_py.api.compile import (
    build_module,
    optimize_before_ad,
    param_names,
    with_defaults,
)
from enzyme_py.api.gradients import grad_cache_of, reported_gradient
from enzyme_py.array_results import carries_arrays
from enzyme_py.caches import FunctionCache
from enzyme_py.calling import arg_key, arg_types, compile_checked, convert_result
from enzyme_py.collector import while_compiling
from enzyme_py.config import Config
from enzyme_py.errors import (
    ArgumentValueError,
    CallError,
    EnzymePyError,
    NotDifferentiableError,
)
from enzyme_py.frontend import Array, Scalar
from enzyme_py.frontend.ftypes import NoneType

__all__ = ["hessian", "hvp", "jacfwd", "jacrev", "jvp"]


_COMPILED = FunctionCache()  # per function: forward derivatives by signature


def _forward_native(f: Callable, args: Sequence[Any], with_gradient: bool) -> tuple[Any, Any]:
    """`fwddiffe` of f (or of f's gradient when `with_gradient`), compiled once per argument
    signature (a Hessian calls it once per column)."""
    key = (tuple(map(arg_key, args)), with_gradient)
    got = _COMPILED.get(f, key)
    if got is None:
        got = _COMPILED.put(f, key, _compile_forward(f, args, with_gradient))
    return got


def _flat_activities(types: Sequence[Any], float_array: list[Activity],
                     float_scalar: Activity) -> list[Activity]:
    """One activity per flat argument: a float array is `float_array` (its extents const),
    a float scalar `float_scalar`; integers (arrays too) are const."""
    out: list[Activity] = []
    for t in types:
        if isinstance(t, Array):
            out += float_array if t.elem.is_float else [Activity.CONST]
            out += [Activity.CONST] * t.ndim
        else:
            out.append(float_scalar if t.is_float else Activity.CONST)
    return out


@while_compiling
def _compile_forward(f: Callable, args: Sequence[Any], with_gradient: bool) -> tuple[Any, Any]:
    from enzyme_py.ad.driver import forward_module, gradient_module

    name = getattr(f, "__name__", "f")
    # every entry point here copies its arrays C-contiguous first (`_c_copy`)
    types = tuple(t.value if isinstance(t, Array) else t
                  for t in arg_types(name, param_names(f), args))
    module, compiled, session = build_module(f, types, Config(), True)
    module = optimize_before_ad(module, 2)
    rt = compiled.return_type
    writer = isinstance(rt, NoneType) and not with_gradient
    if not (isinstance(rt, Scalar) and rt.is_float or writer):
        raise NotDifferentiableError(f"{name}() must return one float here; it returns {rt}")
    fname = compiled.function.name or ""
    flat_fwd = _flat_activities(types, [Activity.DUP], Activity.DUP)
    if with_gradient:
        rev_acts = _flat_activities(types, [Activity.DUP], Activity.OUT)
        module, fname = gradient_module(module, fname, rev_acts, True, opt_level=2,
                                        handed_over=True)
        grad_fn = module.get_function(fname)
        # forward activities of the gradient's own parameters: its primal arguments and the
        # shadows (dup, their tangents are the second-order directions), the seed const
        flat_fwd = _flat_activities(types, [Activity.DUP, Activity.DUP], Activity.DUP)
        flat_fwd.append(Activity.CONST)  # the seed
        if len(flat_fwd) != len(grad_fn.args):
            raise EnzymePyError("internal error: the gradient's signature is unexpected")
    # a Hessian needs only the tangent of the gradient (and nested structs cannot be returned)
    out, dname = forward_module(module, fname, flat_fwd, opt_level=0, handed_over=True,
                                return_primal=not with_gradient)
    jm, errors = compile_checked(out, session, dname)
    return _Checked(jm.function(dname), errors), types


class _Checked:
    """A compiled derivative whose module's error record is read after every call, so a
    failed bounds or shape check raises (`IndexError`, `ValueError`) as in `jit`."""

    def __init__(self, native: Any, errors: Any) -> None:
        self.native = native
        self.errors = errors

    def __call__(self, *args: Any) -> Any:
        if self.errors is None:
            return self.native(*args)
        return self.errors.call(self.native, *args)


def _returns_arrays(f: Callable, args: Sequence[Any]) -> bool:
    return carries_arrays(grad_cache_of(f).result_type(args))


def _c_copy(v: np.ndarray) -> np.ndarray:
    """A C-contiguous copy (the forward entry points never modify the caller's arrays)."""
    return np.array(v, order="C")


def _c_zeros(v: np.ndarray) -> np.ndarray:
    return np.zeros(v.shape, v.dtype)


def jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """`(f(*primals), directional derivative along tangents)`, like `jax.jvp`.

    Tangents of integers and integer arrays are ignored (JAX's float0). A function that
    returns None and writes its results into argument arrays gives
    `(final arrays, their tangents)`: one entry per array argument, in order (None for the
    tangent of an integer array); the caller's arrays are not modified.

    Example::

        value, slope = jvp(f, (x, 2.0), (dx, 1.0))
    """
    if len(primals) != len(tangents):
        raise CallError("jvp: primals and tangents must have the same length")
    primals, tangents = with_defaults(f, primals, tangents)  # type: ignore[assignment]
    if _returns_arrays(f, primals):
        from enzyme_py.api.arrays import array_jvp

        return array_jvp(f, primals, tangents)
    native, types = _forward_native(f, primals, with_gradient=False)
    flat: list[Any] = []
    arrays: list[tuple[np.ndarray, np.ndarray | None]] = []
    for t, v, dv in zip(types, primals, tangents, strict=True):
        if isinstance(t, Array):
            work = _c_copy(v)
            if not t.elem.is_float:
                flat += [work, *v.shape]
                arrays.append((work, None))
                continue
            dv = np.ascontiguousarray(dv, dtype=v.dtype)
            if dv.shape != v.shape:
                raise ArgumentValueError(f"jvp: each tangent must have its primal's shape: "
                                         f"got {dv.shape} for {v.shape}")
            dv = dv.copy()
            flat += [work, dv, *v.shape]
            arrays.append((work, dv))
        elif t.is_float:
            flat += [float(v), float(dv)]
        else:
            flat.append(v)
    r = native(*flat)
    if r is None:  # a writer: its results are the arrays it leaves
        return tuple(a for a, _ in arrays), tuple(d for _, d in arrays)
    return convert_result(Scalar("f64"), r[0]), float(r[1])


def hvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
    """Hessian-vector product of scalar `f` at `primals` along `tangents` (forward-over-
    reverse); returns one array/float per argument, like `jax.jvp(jax.grad(f), ...)[1]`."""
    n = len(primals)
    primals, tangents = with_defaults(f, primals, tangents)  # type: ignore[assignment]
    native, types = _forward_native(f, primals, with_gradient=True)
    flat: list[Any] = []
    second: list[Any] = []
    for t, v, dv in zip(types, primals, tangents, strict=True):
        if isinstance(t, Array) and not t.elem.is_float:
            flat += [_c_copy(v), *v.shape]
            second.append(None)
        elif isinstance(t, Array):
            shadow_t = _c_zeros(v)
            flat += [_c_copy(v), np.ascontiguousarray(dv, dtype=v.dtype).copy(),
                     _c_zeros(v), shadow_t, *v.shape]
            second.append(shadow_t)
        elif t.is_float:
            flat += [float(v), float(dv)]
            second.append(None)
        else:
            flat.append(v)
            second.append(None)
    flat.append(1.0)
    r = native(*flat)
    # the result: { primal gradient outs..., tangent of those outs... } for float arguments
    outs = [t for t in types if isinstance(t, Scalar) and t.is_float]
    tangent_outs: list[Any] = []
    if outs:  # the tangent of the gradient's float adjoints (a struct for several)
        tangent_outs = list(r) if isinstance(r, tuple) else [r]
    result, k = [], 0
    for t, s in zip(types, second, strict=True):
        if isinstance(t, Array):
            result.append(s)
        elif t.is_float:
            result.append(float(tangent_outs[k]))
            k += 1
        else:
            result.append(None)
    return tuple(result[:n])  # one per argument given (filled-in defaults are not)


HESSIAN_WIDTH = 8  # Hessian columns per forward sweep (vector forward mode)


@while_compiling
def _hessian_native(f: Callable, args: Sequence[Any], argnum: int, width: int) -> Any:
    """Forward mode of width `width` over the gradient of `f` with respect to the float array
    `args[argnum]` alone (everything else const): its signature is the gradient's arguments
    with `width` tangents after the array and after its shadow. Compiled once per signature."""
    from enzyme_py.ad.driver import forward_module

    key = (tuple(map(arg_key, args)), "hessian", argnum, width)
    got = _COMPILED.get(f, key)
    if got is not None:
        return got
    name = getattr(f, "__name__", "f")
    types = tuple(t.value if isinstance(t, Array) else t  # arrays are passed as C copies
                  for t in arg_types(name, param_names(f), args))
    module, compiled, session = build_module(f, types, Config(), True)
    module = optimize_before_ad(module, 2)
    rt = compiled.return_type
    if not (isinstance(rt, Scalar) and rt.is_float):
        raise NotDifferentiableError(f"{name}() must return one float here; it returns {rt}")
    rev_acts: list[Activity] = []
    fwd_acts: list[Activity] = []
    for k, t in enumerate(types):
        extents = [Activity.CONST] * t.ndim if isinstance(t, Array) else []
        if k == argnum:  # forward: the array, then its shadow (the gradient)
            rev_acts += [Activity.DUP, *extents]
            fwd_acts += [Activity.DUP, Activity.DUP, *extents]
        else:
            rev_acts += [Activity.CONST, *extents]
            fwd_acts += [Activity.CONST, *extents]
    fwd_acts.append(Activity.CONST)  # the seed
    fname = compiled.function.name or ""
    module, gname = reported_gradient(module, fname, rev_acts, True, session, f,
                                      handed_over=True)
    out, dname = forward_module(module, gname, fwd_acts, opt_level=0, return_primal=False,
                                width=width, handed_over=True)
    jm, errors = compile_checked(out, session, dname)
    return _COMPILED.put(f, key, _Checked(jm.function(dname), errors))


def hessian(f: Callable, argnum: int = 0) -> Callable[..., np.ndarray]:
    """The Hessian of scalar `f` with respect to the array (or float) argument `argnum`
    (forward-over-reverse). For an array, `HESSIAN_WIDTH` columns come from one sweep of
    vector forward mode over the gradient; a float argument takes one Hessian-vector product.
    """

    def h(*args: Any) -> Any:
        x = args[argnum]
        base = [_c_zeros(a) if isinstance(a, np.ndarray) else 0.0 for a in args]
        if not isinstance(x, np.ndarray):
            tangents = list(base)
            tangents[argnum] = 1.0
            return hvp(f, args, tangents)[argnum]
        if x.dtype.kind != "f":
            raise NotDifferentiableError(f"hessian: argument {argnum} is an integer array "
                                         "(hessian requires real-valued inputs)")
        n = x.size
        width = max(1, min(HESSIAN_WIDTH, n))
        native = _hessian_native(f, args, argnum, width)
        out = np.zeros((n, n), dtype=x.dtype)
        directions = [_c_zeros(x) for _ in range(width)]
        columns = [_c_zeros(x) for _ in range(width)]
        for start in range(0, n, width):
            flat: list[Any] = []
            for k, a in enumerate(args):
                if k == argnum:
                    for j, d in enumerate(directions):
                        d.fill(0.0)
                        if start + j < n:
                            d.flat[start + j] = 1.0
                    for c in columns:
                        c.fill(0.0)
                    flat += [_c_copy(a), *directions, _c_zeros(a), *columns, *a.shape]
                elif isinstance(a, np.ndarray):
                    flat += [_c_copy(a), *a.shape]
                else:
                    flat.append(a)
            flat.append(1.0)
            native(*flat)
            for j in range(min(width, n - start)):
                out[:, start + j] = columns[j].ravel()
        return out.reshape(x.shape + x.shape)

    return h


def jacfwd(f: Callable, argnum: int = 0) -> Callable[..., Any]:
    """The Jacobian of `f` with respect to argument `argnum`, one forward-mode sweep per input
    direction, like `jax.jacfwd`: the gradient's shape for a float result; for an array result
    of shape `S` and an argument of shape `A`, shape `S + A` (a tuple of those for a tuple
    result)."""

    def jac(*args: Any) -> Any:
        if _returns_arrays(f, args):
            from enzyme_py.api.arrays import array_jacfwd

            return array_jacfwd(f, args, argnum)
        x = args[argnum]
        zeros = [_c_zeros(a) if isinstance(a, np.ndarray) else 0.0 for a in args]
        if not isinstance(x, np.ndarray):
            t = list(zeros)
            t[argnum] = 1.0
            return jvp(f, args, t)[1]
        out = np.empty(x.size)
        for j in range(x.size):
            t = list(zeros)
            e = _c_zeros(x)
            e.flat[j] = 1.0
            t[argnum] = e
            out[j] = jvp(f, args, t)[1]
        return out.reshape(x.shape)

    return jac


def jacrev(f: Callable, argnum: int = 0) -> Callable[..., Any]:
    """The Jacobian of `f` with respect to argument `argnum` by reverse mode: the gradient for a
    scalar output, one row per output (via `vjp`) for a tuple of floats (stacked); for an array
    result of shape `S` and an argument of shape `A`, shape `S + A` like `jax.jacrev` (a tuple
    of those for a tuple holding arrays)."""
    from enzyme_py.api.vjp import vjp

    def jac(*args: Any) -> Any:
        if _returns_arrays(f, args):
            from enzyme_py.api.arrays import array_jacrev

            return array_jacrev(f, args, argnum)
        value, pullback = vjp(f, *args)
        if not isinstance(value, tuple):
            return pullback(1.0)[argnum]
        rows = []
        for i in range(len(value)):
            ct = tuple(1.0 if k == i else 0.0 for k in range(len(value)))
            rows.append(np.asarray(pullback(ct)[argnum]))
        return np.stack(rows)

    return jac
