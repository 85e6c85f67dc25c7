"""Varying manual mesh axes (`shard_map(check_vma=True)`) through `enzyme_py_call`.

Inside `shard_map` with `check_vma=True`, JAX types each value with the manual mesh axes it
varies over. Like JAX's own primitives, `enzyme_py_call` makes its operands agree first (an
operand lacking some of the others' axes is cast to varying with `jax.lax.pcast`, whose
transpose is the `psum` a replicated operand's cotangent needs) and gives every result those
axes. Outside `shard_map` (or with `check_vma=False`) no value varies and nothing changes.

Invariant: the results of a bind vary over exactly the union of its operands' axes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
from jax.core import ShapedArray
from jax.sharding import ManualAxisType, NamedSharding, PartitionSpec, get_abstract_mesh

__all__ = ["match_varying", "result_aval"]


def _varying(aval: Any) -> frozenset:
    mat = getattr(aval, "mat", None)
    return frozenset(mat.varying) if mat is not None else frozenset()


def match_varying(operands: Sequence[Any]) -> list[Any]:
    """The operands, each cast to vary over every axis some operand varies over."""
    sets = [_varying(jax.typeof(x)) for x in operands]
    union = frozenset().union(*sets)
    if not union:
        return list(operands)
    order = [a for a in get_abstract_mesh().axis_names if a in union]
    return [x if s == union else jax.lax.pcast(x, tuple(a for a in order if a not in s),
                                               to="varying")
            for x, s in zip(operands, sets, strict=True)]


def result_aval(shape: tuple[int, ...], dtype: Any, operands: Sequence[Any]) -> ShapedArray:
    """A result's abstract value: varying over the operands' manual axes."""
    union = frozenset().union(*(_varying(a) for a in operands))
    if not union:
        return ShapedArray(shape, dtype)
    sharding = NamedSharding(get_abstract_mesh(), PartitionSpec())
    return ShapedArray(shape, dtype, sharding=sharding,
                       manual_axis_type=ManualAxisType(varying=union))
