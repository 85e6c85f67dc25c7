"""Forward over forward, `D^2 f(x)[dx, u]`, from the hvp form (forward over reverse).

The tangent form computes `J(x) dx`; its derivative with respect to `x` in the direction `u`
is the second derivative `D^2 f(x)[dx, u]`, one value per element of each float result. The hvp
form gives `sum_k ct_k H_k dx` in the operands' space, so with `ct = e_k` (the k-th element of
the results, a one-hot cotangent) `<u, hvp(x, dx, e_k)> = D^2 f_k(x)[dx, u]`. All `e_k` run as
one batched hvp call (`jax.vmap` over the basis; the handler loops over it), then a contraction
with `u` in jax.numpy. The same quantity is the transpose of the hvp form in its cotangents.

Cost: one hvp per float result element (a scalar result: one). Exact, never approximate.
Invariants: results are fully batched (`*B, *item_shape`, `B` every batch axis), in the order
of the float result items; the hvp call differentiates only the operands some direction
moves; a missing `u` direction is zero and never instantiated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from enzyme_py.jax.derivatives import dtype_name
from enzyme_py.jax.op import Signature, bind

__all__ = ["second_tangent"]

Mask = tuple[bool, ...]


def _expand(u: Any, mask: Mask) -> Any:
    """`u` (with the batch axes `mask` says) with size-1 axes for the ones it lacks."""
    for a, present in enumerate(mask):
        if not present:
            u = jnp.expand_dims(u, a)
    return u


def second_tangent(sig: Signature, sizes: tuple[int, ...], op_batch: Sequence[Mask],
                   ops: Sequence[Any], dx: dict[int, tuple[Any, Mask]],
                   u: dict[int, tuple[Any, Mask]]) -> list[Any]:
    """`D^2 f(ops)[dx, u]` per float result item; `dx` and `u` map float operands to a
    direction and its batch axes (a missing one is zero); `sizes`: the batch axes' sizes."""
    fl = sig.floats(sig.canonical("hvp", sorted({*dx, *u})))[0]
    fo = sig.floats()[1]
    k = len(sizes)
    none_mask = (False,) * k
    tangents, masks = [], []
    for i in fl:
        value, mask = dx.get(i, (None, none_mask))
        if value is None:
            value = jnp.zeros(sig.shapes[i], dtype=dtype_name(sig.types[i]))
        tangents.append(value)
        masks.append(mask)
    shapes = [sig.item_shapes[j] for j in fo]
    counts = [math.prod(s) for s in shapes]
    total = sum(counts)
    basis, off = [], 0
    for j, shape, n in zip(fo, shapes, counts, strict=True):
        eye = jnp.eye(total, dtype=dtype_name(sig.items[j]))
        basis.append(eye[:, off:off + n].reshape((total, *shape)))
        off += n
    none = (none_mask,) * len(basis)

    def hvp(*cts: Any) -> list[Any]:
        return bind("hvp", sig, (*op_batch, *masks, *none), [*ops, *tangents, *cts], tuple(fl))

    hs = jax.vmap(hvp)(*basis)  # per float operand of fl: (total, *B, *shape_i)
    r = None
    for h, i in zip(hs, fl, strict=True):
        if i not in u:
            continue
        v, mask = u[i]
        rank = len(sig.shapes[i])
        term = jnp.sum(h * _expand(v, mask)[None], axis=tuple(range(1 + k, 1 + k + rank)))
        r = term if r is None else r + term
    if r is None:
        r = jnp.zeros((total, *sizes), dtype=hs[0].dtype)
    out, off = [], 0
    for j, shape, n in zip(fo, shapes, counts, strict=True):
        part = r[off:off + n].reshape((*shape, *sizes))
        out.append(jnp.moveaxis(part, tuple(range(len(shape), len(shape) + k)),
                                tuple(range(k))).astype(dtype_name(sig.items[j])))
        off += n
    return out
