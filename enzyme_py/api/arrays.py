"""`vjp`, `jvp`, `jacrev` and `jacfwd` of functions that return arrays (or tuples of arrays and
scalars).

Such a function is differentiated through its output-slot wrapper (`array_results`): reverse
mode seeds the slots' shadows with the cotangent, forward mode reads the tangent from them.
The slots are allocated here with the result's shapes, learned by running `jit(f)` once per
argument signature and shapes (in this subset shapes never depend on float values; the
wrapper checks them anyway, a mismatch is a `ValueError`).

Invariants: the caller's arrays are never modified (they are copied before native code
runs); results follow JAX: `vjp_fn(ct)` takes a cotangent with the value's structure and gives
one cotangent per argument; a Jacobian of a result item of shape `S` with respect to an
argument of shape `A` has shape `S + A` (a tuple of them for a tuple result; an integer item
has none: a `NotDifferentiableError`, a `TypeError` as JAX raises); a cotangent or tangent
of the wrong shape or structure is an `ArgumentValueError`, a `ValueError` as in JAX.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from enzyme_py.analysis.activities import Activity
from enzyme_py.api.compile import build_module, optimize_before_ad, param_names
from enzyme_py.api.gradients import (
    GradCache,
    argument_cotangents,
    float_arguments,
    grad_cache_of,
    run_gradient,
    shadow_like,
)
from enzyme_py.array_results import (
    Item,
    add_output_wrapper,
    result_items,
    slot_activities,
)
from enzyme_py.caches import FunctionCache
from enzyme_py.calling import ErrorRecord, arg_key, arg_types, compile_checked
from enzyme_py.collector import while_compiling
from enzyme_py.config import Config
from enzyme_py.errors import ArgumentValueError, NotDifferentiableError
from enzyme_py.frontend import Array, FType, Tuple

__all__ = ["array_jacfwd", "array_jacrev", "array_jvp", "array_vjp"]


def _is_float(item: Item) -> bool:
    return (item.elem if isinstance(item, Array) else item).is_float


def _dtype(item: Item) -> np.dtype:
    return (item.elem if isinstance(item, Array) else item).dtype


@dataclass(frozen=True)
class _Layout:
    """The items of a result, and whether they come as a tuple (even of one item)."""

    items: tuple[Item, ...]
    is_tuple: bool

    def unpack(self, value: Any) -> list[Any]:
        return list(value) if self.is_tuple else [value]

    def pack(self, parts: list[Any]) -> Any:
        return tuple(parts) if self.is_tuple else parts[0]


def _layout(t: FType, fname: str) -> _Layout:
    return _Layout(result_items(t, fname), isinstance(t, Tuple))


def _layout_of(cache: GradCache, args: Sequence[Any]) -> _Layout:
    return _layout(cache.result_type(args), cache.f.__name__)


def _shape_key(args: Sequence[Any]) -> tuple:
    """What may decide the result's shapes: argument types, array shapes, integer values."""
    return tuple((arg_key(a), a.shape) if isinstance(a, np.ndarray) else
                 (type(a), None if isinstance(a, float | np.floating) else a) for a in args)


_SHAPES = FunctionCache()  # per function: result shapes by argument types and shapes


def _result_shapes(cache: GradCache, args: Sequence[Any]) -> list[tuple[int, ...]]:
    """The shape of each result item (`()` for a scalar), from one run of `jit(f)`."""
    key = _shape_key(args)
    got = _SHAPES.get(cache.f, key)
    if got is None:
        value = cache.jit(*args)
        got = _SHAPES.put(cache.f, key,
                          [np.shape(v) for v in _layout_of(cache, args).unpack(value)])
    return got


def _slot(item: Item, shape: tuple[int, ...]) -> np.ndarray:
    return np.zeros(shape if isinstance(item, Array) else (1,), _dtype(item))


def _item_value(item: Item, buf: np.ndarray) -> Any:
    if isinstance(item, Array):
        return buf
    v = buf[0]
    return bool(v) if item.name == "bool" else float(v) if item.is_float else int(v)


# --- reverse mode --------------------------------------------------------------------------------


