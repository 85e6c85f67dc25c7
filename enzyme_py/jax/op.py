"""`primitive(f)`: a Python-subset function as a JAX primitive lowered to an XLA FFI custom call.

One JAX primitive, `enzyme_py_call`, carries every use; its parameters say which compiled form
runs (`kind`: primal, tangent, vjp, hvp; see `derivatives`), for which call signature (`sig`:
the function, the operands' enzyme_py types and shapes, the result items and their shapes) and
how the operands are batched (`batch`: per operand, which of the `k` leading batch axes it
has; results have all of them unless `out_batch` says which each keeps, summed over the
others), and which float operands the form differentiates (`active`, see `rules`).
Abstract evaluation reads the shapes off `sig` (`shapes` explains how they are found);
`lowering` compiles the form once per (kind, types, batch, ...) and emits a custom call to its
target (`targets`), so no Python runs when XLA executes it. The transformation rules live in
`rules`.

Invariants: operands are JAX arrays of float64, float32, int64, int32 (any rank) or bool
(scalars); anything else is a `CallError` at the call, before tracing goes on. Python ints
among the arguments are known at trace time and may decide result shapes.

Pytrees: arguments may be pytrees as `enzyme_py.pytree` defines them (tuples, lists, dicts,
NamedTuples, dataclasses of arrays and numbers, nested; JAX sorts dict keys the same way). A
call with a container among its arguments goes to the `Op` of `f` over their leaves (one per
structure, `pytree.flattened`), so the primitive only ever sees leaves; a result that is a tree
comes back rebuilt in its structure (`api.result_node`).

Failed checks: each form's error record is a parameter of its callee, a block on the
handler's stack per call (`record`), so calls XLA runs at once on several threads each report
their own failure.

Written arguments: a function that may write into argument arrays returns, after its own
result, their new values (only them when it returns nothing); the custom call computes them in
place in buffers aliased to the operands (`input_output_aliases`: XLA copies an operand first
when it is used again). Under `vmap` such an operand is broadcast to the batch first.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import ShapedArray
from jax.extend.core import Primitive

from enzyme_py.array_results import Item, result_items
from enzyme_py.errors import CallError
from enzyme_py.frontend import Array, FType, Tuple
from enzyme_py.frontend.ftypes import NoneType, scalar_of_dtype
from enzyme_py.jax.derivatives import (
    Active,
    Masks,
    Plan,
    build_plan,
    item_layout,
    rebatched,
    result_buffers,
)
from enzyme_py.jax.manual_axes import match_varying, result_aval
from enzyme_py.jax.shapes import result_shapes
from enzyme_py.pytree import Node, flatten_all, flattened, is_container

__all__ = ["Op", "Signature", "batch_sizes", "bind", "call_p", "is_float_item", "primitive"]

call_p = Primitive("enzyme_py_call")
call_p.multiple_results = True


class Op:
    """`primitive(f)`: call it with JAX arrays and numbers (see `primitive`). What a
    `Signature` refers to as its source: it has a `label` and builds each form's `plan`."""

    def __init__(self, f: Callable, bounds_check: bool, name: str | None) -> None:
        functools.update_wrapper(self, f)
        self.f = f
        self.bounds_check = bounds_check
        self.label = name or getattr(f, "__name__", "f")
        self._items: dict[tuple[FType, ...], Results] = {}
        self._jitted: Any = None
        self._plans: dict[Any, Plan] = {}
        self._leaf_ops: dict[Any, Op] = {}  # per structure of pytree arguments

    def __repr__(self) -> str:
        return f"<enzyme_py.jax.primitive({self.label})>"

    @property
    def jitted(self) -> Any:
        """`ez.jit(f)`, bounds-checked, for the shape probes."""
        if self._jitted is None:
            from enzyme_py.api import Config, JitFunction

            # a tree result as the tuple of its leaves
            self._jitted = JitFunction(self.f, Config(bounds_check=True), rebuild_trees=False)
        return self._jitted

    def plan(self, kind: str, sig: Signature, batch: tuple[tuple[bool, ...], ...],
             active: Active = None, out_batch: Masks = None) -> Plan:
        """The compiled form `kind` for this signature (see `derivatives`), derived once per
        operand types and active operands (the batching changes only the handler)."""
        int_shapes = tuple(s for s, it in zip(sig.item_shapes, sig.items, strict=True)
                           if not _is_float(it))
        key = (kind, sig.types, int_shapes if kind != "primal" else (), active)
        got = self._plans.get(key)
        if got is None:
            got = self._plans[key] = build_plan(self.f, sig.types, kind, ((),) * len(batch),
                                                sig.item_shapes, self.bounds_check, active)
        return rebatched(got, kind, sig.types, sig.items, batch, active, out_batch)

    def items(self, types: tuple[FType, ...]) -> Results:
        """What `f` gives for these operand types: its result items, then the operands it
        writes (their new values)."""
        got = self._items.get(types)
        if got is None:
            from enzyme_py.api import Config, build_module, result_node
            from enzyme_py.jax.derivatives import written_operands

            rt = build_module(self.f, types, Config(bounds_check=self.bounds_check), True)[1] \
                .return_type
            written = written_operands(self.f, types, self.bounds_check)
            none = isinstance(rt, NoneType)
            slots = () if none else result_items(rt, self.label)
            got = self._items[types] = Results(
                (*slots, *(types[i] for i in written)), len(slots), written, none,  # type: ignore[arg-type]
                isinstance(rt, Tuple), result_node(self.f, types))
        return got

    def _over_leaves(self, args: Sequence[Any]) -> tuple[Op, list[Any]]:
        """The `Op` of `f` over the leaves of `args` (one per structure), and the leaves."""
        from enzyme_py.api.compile import param_names

        leaves, trees = flatten_all(args)
        flat = flattened(self.f, trees, param_names(self.f))
        inner = self._leaf_ops.get(flat)
        if inner is None:
            inner = self._leaf_ops[flat] = Op(flat, self.bounds_check, self.label)
        return inner, leaves

    def __call__(self, *args: Any) -> Any:
        if any(is_container(a) for a in args):
            inner, leaves = self._over_leaves(args)
            return inner(*leaves)
        operands, types, known = [], [], []
        for k, a in enumerate(args):
            static = isinstance(a, int | np.integer) and not isinstance(a, bool)
            x = jnp.asarray(a)
            operands.append(x)
            types.append(_operand_type(self.label, k, x))
            known.append(int(a) if static else None)
        tys = tuple(types)
        res = self.items(tys)
        shapes = tuple(tuple(x.shape) for x in operands)
        item_shapes = result_shapes(self.f, self.jitted, tys, shapes, tuple(known))
        sig = Signature(self, tys, shapes, tuple(known), res.items,
                        (*item_shapes, *(shapes[i] for i in res.written)), res.written)
        outs = bind("primal", sig, ((),) * len(operands), operands)
        value, new = outs[:res.n_slots], outs[res.n_slots:]
        if res.returns_none:
            return new[0] if len(new) == 1 else tuple(new)
        if res.node is not None:
            result = res.node.unflatten(value)
        else:
            result = tuple(value) if res.is_tuple else value[0]
        return (result, *new) if new else result


