"""JVP, transpose and batching rules of `enzyme_py_call` (see `primitive` and `derivatives`).

As Enzyme-JAX structures it, the JVP of the primal binds the *tangent* form, which is linear in
its tangent operands; its transpose binds the *vjp* form (reverse mode), so `jax.grad`, `vjp`,
`jacrev` and `linearize` run enzyme_py's gradient, and `jvp`/`jacfwd` its forward mode. The
vjp form is linear in its cotangents (its transpose is the tangent form) and its JVP with
respect to the primal operands is the *hvp* form (forward over reverse): `jax.hessian`
(`jacfwd(jacrev)`) and `jacfwd(grad)` work; so does `jacrev(grad)`, as hvp is symmetric in its
tangent operand. Forward over forward (`jacfwd(jacfwd)`, `jvp` of `jvp`, and the transpose of
hvp in its cotangents, `jacrev(jacfwd)`) is built from the hvp form (`second_order`). Third
derivatives (the JVP of the hvp form in its primal operands) raise `NotImplementedError`.

Batching: `jax.vmap` moves each batched operand's axis to the front and adds one batch axis in
front of the others; the handler loops over the batch itself and reads an operand that lacks
an axis with stride 0, so an unbatched operand is never broadcast in memory. Results carry
every batch axis, except the cotangents of the vjp and hvp forms (`out_batch`): the cotangent
of an operand that lacks an axis is summed over it by the handler as it loops, so the
gradient of a vmapped loss with respect to shared weights never holds one copy per example.

Activity: each derivative form differentiates only the float operands it needs (`active`):
the JVP of the primal those whose tangent is not a symbolic zero (data closed over by a loss
is a constant, not differentiated), a transpose those whose cotangent is asked for; the
others are passed as constants. So `jax.grad` of a loss over parameters and data computes
no cotangent for the data.

Invariants: symbolic zero tangents are instantiated only for operands a form differentiates
(all zero gives zero tangents without a call); integer operands and results carry no tangent
(float0 zeros).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.interpreters import ad, batching

from enzyme_py.jax.derivatives import Active, Masks
from enzyme_py.jax.op import Signature, abstract_eval, batch_sizes, bind, call_p
from enzyme_py.jax.second_order import second_tangent

__all__: list[str] = []

Batch = tuple[tuple[bool, ...], ...]


def _set(sig: Signature, kind: str, want: list[int]) -> list[int]:
    """The float operands form `kind` differentiates when `want` are asked for."""
    return sig.floats(sig.canonical(kind, want))[0]


def _zero(x: Any) -> bool:
    return type(x) is ad.Zero


def _inst(x: Any) -> Any:
    return ad.instantiate_zeros(x)


def _out_zeros(kind: str, sig: Signature, batch: Batch, primals: list[Any],
               active: Active, out_batch: Masks) -> list[Any]:
    avals = abstract_eval(*[jax.typeof(p) for p in primals], kind=kind, sig=sig, batch=batch,
                          active=active, out_batch=out_batch)
    return [ad.Zero(a.to_tangent_aval()) for a in avals]


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    return [x + y for x, y in zip(a, b, strict=True)]


def _all_batched(batch: Batch, count: int) -> Batch:
    k = len(batch[0]) if batch else 0
    return ((True,) * k,) * count


def _reduce(x: Any, mask: tuple[bool, ...]) -> Any:
    """A fully batched cotangent summed over the batch axes its operand lacks."""
    axes = tuple(a for a, present in enumerate(mask) if not present)
    return jnp.sum(x, axis=axes) if axes else x


def _reduce_to(x: Any, have: tuple[bool, ...], want: tuple[bool, ...]) -> Any:
    """`x`, batched on the axes `have`, summed over those `want` lacks."""
    axes = tuple(sum(have[:a]) for a in range(len(have)) if have[a] and not want[a])
    return jnp.sum(x, axis=axes) if axes else x


def _kept(sig: Signature, act: list[int], want: dict[int, tuple[bool, ...]], k: int) -> Masks:
    """Per result of a vjp or hvp form over `act`: the batch axes to keep (`want[i]`, or all:
    a written array's cotangent is computed in place, with every axis)."""
    return tuple(want[i] if i in want and i not in sig.written else (True,) * k for i in act)


# --- JVP --------------------------------------------------------------------------------------


def _jvp(primals: list[Any], tangents: list[Any], *, kind: str, sig: Signature, batch: Batch,
         active: Active, out_batch: Masks) -> tuple[list[Any], list[Any]]:
    n = len(sig.types)
    fl, fo = sig.floats(active)
    ops, op_batch = list(primals[:n]), batch[:n]
    outs = bind(kind, sig, batch, primals, active, out_batch)
    moving = [i for i in sig.floats()[0] if not _zero(tangents[i])]
    zeros = _out_zeros(kind, sig, batch, primals, active, out_batch)
    k = len(batch[0]) if batch else 0
    kept = out_batch or ((True,) * k,) * len(zeros)
    if kind == "primal":
        if not moving:
            return outs, zeros
        act = _set(sig, "tangent", moving)
        touts = bind("tangent", sig, (*op_batch, *(batch[i] for i in act)),
                     [*ops, *(_inst(tangents[i]) for i in act)], act)
        it = iter(touts)
        return outs, [next(it) if j in fo else zeros[j] for j in range(len(sig.items))]
    if moving and kind == "hvp":
        raise NotImplementedError(
            f"enzyme_py.jax: {sig.op.label}: third derivatives are not implemented (the "
            "derivative of the hvp form, forward over reverse, with respect to its primal "
            "operands, e.g. jacfwd(jax.hessian(f)) or grad of a Hessian-vector product); "
            "second derivatives in any order of jacfwd/jacrev/grad/jvp work")
    rest, rest_t, rest_b = primals[n:], tangents[n:], batch[n:]
    result = None
    m = len(fl)
    if kind == "tangent":  # linear in the tangents; forward over forward for the operands
        if not all(map(_zero, rest_t)):
            result = bind("tangent", sig, batch, [*ops, *map(_inst, rest_t)], active)
        if moving:
            sizes = batch_sizes([jax.typeof(p) for p in primals], batch)
            result = _add(result, second_tangent(
                sig, sizes, op_batch, ops,
                {i: (rest[k], rest_b[k]) for k, i in enumerate(fl)},
                {i: (tangents[i], batch[i]) for i in moving}))
    elif kind == "vjp":  # linear in the cotangents; hvp for the primal operands
        if moving:
            act = _set(sig, "hvp", sorted({*fl, *moving}))
            hv = bind("hvp", sig, (*op_batch, *(batch[i] for i in act), *rest_b),
                      [*ops, *(_inst(tangents[i]) for i in act), *rest], act,
                      _kept(sig, act, {i: kept[fl.index(i)] for i in fl}, k))
            result = [hv[act.index(i)] for i in fl]
        if not all(map(_zero, rest_t)):
            result = _add(result, bind("vjp", sig, batch, [*ops, *map(_inst, rest_t)], active,
                                       out_batch))
    elif kind == "hvp":  # bilinear in (tangents, cotangents)
        dx, ct = rest[:m], rest[m:]
        ddx, dct = rest_t[:m], rest_t[m:]
        if not all(map(_zero, ddx)):
            result = bind("hvp", sig, batch, [*ops, *map(_inst, ddx), *ct], active, out_batch)
        if not all(map(_zero, dct)):
            result = _add(result, bind("hvp", sig, batch, [*ops, *dx, *map(_inst, dct)],
                                       active, out_batch))
    return outs, result if result is not None else zeros


ad.primitive_jvps[call_p] = _jvp


# --- transpose --------------------------------------------------------------------------------


def _transpose(cts: list[Any], *args: Any, kind: str, sig: Signature, batch: Batch,
               active: Active, out_batch: Masks) -> list[Any]:
    n = len(sig.types)
    fl, _ = sig.floats(active)
    ops, op_batch = list(args[:n]), batch[:n]
    if any(ad.is_undefined_primal(x) for x in ops) or kind == "primal":
        raise NotImplementedError(f"enzyme_py.jax: {sig.op.label}: the {kind} form is not "
                                  "linear in its primal operands")
    rest, rest_b = list(args[n:]), batch[n:]
    res: list[Any] = [None] * len(args)
    if all(map(_zero, cts)):
        return res
    cts = [_inst(c) for c in cts]
    full = _all_batched(batch, len(cts))
    m_ = len(fl)
    k_ = len(batch[0]) if batch else 0
    if kind == "tangent":  # tangents -> cotangents of the float operands asked for
        asked = [i for k, i in enumerate(fl) if ad.is_undefined_primal(rest[k])]
        act = _set(sig, "vjp", asked)
        keep = _kept(sig, act, {i: rest_b[fl.index(i)] for i in asked}, k_)
        grads = bind("vjp", sig, (*op_batch, *full), [*ops, *cts], act, keep)
        for i, g, have in zip(act, grads, keep, strict=True):
            if i in asked:
                k = fl.index(i)
                res[n + k] = _reduce_to(g, have, rest_b[k])
    elif kind == "vjp":  # cotangents -> tangents of the float results
        tans = bind("tangent", sig, (*op_batch, *full), [*ops, *cts], active)
        for k, t in enumerate(tans):
            if ad.is_undefined_primal(rest[k]):
                res[n + k] = _reduce(t, rest_b[k])
    elif kind == "hvp":
        dx, ct = rest[:m_], rest[m_:]
        if any(ad.is_undefined_primal(c) for c in ct):  # D^2 f[dx, .] contracted with cts
            if any(ad.is_undefined_primal(d) for d in dx):
                raise NotImplementedError(f"enzyme_py.jax: {sig.op.label}: the hvp form is "
                                          "not linear in its tangents and cotangents at once")
            sizes = batch_sizes([jax.typeof(c) for c in cts], full)
            out = second_tangent(sig, sizes, op_batch, ops,
                                 {i: (dx[k], rest_b[k]) for k, i in enumerate(fl)},
                                 {i: (cts[k], full[k]) for k, i in enumerate(fl)})
            for k, g in enumerate(out):
                if ad.is_undefined_primal(ct[k]):
                    res[n + m_ + k] = _reduce(g, rest_b[m_ + k])
            return res
        keep = _kept(sig, fl, {i: rest_b[k] for k, i in enumerate(fl)
                                if ad.is_undefined_primal(dx[k])}, k_)
        out = bind("hvp", sig, (*op_batch, *full, *rest_b[m_:]), [*ops, *cts, *ct], active,
                   keep)
        for k, (h, have) in enumerate(zip(out, keep, strict=True)):
            if ad.is_undefined_primal(dx[k]):
                res[n + k] = _reduce_to(h, have, rest_b[k])
    return res


ad.primitive_transposes[call_p] = _transpose


# --- batching ---------------------------------------------------------------------------------


def _batch(args: list[Any], dims: list[int | None], *, kind: str, sig: Signature,
           batch: Batch, active: Active, out_batch: Masks) -> tuple[list[Any], list[int]]:
    moved = [x if d is None else jnp.moveaxis(x, d, 0) for x, d in zip(args, dims, strict=True)]
    new = tuple((d is not None, *mask) for d, mask in zip(dims, batch, strict=True))
    kept = None if out_batch is None else tuple((True, *m) for m in out_batch)
    outs = bind(kind, sig, new, moved, active, kept)
    return outs, [0] * len(outs)


batching.primitive_batchers[call_p] = _batch
