"""JVP, transpose and batching rules of `enzyme_py_call` (see `primitive` and `derivatives`).

As Enzyme-JAX structures it, the JVP of the primal binds the *tangent* form, which is linear in
its tangent operands; its transpose binds the *vjp* form (reverse mode), so `jax.grad`, `vjp`,
`jacrev` and `linearize` run enzyme_py's gradient, and `jvp`/`jacfwd` its forward mode. The
vjp form is linear in its cotangents (its transpose is the tangent form) and its JVP with
respect to the primal operands is the *hvp* form (forward over reverse): `jax.hessian`
(`jacfwd(jacrev)`) and `jacfwd(grad)` work; so does `jacrev(grad)`, as hvp is symmetric in its
tangent operand. Forward over forward (`jacfwd(jacfwd)`, `jvp` of `jvp`) and third derivatives
raise `NotImplementedError`.

Batching: `jax.vmap` moves each batched operand's axis to the front and adds one batch axis in
front of the others; the handler loops over the batch itself and reads an operand that lacks
an axis with stride 0, so an unbatched operand is never broadcast in memory. Results carry
every batch axis; a cotangent for an operand that lacks some is summed over them.

Invariants: symbolic zero tangents of float operands are instantiated only when some tangent is
not zero (all zero gives zero tangents without a call); integer operands and results carry no
tangent (float0 zeros).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax.interpreters import ad, batching

from enzyme_py.jax.op import Signature, abstract_eval, bind, call_p

__all__: list[str] = []

Batch = tuple[tuple[bool, ...], ...]


def _floats(sig: Signature) -> tuple[list[int], list[int]]:
    return ([i for i, t in enumerate(sig.types) if _is_float(t)],
            [j for j, it in enumerate(sig.items) if _is_float(it)])


def _is_float(t: Any) -> bool:
    return (getattr(t, "elem", t)).is_float


def _zero(x: Any) -> bool:
    return type(x) is ad.Zero


def _inst(x: Any) -> Any:
    return ad.instantiate_zeros(x)


def _out_zeros(kind: str, sig: Signature, batch: Batch, primals: list[Any]) -> list[Any]:
    avals = abstract_eval(*[jax.typeof(p) for p in primals], kind=kind, sig=sig, batch=batch)
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


# --- JVP --------------------------------------------------------------------------------------


def _jvp(primals: list[Any], tangents: list[Any], *, kind: str, sig: Signature,
         batch: Batch) -> tuple[list[Any], list[Any]]:
    n = len(sig.types)
    fl, fo = _floats(sig)
    ops, op_batch = list(primals[:n]), batch[:n]
    outs = bind(kind, sig, batch, primals)
    d_ops = [tangents[i] for i in fl]
    if kind == "primal":
        if all(map(_zero, d_ops)):
            return outs, _out_zeros(kind, sig, batch, primals)
        touts = bind("tangent", sig, (*op_batch, *(batch[i] for i in fl)),
                     [*ops, *map(_inst, d_ops)])
        it = iter(touts)
        zeros = _out_zeros(kind, sig, batch, primals)
        return outs, [next(it) if j in fo else zeros[j] for j in range(len(sig.items))]
    if not all(map(_zero, d_ops)) and kind != "vjp":
        raise NotImplementedError(
            f"enzyme_py.jax: {sig.op.label}: the derivative of its {kind} form with respect to "
            "its primal operands (forward over forward, e.g. jacfwd(jacfwd), or a third "
            "derivative) is not implemented; use jax.hessian / jacfwd(jacrev) for second "
            "derivatives")
    rest, rest_t, rest_b = primals[n:], tangents[n:], batch[n:]
    result = None
    if kind == "tangent":  # linear in the tangents
        if not all(map(_zero, rest_t)):
            result = bind("tangent", sig, batch, [*ops, *map(_inst, rest_t)])
    elif kind == "vjp":  # linear in the cotangents; hvp for the primal operands
        if not all(map(_zero, d_ops)):
            result = bind("hvp", sig, (*op_batch, *(batch[i] for i in fl), *rest_b),
                          [*ops, *map(_inst, d_ops), *rest])
        if not all(map(_zero, rest_t)):
            result = _add(result, bind("vjp", sig, batch, [*ops, *map(_inst, rest_t)]))
    elif kind == "hvp":  # bilinear in (tangents, cotangents)
        m = len(fl)
        dx, ct = rest[:m], rest[m:]
        ddx, dct = rest_t[:m], rest_t[m:]
        if not all(map(_zero, ddx)):
            result = bind("hvp", sig, batch, [*ops, *map(_inst, ddx), *ct])
        if not all(map(_zero, dct)):
            result = _add(result, bind("hvp", sig, batch, [*ops, *dx, *map(_inst, dct)]))
    return outs, result if result is not None else _out_zeros(kind, sig, batch, primals)


ad.primitive_jvps[call_p] = _jvp


# --- transpose --------------------------------------------------------------------------------


def _transpose(cts: list[Any], *args: Any, kind: str, sig: Signature,
               batch: Batch) -> list[Any]:
    n = len(sig.types)
    fl, _ = _floats(sig)
    ops, op_batch = list(args[:n]), batch[:n]
    if any(ad.is_undefined_primal(x) for x in ops) or kind == "primal":
        raise NotImplementedError(f"enzyme_py.jax: {sig.op.label}: the {kind} form is not "
                                  "linear in its primal operands")
    rest, rest_b = list(args[n:]), batch[n:]
    res: list[Any] = [None] * len(args)
    if all(map(_zero, cts)):
        return res
    cts = [_inst(c) for c in cts]
    if kind == "tangent":  # tangents -> cotangents of the float operands
        grads = bind("vjp", sig, (*op_batch, *_all_batched(batch, len(cts))), [*ops, *cts])
        for m, g in enumerate(grads):
            if ad.is_undefined_primal(rest[m]):
                res[n + m] = _reduce(g, rest_b[m])
    elif kind == "vjp":  # cotangents -> tangents of the float results
        tans = bind("tangent", sig, (*op_batch, *_all_batched(batch, len(cts))), [*ops, *cts])
        for m, t in enumerate(tans):
            if ad.is_undefined_primal(rest[m]):
                res[n + m] = _reduce(t, rest_b[m])
    elif kind == "hvp":
        m_ = len(fl)
        dx, ct = rest[:m_], rest[m_:]
        if any(ad.is_undefined_primal(c) for c in ct):
            raise NotImplementedError(f"enzyme_py.jax: {sig.op.label}: transposing the hvp "
                                      "form in its cotangents needs forward over forward")
        out = bind("hvp", sig, (*op_batch, *_all_batched(batch, len(cts)), *rest_b[m_:]),
                   [*ops, *cts, *ct])
        for m, h in enumerate(out):
            if ad.is_undefined_primal(dx[m]):
                res[n + m] = _reduce(h, rest_b[m])
    return res


ad.primitive_transposes[call_p] = _transpose


# --- batching ---------------------------------------------------------------------------------


def _batch(args: list[Any], dims: list[int | None], *, kind: str, sig: Signature,
           batch: Batch) -> tuple[list[Any], list[int]]:
    moved = [x if d is None else jnp.moveaxis(x, d, 0) for x, d in zip(args, dims, strict=True)]
    new = tuple((d is not None, *mask) for d, mask in zip(dims, batch, strict=True))
    outs = bind(kind, sig, new, moved)
    return outs, [0] * len(outs)


batching.primitive_batchers[call_p] = _batch
