"""`vjp` (as `jax.vjp`): the value and a pullback, for float, tuple, array and pytree values.

Invariants: the pullback checks the cotangent's structure and shapes before native code runs;
cotangents of integer arguments are None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py.analysis.activities import Activity
from enzyme_py.api.compile import flatten_call, result_node, with_defaults
from enzyme_py.api.gradients import (
    GradCache,
    Gradient,
    argument_cotangents,
    float_arguments,
    grad_cache_of,
    retrying,
    run_gradient,
    shadow_like,
    zero_seed,
)
from enzyme_py.array_results import (
    carries_arrays,
)
from enzyme_py.calling import (
    arg_types,
)
from enzyme_py.errors import (
    ArgumentValueError,
    CallError,
    NotDifferentiableError,
)
from enzyme_py.frontend import FType, Scalar, Tuple
from enzyme_py.pytree import Node, flatten_all, is_container, node_of_type


def vjp(f: Callable, *args: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """`(f(*args), vjp_fn)` where `vjp_fn(cotangent)` gives one cotangent per argument
    (None for integer arguments), like `jax.vjp`. The value may be a float, an array, or a
    pytree of them (tuples, dicts, ...); the cotangent has its structure (arrays of its
    shapes). Arguments may be pytrees; their cotangents come back in their structure. With
    `has_aux`, `f` returns `(value, aux)` and the result is `(value, vjp_fn, aux)`.

    Example::

        def layer(W, x):
            return np.tanh(W @ x)

        y, pullback = vjp(layer, W, x)
        dW, dx = pullback(np.ones_like(y))
    """
    given = len(args)
    args, _ = with_defaults(f, args)  # (cotangents only for the arguments given)
    if has_aux or any(is_container(a) for a in args):
        out = _structured_vjp(f, args, has_aux)
    else:
        out = flat_vjp(grad_cache_of(f), args, float_arguments(args))
    if len(args) == given:
        return out
    pullback = out[1]
    return (out[0], lambda ct: pullback(ct)[:given], *out[2:])


def _structured_vjp(f: Callable, args: Sequence[Any], has_aux: bool) -> tuple[Any, ...]:
    """`vjp` over the leaves of pytree arguments; the value (and aux) rebuilt as trees."""
    flat, leaves = flatten_call(f, args)
    cache = grad_cache_of(flat)
    node = result_structure(cache, leaves)
    active = float_arguments(leaves)
    value, pullback = flat_vjp(cache, leaves, active)
    values = result_leaves(value, node)
    out_node = node
    if has_aux:
        out_node = aux_split(node, flat.__name__)
        n_value = out_node.num_leaves
        aux = node.children[1].unflatten(values[n_value:])
    else:
        n_value = len(values)

    def vjp_fn(ct: Any) -> tuple[Any, ...]:
        parts, ct_node = flatten_all([ct])
        if ct_node[0] != out_node:
            raise ArgumentValueError(f"vjp of {flat.__name__}(): the cotangent has "
                                     f"structure {ct_node[0]}; the value's is {out_node}")
        zeros = [zero_like(v) for v in values[n_value:]]
        return tuple(flat.regroup(range(len(args)), pullback(as_result(parts + zeros,
                                                                          node))))

    primal = out_node.unflatten(values[:n_value])
    return (primal, vjp_fn, aux) if has_aux else (primal, vjp_fn)


def flat_vjp(cache: GradCache, args: Sequence[Any], active: tuple[bool, ...]
         ) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """`vjp` of `cache.f` on flat arguments, cotangents for the `active` ones."""
    if carries_arrays(cache.result_type(args)):
        from enzyme_py.api.arrays import array_vjp

        return array_vjp(cache, args, active)
    def get(optimistic: bool) -> Gradient:
        return cache.get(args, active, True, optimistic=optimistic)

    def run(g: Gradient, seed: Any) -> tuple[Any, tuple[Any, ...]]:
        work = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
        shadows = {i: shadow_like(work[i]) for i in range(len(args))
                   if g.activities[i] == Activity.DUP}
        primal, outs = run_gradient(g, work, seed, shadows)
        return primal, argument_cotangents(g, active, outs, shadows)

    rt = cache.result_type(args)
    primal, _ = retrying(cache, get, lambda g: run(g, zero_seed(rt)))

    def vjp_fn(ct: Any) -> tuple[Any, ...]:
        seed = _number_cotangent(rt, ct, cache.f.__name__)
        return retrying(cache, get, lambda g: run(g, seed))[1]

    return primal, vjp_fn


def _number_cotangent(rt: FType, ct: Any, fname: str) -> Any:
    """The seed for a result of numbers: a float (a tuple of them, ints for int items) from
    a cotangent of the value's structure, else `ArgumentValueError`."""
    items = rt.items if isinstance(rt, Tuple) else (rt,)
    parts = ct if isinstance(rt, Tuple) else (ct,)
    if isinstance(rt, Tuple) and (not isinstance(ct, tuple | list) or len(ct) != len(items)):
        raise ArgumentValueError(f"vjp of {fname}(): the cotangent must be a tuple of "
                                 f"{len(items)} numbers, like the value; got {ct!r}")
    seed = []
    for k, (item, c) in enumerate(zip(items, parts, strict=True)):
        if np.ndim(c) != 0 or not isinstance(c, float | int | np.number | np.ndarray) or \
                isinstance(c, bool):
            raise ArgumentValueError(f"vjp of {fname}(): cotangent {k} must be a number "
                                     f"(the value's is {item}); got {c!r}")
        floating = isinstance(item, Scalar) and item.is_float
        seed.append(float(c) if floating else 0)
    return tuple(seed) if isinstance(rt, Tuple) else seed[0]