def _cotangent_parts(fname: str, layout: _Layout, shapes: list[tuple[int, ...]],
                     ct: Any) -> list[np.ndarray | None]:
    """The cotangent as one C-contiguous buffer per float item (None for the others)."""
    n = len(layout.items)
    if layout.is_tuple and (not isinstance(ct, tuple | list) or len(ct) != n):
        raise ArgumentValueError(f"vjp of {fname}(): the cotangent must be a tuple of {n} "
                                 "items, like the value")
    parts = layout.unpack(tuple(ct) if layout.is_tuple else ct)
    out: list[np.ndarray | None] = []
    for k, (item, shape, c) in enumerate(zip(layout.items, shapes, parts, strict=True)):
        if not _is_float(item):
            out.append(None)
            continue
        buf = np.array(c, dtype=_dtype(item), order="C", copy=True)
        if buf.shape != shape:
            raise ArgumentValueError(f"vjp of {fname}(): cotangent {k} has shape "
                                     f"{buf.shape}; the value's is {shape}")
        out.append(buf.reshape(shape if isinstance(item, Array) else (1,)))
    return out


def array_vjp(cache: GradCache, args: Sequence[Any], active: tuple[bool, ...]
              ) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """`vjp` of an array-returning function (see `api.vjp`)."""
    fname = cache.f.__name__
    layout = _layout_of(cache, args)
    value = cache.jit(*args)
    shapes = [np.shape(v) for v in layout.unpack(value)]
    g = cache.get(args, active, False, array_results=True)

    def vjp_fn(ct: Any) -> tuple[Any, ...]:
        seeds = _cotangent_parts(fname, layout, shapes, ct)
        work = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
        shadows = {i: shadow_like(work[i]) for i in range(len(args))
                   if g.activities[i] == Activity.DUP}
        slots = [(_slot(item, shape), seed)
                 for item, shape, seed in zip(layout.items, shapes, seeds, strict=True)]
        _, outs = run_gradient(g, work, None, shadows, slots)
        return argument_cotangents(g, active, outs, shadows)

    return value, vjp_fn


def array_jacrev(f: Callable, args: Sequence[Any], argnum: int) -> Any:
    """The Jacobian of an array-returning `f` by reverse mode: one `vjp` per result element."""
    x = args[argnum]
    layout = _layout_of(grad_cache_of(f), args)
    items = layout.items
    _check_float_argument(f, x, argnum)
    _check_float_results(f, items)
    value, pullback = array_vjp(grad_cache_of(f), args, float_arguments(args))
    values = layout.unpack(value)
    jacs: list[Any] = []
    for k, item in enumerate(items):
        shape = np.shape(values[k])
        size = int(np.prod(shape, dtype=np.int64))
        rows = np.zeros((size, *np.shape(x)), dtype=_jacobian_dtype(item, x))
        for i in range(size):
            ct = [np.zeros(np.shape(v), _dtype(it)) if _is_float(it) else None
                  for it, v in zip(items, values, strict=True)]
            ct[k].flat[i] = 1.0  # type: ignore[union-attr]
            rows[i] = pullback(layout.pack(ct))[argnum]
        jacs.append(rows.reshape(shape + np.shape(x)))
    return layout.pack(jacs)


# --- forward mode --------------------------------------------------------------------------------


_FORWARD = FunctionCache()  # per function: (derivative, types, layout, error record)


@while_compiling
def _forward_native(f: Callable, args: Sequence[Any]
                    ) -> tuple[Any, tuple, _Layout, ErrorRecord | None]:
    """`fwddiffe` of f's output-slot wrapper for C-contiguous copies of `args` (cached)."""
    from enzyme_py.ad.driver import forward_module

    key = tuple(map(arg_key, args))
    got = _FORWARD.get(f, key)
    if got is not None:
        return got
    name = getattr(f, "__name__", "f")
    types = tuple(t.value if isinstance(t, Array) else t
                  for t in arg_types(name, param_names(f), args))
    module, compiled, session = build_module(f, types, Config(), True)
    layout = _layout(compiled.return_type, name)
    wname = add_output_wrapper(session, compiled, f)
    module = optimize_before_ad(module, 2)
    acts: list[str] = []
    for t in types:
        if isinstance(t, Array):  # integer arrays carry no tangent
            acts += [Activity.DUP if t.elem.is_float else Activity.CONST]
            acts += [Activity.CONST] * t.ndim
        else:
            acts.append(Activity.DUP if t.is_float else Activity.CONST)
    acts += slot_activities(layout.items, Activity.DUP)
    out, dname = forward_module(module, wname, acts, opt_level=0, return_primal=True,
                                handed_over=True)
    jm, errors = compile_checked(out, session, dname)
    return _FORWARD.put(f, key, (jm.function(dname), types, layout, errors))


