"""Lowering `enzyme_py_call` to an XLA FFI custom call, partitionable over a sharded batch.

A form's target (`target`) is compiled and registered once per (function, types, kind,
batching, operand order, widened operands). The custom call declares its leading batch axes
that every operand has (`num_batch_dims`; targets are batch-partitionable), so under a sharded
`jit` each device runs the call on its own shard. XLA's batch partitioner (jaxlib's
`custom_call_batch_partitioner.cc`) shards *every* operand on those axes, and it

- takes an operand that has no other axis than the batch axes as replicated;
- uses the first operand's sharding when the operands' shardings disagree.

So when the program is partitioned (more than one device, not inside a `shard_map` manual on
every axis): operands lacking the outermost batch axis are broadcast along it (each device
materializes only its shard of the broadcast); an operand that is only batch axes gets a
trailing axis of extent 1 (the handler reads it as before: its slice is one element); and the
largest operand that had the outermost axis of its own (the data, most likely sharded; never
a broadcast) goes first in the call, wherever it is among `f`'s arguments (the handler reads
each operand from its frame position, `HandlerSpec.arg_slots`). Without that XLA would gather
the batch on every device.

Results summed over batch axes (`out_batch`) are computed with every axis when partitioned
(the partitioner wants every result batched) and summed after the call.

Invariant: the lowering never changes what the callee sees; only the custom call's operand
list (order, broadcast, unit axes) and so the handler's reading of it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import Any

import jax
import jax.numpy as jnp
from jax.interpreters import mlir

from enzyme_py.jax.derivatives import Active, Masks, aliases
from enzyme_py.jax.op import Signature, batch_sizes, call_p, is_float_item
from enzyme_py.jax.targets import register_plan

__all__ = ["target"]

Batch = tuple[tuple[bool, ...], ...]
_TARGETS: dict[Any, str] = {}


def target(kind: str, sig: Signature, batch: Batch, active: Active = None,
           out_batch: Masks = None, order: tuple[int, ...] = (),
           unit: tuple[int, ...] = ()) -> str:
    """The FFI target of a form (compiled and registered on first use); `order`: the custom
    call's operands as indices of the form's (empty: in order); `unit`: the operands given a
    trailing axis of extent 1."""
    int_shapes = tuple(s for s, it in zip(sig.item_shapes, sig.items, strict=True)
                       if not is_float_item(it))
    key = (sig.op, sig.types, kind, batch, int_shapes if kind != "primal" else (), active,
           out_batch, order, unit)
    name = _TARGETS.get(key)
    if name is None:
        plan = sig.op.plan(kind, sig, batch, active, out_batch)
        if order:
            plan = replace(plan, arg_slots=tuple(order.index(k) for k in range(len(order))))
        if unit:
            args = list(plan.args)
            for i in unit:
                args[i] = replace(args[i], rank=args[i].rank + 1)
            plan = replace(plan, args=tuple(args))
        name = _TARGETS[key] = register_plan(plan, f"{sig.op.label} ({kind})")
    return name


def _devices(ctx: Any) -> int:
    """How many devices XLA may partition this call over (1 inside a `shard_map` manual
    on every mesh axis: each device runs its own call on what it holds)."""
    axis_context = getattr(ctx.module_context, "axis_context", None)
    mesh = getattr(axis_context, "mesh", None)
    if mesh is not None:
        manual = frozenset(getattr(axis_context, "manual_axes", ()))
        return math.prod(n for a, n in mesh.shape.items() if a not in manual)
    return int(getattr(axis_context, "num_devices", 1) or 1)


def _shared_batch_axes(batch: Batch) -> int:
    """How many leading batch axes every operand has."""
    k = len(batch[0]) if batch else 0
    lead = 0
    while lead < k and all(mask[lead] for mask in batch):
        lead += 1
    return lead


def _prepare(*operands: Any, batch: Batch, shapes: tuple[tuple[int, ...], ...]) -> list[Any]:
    """Each operand broadcast along the outermost batch axis if it lacks it, then reshaped
    to `shapes` (a trailing unit axis, or nothing)."""
    out = []
    for x, mask, shape in zip(operands, batch, shapes, strict=True):
        y = x if mask[0] else jnp.broadcast_to(x, (shape[0], *x.shape))
        out.append(y.reshape(shape) if y.shape != shape else y)
    return out


def _full(*operands: Any, batch: Batch, shapes: tuple[tuple[int, ...] | None, ...]
          ) -> list[Any]:
    """Each operand with a shape in `shapes` broadcast to it, its missing batch axes
    inserted first; the others as they are."""
    out = []
    for x, mask, shape in zip(operands, batch, shapes, strict=True):
        if shape is not None:
            for a, present in enumerate(mask):
                if not present:
                    x = jnp.expand_dims(x, a)
            x = jnp.broadcast_to(x, shape)
        out.append(x)
    return out


def _sum_to(*results: Any, out_batch: Masks) -> list[Any]:
    """Fully batched results summed over the batch axes `out_batch` drops."""
    assert out_batch is not None
    return [jnp.sum(r, axis=tuple(a for a, keep in enumerate(m) if not keep)) if not all(m)
            else r for r, m in zip(results, out_batch, strict=True)]


def _lower(ctx: Any, *operands: Any, kind: str, sig: Signature, batch: Batch,
           active: Active, out_batch: Masks) -> Any:
    """The custom call (see the module docstring)."""
    if out_batch is not None and _devices(ctx) > 1:
        # the batch partitioner wants every result batched: sum after the call instead
        sizes = batch_sizes(ctx.avals_in, batch)
        wide = [a.update(shape=(*sizes, *a.shape[sum(m):]))
                for a, m in zip(ctx.avals_out, out_batch, strict=True)]
        full = _lower(ctx.replace(avals_out=wide), *operands, kind=kind, sig=sig,
                      batch=batch, active=active, out_batch=None)
        return mlir.lower_fun(functools.partial(_sum_to, out_batch=out_batch),
                              multiple_results=True)(
            ctx.replace(avals_in=wide), *full)
    avals = list(ctx.avals_in)
    order: tuple[int, ...] = ()
    unit: tuple[int, ...] = ()
    pairs = aliases(kind, sig.types, sig.items, sig.written, active)
    if pairs and batch and any(not all(batch[i]) for i, _ in pairs):
        # an operand computed in place must have the shape of its result: every batch axis
        sizes = batch_sizes(avals, batch)
        k = len(sizes)
        grow = {o for o, _ in pairs if not all(batch[o])}
        shapes = tuple((*sizes, *a.shape[sum(batch[i]):]) if i in grow else None
                       for i, a in enumerate(avals))
        wide = [a if sh is None else a.update(shape=sh)
                for a, sh in zip(avals, shapes, strict=True)]
        operands = tuple(mlir.lower_fun(functools.partial(_full, batch=batch, shapes=shapes),
                                        multiple_results=True)(
            ctx.replace(avals_out=wide), *operands))
        avals = wide
        batch = tuple((True,) * k if i in grow else mask for i, mask in enumerate(batch))
    if batch and batch[0] and _devices(ctx) > 1:
        own = [i for i, mask in enumerate(batch) if mask[0]]
        first = max(own, key=lambda i: (math.prod(avals[i].shape), -i))
        if first != 0:
            order = (first, *(i for i in range(len(batch)) if i != first))
        size = batch_sizes(avals, batch)[0]
        given, batch = batch, tuple((True, *mask[1:]) for mask in batch)
        lead = _shared_batch_axes(batch)
        shapes = [tuple(a.shape) if mask[0] else (size, *a.shape)
                  for a, mask in zip(avals, given, strict=True)]
        unit = tuple(i for i, s in enumerate(shapes) if len(s) == lead)
        shapes = [(*s, 1) if i in unit else s for i, s in enumerate(shapes)]
        if any(tuple(a.shape) != s for a, s in zip(avals, shapes, strict=True)):
            wide = [a.update(shape=s) for a, s in zip(avals, shapes, strict=True)]
            operands = tuple(mlir.lower_fun(
                functools.partial(_prepare, batch=given, shapes=tuple(shapes)),
                multiple_results=True)(ctx.replace(avals_out=wide), *operands))
            avals = wide
    lead = _shared_batch_axes(batch)
    extra = {}
    if lead:
        extra["mhlo.frontend_attributes"] = mlir.ir_attribute({"num_batch_dims": str(lead)})
    perm = order or tuple(range(len(operands)))
    in_place = {perm.index(o): r for o, r in pairs}
    return jax.ffi.ffi_lowering(target(kind, sig, batch, active, out_batch, order, unit),
                                extra_attributes=extra,
                                operand_output_aliases=in_place or None)(
        ctx.replace(avals_in=[avals[i] for i in perm]), *[operands[i] for i in perm])


mlir.register_lowering(call_p, _lower, platform="cpu")
