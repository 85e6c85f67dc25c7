"""`grad` and `value_and_grad` (as JAX's): argnums, has_aux, pytrees.

Invariants: a plain call (arrays and floats, no aux) takes the per-signature fast stub;
containers and `has_aux` go through the leaves (`Flattened`) and come back in their structure.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from enzyme_py.analysis.activities import Activity
from enzyme_py.api.compile import complete_args, flatten_call
from enzyme_py.api.gradients import (
    GradCache,
    Gradient,
    gradient_of,
    retrying,
    run_gradient,
    shadow_like,
)
from enzyme_py.api.vjp import gradient_with_aux
from enzyme_py.calling import (
    ChecksNeeded,
    _Overlap,
    arg_key,
    make_grad_stub,
    overlapping_arrays,
)
from enzyme_py.config import Config
from enzyme_py.errors import (
    ArgnumsError,
    NotDifferentiableError,
)
from enzyme_py.frontend import Scalar
from enzyme_py.pytree import Flattened, is_container


def normalize_argnums(argnums: int | Sequence[int], nargs: int, fname: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not -nargs <= a < nargs:
            raise ArgnumsError(f"{fname}(): argnums {a} is out of range for {nargs} "
                               "arguments")
    return tuple(a % nargs for a in nums)


def _scalar_return(g: Gradient, fname: str) -> None:
    rt = g.return_type
    if not (isinstance(rt, Scalar) and rt.is_float):
        raise NotDifferentiableError(f"grad of {fname}() needs a function returning one "
                                     f"float; it returns {rt} (use vjp or jacrev for tuples "
                                     "and arrays)")


class GradFunction:
    """`grad(f)` / `value_and_grad(f)`."""

    def __init__(self, f: Callable, argnums: int | Sequence[int], with_value: bool,
                 options: Config | None = None, has_aux: bool = False) -> None:
        if not isinstance(f, Flattened):
            functools.update_wrapper(self, f)  # type: ignore[arg-type]
        self.pyfunc = f
        self.argnums = argnums
        self.with_value = with_value
        self.has_aux = has_aux
        self.options = options or Config()
        self._grads = GradCache(f, self.options)
        self._stubs: dict[Any, Any] = {}
        self._leaf_grads: dict[tuple[Flattened, tuple[int, ...]], GradFunction] = {}
        self._aux_caches: dict[Flattened, GradCache] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != len(self._grads.params):
            args = complete_args(self.pyfunc, args, kwargs)
        stub = self._stubs.get(tuple(map(arg_key, args)))
        if stub is not None:
            try:
                return stub(*args)
            except _Overlap:
                pass
            except ChecksNeeded:  # an optimistic gradient's stub: the general path reruns
                self._stubs.pop(tuple(map(arg_key, args)), None)
        return self._general(args)

    def _structured(self, args: Sequence[Any]) -> Any:
        """Pytree arguments or `has_aux`: the gradient over the leaves, regrouped."""
        flat, leaves = flatten_call(self.pyfunc, args)
        nums = normalize_argnums(self.argnums, len(args), flat.__name__)
        for i in nums:
            if isinstance(args[i], str):
                raise ArgnumsError(f"{flat.__name__}(): argument {i} is the string "
                                   f"{args[i]!r}: strings are known at compile time and have "
                                   "no gradient; leave it out of argnums")
        leaf_nums = tuple(j for i in nums for j in flat.leaf_range(i))
        if self.has_aux:
            cache = self._aux_caches.get(flat)
            if cache is None:
                cache = self._aux_caches[flat] = GradCache(flat, self.options)
            value, aux, grads = gradient_with_aux(cache, leaves, leaf_nums)
        elif not leaf_nums:  # only empty structures (None, ()) are differentiated
            value = self._grads.jit(*args) if self.with_value else None
            grads = ()
        else:
            inner = self._leaf_grads.get((flat, leaf_nums))
            if inner is None:
                inner = GradFunction(flat, leaf_nums, self.with_value, self.options)
                self._leaf_grads[(flat, leaf_nums)] = inner
            r = inner(*leaves)
            value, grads = r if self.with_value else (None, r)
        per_arg = flat.regroup(nums, grads)
        result = per_arg[0] if isinstance(self.argnums, int) else tuple(per_arg)
        if self.has_aux:
            return ((value, aux), result) if self.with_value else (result, aux)
        return (value, result) if self.with_value else result

    def _general(self, args: Sequence[Any]) -> Any:
        if self.has_aux or any(is_container(a) for a in args):
            return self._structured(args)
        name = self.pyfunc.__name__
        nums = normalize_argnums(self.argnums, len(args), name)
        active = tuple(i in nums for i in range(len(args)))

        def get(optimistic: bool) -> Gradient:
            return self._grads.get(args, active, self.with_value, require_scalar=True,
                                   optimistic=optimistic)

        return retrying(self._grads, get, lambda g: self._run(g, args, nums))

    def _run(self, g: Gradient, args: Sequence[Any], nums: tuple[int, ...]) -> Any:
        """Call `g` on fresh shadows (and keep a stub for the next call of this signature)."""
        if not self.with_value:
            alias = len(args) > 1 and overlapping_arrays(args)
            stub = make_grad_stub(g, nums, isinstance(self.argnums, int), not alias)
            if stub is not None and not alias:
                self._stubs[tuple(map(arg_key, args))] = stub
        _scalar_return(g, self.pyfunc.__name__)
        shadows = {i: shadow_like(v) for i, (v, act) in enumerate(zip(args, g.activities,
                                                                        strict=True))
                   if act == Activity.DUP}
        seed = 1.0
        primal, outs = run_gradient(g, args, seed, shadows)
        per_arg: dict[int, Any] = {}
        k = 0
        for i, act in enumerate(g.activities):
            if act == Activity.OUT:
                per_arg[i] = float(outs[k])
                k += 1
        grads = tuple(per_arg[i] if i in per_arg else gradient_of(shadows[i]) for i in nums)
        result = grads[0] if isinstance(self.argnums, int) else grads
        return (primal, result) if self.with_value else result


def grad(f: Callable | None = None, argnums: int | Sequence[int] = 0, *,
         has_aux: bool = False, bounds_check: bool = True, errors: str = "numpy",
         fastmath: Any = False, cache: bool = False, checkpoint: Any = False,
         memory_budget: Any = None) -> Any:
    """The gradient of scalar-valued `f` with respect to argument(s) `argnums` (like jax.grad).

    Usable as `@grad`, `grad(f)`, or `grad(f, argnums=(0, 2))`; `errors` and `fastmath` as
    for `jit` (fast-math flags go on the gradient's code too).
    `checkpoint=True` (or a number of states to keep) or `memory_budget="256MB"` reverses
    `f`'s time loops by binomial checkpointing: a few copies of the loop's state instead of a
    tape that grows with the trip count, for the price of running steps again (the same
    gradient; see `enzyme_py/ad/checkpoint.py`).
    Arguments may be pytrees (dicts, tuples, lists, NamedTuples, dataclasses of arrays and
    floats, nested): the gradient of one comes back in its structure. With `has_aux`, `f`
    returns `(value, aux)` and the result is `(gradient, aux)`.
    """
    opts = Config(bounds_check, errors=errors, fastmath=fastmath, cache=cache,
                  checkpoint=checkpoint, memory_budget=memory_budget)
    if f is None:
        return lambda g: GradFunction(g, argnums, False, opts, has_aux)
    return GradFunction(f, argnums, False, opts, has_aux)


def value_and_grad(f: Callable | None = None, argnums: int | Sequence[int] = 0, *,
                   has_aux: bool = False, bounds_check: bool = True,
                   errors: str = "numpy", fastmath: Any = False,
                   cache: bool = False, checkpoint: Any = False,
                   memory_budget: Any = None) -> Any:
    """Like `grad`, returning `(f(*args), gradient)` (`((value, aux), gradient)` with
    `has_aux`)."""
    opts = Config(bounds_check, errors=errors, fastmath=fastmath, cache=cache,
                  checkpoint=checkpoint, memory_budget=memory_budget)
    if f is None:
        return lambda g: GradFunction(g, argnums, True, opts, has_aux)
    return GradFunction(f, argnums, True, opts, has_aux)