def _forward_call(f: Callable, primals: Sequence[Any], tangents: Sequence[Any],
                  shapes: list[tuple[int, ...]]) -> tuple[Any, Any]:
    native, types, layout, errors = _forward_native(f, primals)
    items = layout.items
    flat: list[Any] = []
    for t, v, dv in zip(types, primals, tangents, strict=True):
        if isinstance(t, Array):
            flat.append(np.array(v, order="C"))
            if t.elem.is_float:
                d = np.array(dv, dtype=v.dtype, order="C")
                if d.shape != v.shape:
                    raise ArgumentValueError(f"jvp: each tangent must have its primal's "
                                             f"shape: got {d.shape} for {v.shape}")
                flat.append(d)
            flat.extend(v.shape)
        elif t.is_float:
            flat += [float(v), float(dv)]
        else:
            flat.append(v)
    slots: list[tuple[np.ndarray, np.ndarray | None]] = []
    for item, shape in zip(items, shapes, strict=True):
        buf = _slot(item, shape)
        tangent = _slot(item, shape) if _is_float(item) else None
        flat.append(buf)
        if tangent is not None:
            flat.append(tangent)
        if isinstance(item, Array):
            flat.extend(shape)
        slots.append((buf, tangent))
    if errors is None:
        native(*flat)
    else:
        errors.call(native, *flat)
    values = [_item_value(item, buf) for item, (buf, _) in zip(items, slots, strict=True)]
    tans = [None if t is None else _item_value(item, t)
            for item, (_, t) in zip(items, slots, strict=True)]
    return layout.pack(values), layout.pack(tans)


def array_jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """`jvp` of an array-returning function (see `api.forward.jvp`)."""
    shapes = _result_shapes(grad_cache_of(f), primals)
    return _forward_call(f, primals, tangents, shapes)


def array_jacfwd(f: Callable, args: Sequence[Any], argnum: int) -> Any:
    """The Jacobian of an array-returning `f` by forward mode: one sweep per input element."""
    x = args[argnum]
    cache = grad_cache_of(f)
    layout = _layout_of(cache, args)
    items = layout.items
    _check_float_argument(f, x, argnum)
    _check_float_results(f, items)
    shapes = _result_shapes(cache, args)
    base = [np.zeros(np.shape(a), a.dtype) if isinstance(a, np.ndarray) else 0.0
            for a in args]
    n = int(np.size(x))
    cols = [np.zeros((n, *shape), _jacobian_dtype(item, x))
            for item, shape in zip(items, shapes, strict=True)]
    for j in range(n):
        tangents = list(base)
        if isinstance(x, np.ndarray):
            e = np.zeros(x.shape, x.dtype)
            e.flat[j] = 1.0
            tangents[argnum] = e
        else:
            tangents[argnum] = 1.0
        _, tans = _forward_call(f, args, tangents, shapes)
        for k, t in enumerate(layout.unpack(tans)):
            cols[k][j] = t
    jacs: list[Any] = []
    for c, shape in zip(cols, shapes, strict=True):
        # (n, *S) -> (*S, *A)
        moved = np.moveaxis(c.reshape((n, *shape)), 0, -1)
        jacs.append(np.ascontiguousarray(moved.reshape(shape + np.shape(x))))
    return layout.pack(jacs)


def _check_float_argument(f: Callable, x: Any, argnum: int) -> None:
    name = getattr(f, "__name__", "f")
    ok = isinstance(x, float | np.floating) or (isinstance(x, np.ndarray) and
                                                 x.dtype.kind == "f")
    if not ok:
        raise NotDifferentiableError(f"Jacobian of {name}(): argument {argnum} must be a "
                                     f"float or a float array, not {type(x).__name__}"
                                     + (f" of dtype {x.dtype}" if isinstance(x, np.ndarray)
                                        else ""))


def _check_float_results(f: Callable, items: tuple[Item, ...]) -> None:
    for k, item in enumerate(items):
        if not _is_float(item):
            name = getattr(f, "__name__", "f")
            where = f"result {k}" if len(items) > 1 else "the result"
            raise NotDifferentiableError(f"Jacobian of {name}(): {where} is {item}; only "
                                         "float results have a Jacobian (use vjp or jvp)")


def _jacobian_dtype(item: Item, x: Any) -> np.dtype:
    if isinstance(x, np.ndarray):
        return np.result_type(_dtype(item), x.dtype)
    return _dtype(item)