@dataclass(frozen=True)
class Results:
    """What a call of `f` gives: `items` (its result items, then the operands `written`, as
    their new values); `n_slots` of them are `f`'s results."""

    items: tuple[Item, ...]
    n_slots: int
    written: tuple[int, ...]
    returns_none: bool
    is_tuple: bool
    node: Node | None


def _operand_type(label: str, k: int, x: Any) -> FType:
    elem = scalar_of_dtype(np.dtype(x.dtype))
    if elem is None or (elem.name == "bool" and x.ndim):
        raise CallError(f"enzyme_py.jax: {label}(): operand {k} is {x.dtype}"
                        f"{list(x.shape)}; supported: float64, float32, int64, int32 "
                        "arrays and numbers, and bool numbers")
    return Array(elem, x.ndim) if x.ndim else elem


@dataclass(frozen=True)
class Signature:
    """A call signature: shapes are the operands' own (batch axes not counted)."""

    op: Op
    types: tuple[FType, ...]
    shapes: tuple[tuple[int, ...], ...]
    known: tuple[int | None, ...]
    items: tuple[Item, ...]
    item_shapes: tuple[tuple[int, ...], ...]
    written: tuple[int, ...] = ()  # operands whose new values are the last items

    def floats(self, active: Active = None) -> tuple[list[int], list[int]]:
        """The active float operands (`active`, or all) and the float result items."""
        return item_layout(self.types, self.items, active)

    def canonical(self, kind: str, active: Active) -> Active:
        """`active` as forms are keyed: None for the primal or when every float operand is
        active; a written float array is always active (its new value has a derivative)."""
        if kind == "primal" or active is None:
            return None
        every = self.floats()[0]
        chosen = sorted(set(active) | {i for i in self.written if i in every})
        return None if chosen == every else tuple(chosen)

    def operand_shapes(self, kind: str, active: Active = None) -> list[tuple[int, ...]]:
        out = list(self.shapes)
        fl, fo = self.floats(active)
        if kind in ("tangent", "hvp"):
            out += [self.shapes[i] for i in fl]
        if kind in ("vjp", "hvp"):
            out += [self.item_shapes[j] for j in fo]
        return out

    def result_shapes(self, kind: str, active: Active = None) -> list[tuple[int, ...]]:
        fl, fo = self.floats(active)
        if kind == "primal":
            return list(self.item_shapes)
        if kind == "tangent":
            return [self.item_shapes[j] for j in fo]
        return [self.shapes[i] for i in fl]


