"""Result shapes of a compiled Python function, for JAX's abstract evaluation.

Rule: inside JAX a result's shape must follow from the operands' types and shapes and from
integers known at trace time. In the Python subset the extents are computed by the compiled code
at run time (there is no shape-only evaluation), so the shapes are learned once per signature by
running `ez.jit(f)` (bounds-checked) on a probe: zeros of the operands' shapes, the values of
integer arguments known at trace time (Python ints), 0 for traced ones. A second probe, with
every element and float set to 1 and traced integers to 1, must give the same shapes; when it
does not, the error says which rule was broken (pass an integer that decides a shape as a
Python int; a shape that depends on float values or array elements cannot be used inside JAX).
A second probe that fails (an index out of range for the other value) is not taken as a
difference.

Invariants: shapes are cached per (function, types, shapes, known integers); a probe that
fails raises the probe's error, wrapped with what was being probed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py.errors import ArgumentValueError, EnzymePyError
from enzyme_py.frontend import Array, FType

__all__ = ["result_shapes"]

_CACHE: dict[Any, tuple[tuple[int, ...], ...]] = {}


def _probe_value(t: FType, shape: tuple[int, ...], known: int | None, fill: int) -> Any:
    if isinstance(t, Array):
        return np.full(shape, fill, dtype=t.elem.dtype)
    if t.is_float:
        return t.dtype.type(fill)
    if t.name == "bool":
        return bool(known if known is not None else 0)
    return t.dtype.type(known if known is not None else fill)


def _run(jitted: Callable, types: Sequence[FType], shapes: Sequence[tuple[int, ...]],
         known: Sequence[int | None], fill: int) -> list[Any]:
    args = [_probe_value(t, s, k, fill) for t, s, k in zip(types, shapes, known, strict=True)]
    value = jitted(*args)
    if value is None:  # a function that only writes into its arguments
        return []
    return list(value) if isinstance(value, tuple) else [value]


def result_shapes(f: Callable, jitted: Callable, types: tuple[FType, ...],
                  shapes: tuple[tuple[int, ...], ...], known: tuple[int | None, ...]
                  ) -> tuple[tuple[int, ...], ...]:
    """The shape of each result item of `f` for operands of these types and shapes;
    `known[i]` is the value of integer operand i when known at trace time."""
    key = (f, types, shapes, known)
    got = _CACHE.get(key)
    if got is not None:
        return got
    name = getattr(f, "__name__", "f")
    try:
        first = _run(jitted, types, shapes, known, 0)
    except EnzymePyError:
        raise
    except Exception as err:  # the probe's own failure (an index, a shape check)
        raise ArgumentValueError(
            f"enzyme_py.jax: the result shapes of {name}() are found by running it on zeros "
            f"of the operands' shapes {list(shapes)}, with traced integers 0; that run "
            f"failed: {type(err).__name__}: {err}") from err
    out_shapes = tuple(np.shape(v) for v in first)
    try:
        second = _run(jitted, types, shapes, known, 1)
    except Exception:
        second = None
    if second is not None and tuple(np.shape(v) for v in second) != out_shapes:
        traced_ints = any(k is None and not isinstance(t, Array) and t.is_int
                          for t, k in zip(types, known, strict=True))
        cause = ("the value of an integer operand traced by JAX: pass it as a Python int"
                 if traced_ints else "the values of array elements or floats, which JAX "
                 "does not know when it traces")
        raise ArgumentValueError(
            f"enzyme_py.jax: the result shapes of {name}() depend on {cause} (shapes "
            f"{list(out_shapes)} for one probe, {[np.shape(v) for v in second]} for another); "
            "inside JAX a result's shape must follow from the operands' shapes")
    _CACHE[key] = out_shapes
    return out_shapes
