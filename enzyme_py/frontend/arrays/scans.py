"""Scans: np.cumsum and np.cumprod, as functions and methods, with `axis=` (an int; None, the
default, scans the array flattened in row-major order into a 1-D result).

The operand is read once, in row-major order, whichever axis is scanned, and each element
of the fresh result is written exactly once: `out[..., i, ...] = x[..., i, ...] (+|*)
out[..., i - 1, ...]`, reading only result elements written before (never overwriting a
value, so the adjoint sweep needs no saved copies).

Invariants: elements are accumulated in order along the axis (no reassociation: a cumsum's
last element equals a sequential sum bit for bit); integer and boolean operands scan in
int64, as NumPy does on 64-bit platforms; floats keep their type.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np

from enzyme_py.frontend.arrays import lazy as L
from enzyme_py.frontend.arrays import loops
from enzyme_py.frontend.arrays.reductions import single_axis
from enzyme_py.frontend.arrays.registry import EmitCall, TypeCall, array_function
from enzyme_py.frontend.ftypes import I64, Array, FType, Scalar
from enzyme_py.frontend.values import SVal, const, convert
from enzyme_py.ir import types as T
from enzyme_py.ir.values import ConstantInt, Value


def _elem(t: Scalar) -> Scalar:
    return t if t.is_float else I64


def _type_rule(name: str) -> Any:
    def rule(call: TypeCall) -> FType | None:
        call.only("axis")
        if not call.args or len(call.args) > 2:
            raise call.error(f"np.{name} takes an array and an axis",
                             f"np.{name}(x), np.{name}(x, axis=0)")
        t = call.args[0]
        if t is None:
            return None
        if not isinstance(t, Array):
            raise call.error(f"np.{name} needs an array, got {t}")
        axis = single_axis(call, t.ndim, "a scan takes")
        return Array(_elem(t.elem), 1 if axis is None else t.ndim)

    return rule


def scan(c: Any, kind: str, v: Any, axis: int | None, node: ast.AST) -> Any:
    """The running sum ("sum") or product of `v` along `axis` (None: flattened)."""
    b = c.b
    src = L.as_lazy(c, v)
    elem = _elem(src.type.elem)
    zero = ConstantInt(T.I64, 0)

    def combine(acc: Value, x: Value) -> Value:
        op = ast.Add() if kind == "sum" else ast.Mult()
        return c.binop(op, SVal(elem, acc), SVal(elem, x), node).v

    def element(idx: list[Value]) -> Value:
        return convert(c.b, SVal(src.type.elem, src.element(idx)), elem).v

    if axis is None:
        out = L.fresh(c, Array(elem, 1), [L.count_of(c, src.dims)], node)
        acc = c.alloca_at.alloca(elem.ir, name=f"cum{kind}")
        at = c.alloca_at.alloca(T.I64, name=f"cum{kind}.at")
        b.store(const(elem, 0 if kind == "sum" else 1).v, acc)
        b.store(zero, at)

        def flat(idx: list[Value]) -> None:
            k = c.b.load(T.I64, at)
            total = combine(c.b.load(elem.ir, acc), element(idx))
            c.b.store(total, acc)
            c.b.store(total, L.element_address(c, out, [k]))
            c.b.store(c.b.add(k, ConstantInt(T.I64, 1), flags=("nsw",)), at)

        loops.nest(c, src.dims, flat)
        return out
    out = L.fresh(c, Array(elem, len(src.dims)), src.dims, node)

    def along(idx: list[Value]) -> None:
        i = idx[axis]
        first = c.b.icmp("eq", i, zero)
        prev_i = c.b.select(first, zero, c.b.sub(i, ConstantInt(T.I64, 1)))
        prev_idx = [prev_i if k == axis else j for k, j in enumerate(idx)]
        x = element(idx)
        prev = c.b.load(elem.ir, L.element_address(c, out, prev_idx))
        # at i == 0 the load reads the element about to be written; the select drops it
        c.b.store(c.b.select(first, x, combine(prev, x)), L.element_address(c, out, idx))

    loops.nest(c, src.dims, along)
    return out


def _emitter(kind: str) -> Any:
    def emit(call: EmitCall) -> Any:
        v = call.args[0]
        return scan(call.c, kind, v, single_axis(call, v.type.ndim, "a scan takes"), call.node)

    return emit


for _kind in ("sum", "prod"):
    array_function(getattr(np, f"cum{_kind}"), type_rule=_type_rule(f"cum{_kind}"),
                   method=f"cum{_kind}")(_emitter(_kind))
