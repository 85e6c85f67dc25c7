"""`primitive(f)`: a Python-subset function as a JAX primitive lowered to an XLA FFI custom call.

One JAX primitive, `enzyme_py_call`, carries every use; its parameters say which compiled form
runs (`kind`: primal, tangent, vjp, hvp; see `derivatives`), for which call signature (`sig`:
the function, the operands' enzyme_py types and shapes, the result items and their shapes) and
how the operands are batched (`batch`: per operand, which of the `k` leading batch axes it
has; results have all of them). Abstract evaluation reads the shapes off `sig` (`shapes`
explains how they are found); lowering compiles the form once per (kind, types, batch) and
emits a custom call to its target (`targets`), so no Python runs when XLA executes it. The
transformation rules live in `rules`.

Invariants: operands are JAX arrays of float64, float32, int64, int32 (any rank) or bool
(scalars); anything else is a `CallError` at the call, before tracing goes on. Python ints
among the arguments are known at trace time and may decide result shapes.

Limits: arguments are flat (arrays and numbers, no pytrees); a function may not write into its
arguments (no `input_output_aliases` yet); the compiled code's error record is one global per
module: when a call fails while another call of the same target runs on another thread
(sharded runs), the failure may be reported by the other call instead of its own (issue 16,
item 5: a per-call record).
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
from jax.interpreters import mlir

from enzyme_py.array_results import Item, result_items
from enzyme_py.errors import CallError
from enzyme_py.frontend import Array, FType, Tuple
from enzyme_py.frontend.ftypes import NoneType, scalar_of_dtype
from enzyme_py.jax.derivatives import Plan, build_plan, rebatched, result_buffers
from enzyme_py.jax.manual_axes import match_varying, result_aval
from enzyme_py.jax.shapes import result_shapes
from enzyme_py.jax.targets import register_plan

__all__ = ["Op", "Signature", "bind", "call_p", "primitive"]

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
        self._items: dict[tuple[FType, ...], tuple[tuple[Item, ...], bool]] = {}
        self._jitted: Any = None
        self._plans: dict[Any, Plan] = {}

    def __repr__(self) -> str:
        return f"<enzyme_py.jax.primitive({self.label})>"

    @property
    def jitted(self) -> Any:
        """`ez.jit(f)`, bounds-checked, for the shape probes."""
        if self._jitted is None:
            from enzyme_py.api import jit

            self._jitted = jit(self.f, bounds_check=True)
        return self._jitted

    def plan(self, kind: str, sig: Signature, batch: tuple[tuple[bool, ...], ...]) -> Plan:
        """The compiled form `kind` for this signature (see `derivatives`), derived once per
        operand types (the batching changes only the handler)."""
        int_shapes = tuple(s for s, it in zip(sig.item_shapes, sig.items, strict=True)
                           if not _is_float(it))
        key = (kind, sig.types, int_shapes if kind != "primal" else ())
        got = self._plans.get(key)
        if got is None:
            got = self._plans[key] = build_plan(self.f, sig.types, kind, ((),) * len(batch),
                                                sig.item_shapes, self.bounds_check)
        return rebatched(got, kind, sig.types, sig.items, batch)

    def items(self, types: tuple[FType, ...]) -> tuple[tuple[Item, ...], bool]:
        """The result items for these operand types (front end only), and whether the
        result is a tuple."""
        got = self._items.get(types)
        if got is None:
            from enzyme_py.api import Options, build_module

            rt = build_module(self.f, types, Options(bounds_check=self.bounds_check), True)[1] \
                .return_type
            if isinstance(rt, NoneType):
                raise CallError(f"enzyme_py.jax: {self.label}() returns nothing; inside JAX "
                                "a function must return its results")
            got = self._items[types] = (result_items(rt, self.label), isinstance(rt, Tuple))
        return got

    def __call__(self, *args: Any) -> Any:
        operands, types, known = [], [], []
        for k, a in enumerate(args):
            static = isinstance(a, int | np.integer) and not isinstance(a, bool)
            x = jnp.asarray(a)
            operands.append(x)
            types.append(_operand_type(self.label, k, x))
            known.append(int(a) if static else None)
        tys = tuple(types)
        items, is_tuple = self.items(tys)
        shapes = tuple(tuple(x.shape) for x in operands)
        sig = Signature(self, tys, shapes, tuple(known), items,
                        result_shapes(self.f, self.jitted, tys, shapes, tuple(known)))
        outs = bind("primal", sig, ((),) * len(operands), operands)
        return tuple(outs) if is_tuple else outs[0]


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

    def operand_shapes(self, kind: str) -> list[tuple[int, ...]]:
        out = list(self.shapes)
        fl = [i for i, t in enumerate(self.types) if _is_float(t)]
        fo = [j for j, it in enumerate(self.items) if _is_float(it)]
        if kind in ("tangent", "hvp"):
            out += [self.shapes[i] for i in fl]
        if kind in ("vjp", "hvp"):
            out += [self.item_shapes[j] for j in fo]
        return out

    def result_shapes(self, kind: str) -> list[tuple[int, ...]]:
        fl = [i for i, t in enumerate(self.types) if _is_float(t)]
        fo = [j for j, it in enumerate(self.items) if _is_float(it)]
        if kind == "primal":
            return list(self.item_shapes)
        if kind == "tangent":
            return [self.item_shapes[j] for j in fo]
        return [self.shapes[i] for i in fl]


def _is_float(t: Any) -> bool:
    return (t.elem if isinstance(t, Array) else t).is_float


def _dtype(t: Any) -> np.dtype:
    return (t.elem if isinstance(t, Array) else t).dtype


def bind(kind: str, sig: Signature, batch: tuple[tuple[bool, ...], ...],
         operands: Sequence[Any]) -> list[Any]:
    """`call_p.bind` of one form (`batch`: one tuple per operand)."""
    return call_p.bind(*match_varying(operands), kind=kind, sig=sig, batch=tuple(batch))


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


def abstract_eval(*avals: Any, kind: str, sig: Signature,
                   batch: tuple[tuple[bool, ...], ...]) -> list[ShapedArray]:
    sizes = batch_sizes(avals, batch)
    types = result_buffers(kind, sig.types, sig.items)
    return [result_aval(sizes + tuple(s), _dtype(t), avals)
            for t, s in zip(types, sig.result_shapes(kind), strict=True)]


call_p.def_abstract_eval(abstract_eval)

_EAGER: dict[Any, Any] = {}


def _impl(*args: Any, kind: str, sig: Signature, batch: tuple) -> Any:
    key = (kind, sig, batch)
    fn = _EAGER.get(key)
    if fn is None:
        fn = _EAGER[key] = jax.jit(functools.partial(call_p.bind, kind=kind, sig=sig,
                                                     batch=batch))
    return fn(*args)


call_p.def_impl(_impl)

_TARGETS: dict[Any, str] = {}


def target(kind: str, sig: Signature, batch: tuple[tuple[bool, ...], ...]) -> str:
    """The FFI target of a form (compiled and registered on first use)."""
    int_shapes = tuple(s for s, it in zip(sig.item_shapes, sig.items, strict=True)
                       if not _is_float(it))
    key = (sig.op, sig.types, kind, batch, int_shapes if kind != "primal" else ())
    name = _TARGETS.get(key)
    if name is None:
        plan = sig.op.plan(kind, sig, batch)
        name = _TARGETS[key] = register_plan(plan, f"{sig.op.label} ({kind})")
    return name


def _devices(ctx: Any) -> int:
    axis_context = getattr(ctx.module_context, "axis_context", None)
    return int(getattr(axis_context, "num_devices", 1) or 1)


def _lower(ctx: Any, *operands: Any, kind: str, sig: Signature, batch: tuple) -> Any:
    """The custom call. Its leading batch axes that every operand has are declared to XLA
    (`num_batch_dims`, the target being batch-partitionable), so a sharded batch runs as one
    call per device on its own shard. XLA shards such a call as its first operand is
    sharded; so when the program is partitioned and the first operand has the outermost
    batch axis, operands lacking it are broadcast along it (else XLA would gather the batch
    on every device)."""
    lead = _shared_batch_axes(batch)
    if batch and batch[0] and batch[0][0] and not lead and _devices(ctx) > 1:
        return mlir.lower_fun(functools.partial(_broadcast_outer, kind=kind, sig=sig,
                                                batch=batch), multiple_results=True)(
            ctx, *operands)
    extra = {}
    if lead:
        extra["mhlo.frontend_attributes"] = mlir.ir_attribute({"num_batch_dims": str(lead)})
    return jax.ffi.ffi_lowering(target(kind, sig, batch), extra_attributes=extra)(
        ctx, *operands)


def _shared_batch_axes(batch: tuple[tuple[bool, ...], ...]) -> int:
    """How many leading batch axes every operand has."""
    k = len(batch[0]) if batch else 0
    lead = 0
    while lead < k and all(mask[lead] for mask in batch):
        lead += 1
    return lead


def _broadcast_outer(*operands: Any, kind: str, sig: Signature, batch: tuple) -> list[Any]:
    size = batch_sizes([jax.typeof(x) for x in operands], batch)[0]
    moved = [x if mask[0] else jnp.broadcast_to(x, (size, *x.shape))
             for x, mask in zip(operands, batch, strict=True)]
    return call_p.bind(*moved, kind=kind, sig=sig,
                       batch=tuple((True, *mask[1:]) for mask in batch))


mlir.register_lowering(call_p, _lower, platform="cpu")


def primitive(f: Callable, *, bounds_check: bool = True, name: str | None = None) -> Op:
    """`f` (a function of the numeric Python subset) as a JAX primitive.

    `op(*args)` takes JAX arrays and numbers and returns what `f` returns (an array, a number
    as a 0-d array, or a tuple of them). Under `jax.jit` it is one XLA custom call into native
    code enzyme_py compiled; `jax.grad`/`vjp`/`jacrev` use enzyme_py's reverse mode,
    `jax.jvp`/`jacfwd`/`linearize` its forward mode, `jax.hessian` forward over reverse, and
    `jax.vmap` runs the batch in one call. A failed check (an index out of bounds) raises
    `JaxRuntimeError` naming the source line. `f` must not write into its arguments.

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