def result_structure(cache: GradCache, args: Sequence[Any]) -> Node:
    """The structure of `cache.f`'s result for these (flat) arguments."""
    rt = cache.result_type(args)
    node = result_node(cache.f, arg_types(cache.f.__name__, cache.params, args))
    return node if node is not None else node_of_type(rt)


def result_leaves(value: Any, node: Node) -> list[Any]:
    """A flat result's leaves (a tuple for several, the value for one)."""
    if node.kind == "leaf":
        return [value]
    return list(value) if isinstance(value, tuple) else [value]


def as_result(leaves: list[Any], node: Node) -> Any:
    """Per-leaf values (cotangents) in the form the flat machinery takes for this result."""
    return leaves[0] if node.kind == "leaf" else tuple(leaves)


def zero_like(v: Any) -> Any:
    """A zero cotangent for a result leaf (of its type: ints stay ints)."""
    return np.zeros_like(v) if isinstance(v, np.ndarray) else type(v)(0)


def aux_split(node: Node, fname: str) -> Node:
    """The value's structure of a `has_aux` result `(value, aux)`."""
    if node.kind != "tuple" or len(node.children) != 2:
        raise CallError(f"has_aux=True requires {fname}() to return a pair (value, aux); it "
                        f"returns {node}")
    return node.children[0]


def gradient_with_aux(cache: GradCache, args: Sequence[Any], nums: tuple[int, ...]
                       ) -> tuple[float, Any, tuple[Any, ...]]:
    """`grad(f, nums, has_aux=True)` on flat arguments: (value, aux, gradients of `nums`)."""
    fname = cache.f.__name__
    node = result_structure(cache, args)
    if aux_split(node, fname).kind != "leaf":
        raise CallError(f"has_aux=True: the value {fname}() returns first must be one float")
    rt = cache.result_type(args)
    assert isinstance(rt, Tuple)
    if not (isinstance(rt.items[0], Scalar) and rt.items[0].is_float):
        raise NotDifferentiableError(f"grad of {fname}() needs a value that is one float; "
                                     f"it is {rt.items[0]}")
    active = tuple(i in nums for i in range(len(args)))
    value, pullback = flat_vjp(cache, args, active)
    values = list(value)
    ct = [1.0] + [zero_like(v) for v in values[1:]]
    cots = pullback(tuple(ct))
    return values[0], node.children[1].unflatten(values[1:]), tuple(cots[i] for i in nums)