def is_float_item(t: Any) -> bool:
    """Is an operand type or result item a float (array)?"""
    return (t.elem if isinstance(t, Array) else t).is_float


_is_float = is_float_item


def _dtype(t: Any) -> np.dtype:
    return (t.elem if isinstance(t, Array) else t).dtype


def bind(kind: str, sig: Signature, batch: tuple[tuple[bool, ...], ...],
         operands: Sequence[Any], active: Active = None, out_batch: Masks = None) -> list[Any]:
    """`call_p.bind` of one form (`batch`: one tuple per operand; `active`: the float operands
    it differentiates, as `Signature.canonical` keys them; `out_batch`: per result, the batch
    axes it keeps, summed over the others; None: every axis)."""
    if out_batch is not None and all(all(m) for m in out_batch):
        out_batch = None
    return call_p.bind(*match_varying(operands), kind=kind, sig=sig, batch=tuple(batch),
                       active=sig.canonical(kind, active),
                       out_batch=None if out_batch is None else tuple(map(tuple, out_batch)))


def batch_sizes(avals: Sequence[Any], batch: tuple[tuple[bool, ...], ...]) -> tuple[int, ...]:
    """The size of each batch axis, read off an operand that has it."""
    k = len(batch[0]) if batch else 0
    sizes = []
    for a in range(k):
        for aval, mask in zip(avals, batch, strict=True):
            if mask[a]:
                sizes.append(aval.shape[sum(mask[:a])])
                break
        else:
            raise ValueError("enzyme_py.jax: internal error: a batch axis no operand has")
    return tuple(sizes)


def abstract_eval(*avals: Any, kind: str, sig: Signature, batch: tuple[tuple[bool, ...], ...],
                  active: Active = None, out_batch: Masks = None) -> list[ShapedArray]:
    sizes = batch_sizes(avals, batch)
    types = result_buffers(kind, sig.types, sig.items, active)
    out = []
    for r, (t, s) in enumerate(zip(types, sig.result_shapes(kind, active), strict=True)):
        kept = sizes if out_batch is None else \
            tuple(n for n, present in zip(sizes, out_batch[r], strict=True) if present)
        out.append(result_aval(kept + tuple(s), _dtype(t), avals))
    return out


call_p.def_abstract_eval(abstract_eval)

_EAGER: dict[Any, Any] = {}


def _impl(*args: Any, kind: str, sig: Signature, batch: tuple, active: Active,
          out_batch: Masks) -> Any:
    key = (kind, sig, batch, active, out_batch)
    fn = _EAGER.get(key)
    if fn is None:
        fn = _EAGER[key] = jax.jit(functools.partial(call_p.bind, kind=kind, sig=sig,
                                                     batch=batch, active=active,
                                                     out_batch=out_batch))
    return fn(*args)


call_p.def_impl(_impl)

def primitive(f: Callable, *, bounds_check: bool = True, name: str | None = None) -> Op:
    """`f` (a function of the numeric Python subset) as a JAX primitive.

    `op(*args)` takes JAX arrays and numbers, or pytrees of them (dicts, tuples, lists,
    NamedTuples), and returns what `f` returns (an array, a number as a 0-d array, or a tuple
    or tree of them). Under `jax.jit` it is one XLA custom call into native
    code enzyme_py compiled; `jax.grad`/`vjp`/`jacrev` use enzyme_py's reverse mode,
    `jax.jvp`/`jacfwd`/`linearize` its forward mode, `jax.hessian` forward over reverse, and
    `jax.vmap` runs the batch in one call. A failed check (an index out of bounds) raises
    `JaxRuntimeError` naming the source line. When `f` writes into argument arrays, `op`
    returns `(f's result, new value of each written argument)`, or just the new values when
    `f` returns nothing.

    Example::

        import enzyme_py.jax as ezjax

        def energy(x, k):
            s = 0.0
            for i in range(x.shape[0] - 1):
                s += k * (x[i + 1] - x[i]) ** 2
            return s

        op = ezjax.primitive(energy)
        jax.jit(jax.grad(op))(jnp.arange(4.0), 2.0)
    """
    return Op(f, bounds_check, name)
