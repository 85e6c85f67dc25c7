"""The four compiled forms of a Python function inside JAX, and the handler plan of each.

Every form calls `@<f>.into`, the output-slot twin of `f` (`array_results`), so results are
written into buffers XLA owns. For a call signature (the enzyme_py types of the operands) and a
kind:

- `primal`:  operands -> results;  `@f.into` itself.
- `tangent`: operands, tangents of the float operands -> tangents of the float results;
  forward mode of `@f.into` (float arrays and floats `dup`, output slots `dup`).
- `vjp`:     operands, cotangents of the float results -> cotangents of the float operands;
  reverse mode of `@f.into` (float arrays `dup`, floats `out`, output slots `dupnoneed`,
  their shadows seeded with copies of the cotangents).
- `hvp`:     operands, tangents of the float operands, cotangents of the float results ->
  the tangent of `vjp`'s result (forward over reverse: `sum_k ct_k H_k t`).

`tangent` and `vjp` are each other's transpose; `hvp` is symmetric in its tangent argument.

Written arguments: an operand array `f` may write is one more result item (its new value,
after `f`'s own items; `f` may then return nothing). The primal writes it in the result buffer
aliased to the operand, the tangent form its tangent in the result aliased to the operand's
tangent, the vjp form the cotangent in the result aliased to the new value's cotangent (the
reverse sweep turns the new value's cotangent into the old one's in place); every other copy
(its primal in derivatives, the hvp form's seeds) is a scratch block (`aliases`).

Invariants: a function that returns nothing and writes no argument is refused. Operand buffers
are never written except through an alias: whatever else the derivative writes (slot
primals, seeds, first-order shadows) is a scratch block. Results the derivative accumulates
into are zeroed by the handler first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from enzyme_py.api import Config, build_module, optimize_before_ad
from enzyme_py.api.compile import only_export, written_arrays
from enzyme_py.api.gradients import reported_gradient
from enzyme_py.array_results import Item, add_output_wrapper, result_items, slot_activities
from enzyme_py.collector import while_compiling
from enzyme_py.errors import CallError
from enzyme_py.frontend import Array, FType
from enzyme_py.frontend.ftypes import NoneType
from enzyme_py.frontend.record_parameter import record_as_parameter
from enzyme_py.jax.ffi_handler import BufferSpec, Param, Scratch, Store
from enzyme_py.jax.messages import site_messages

__all__ = ["KINDS", "Plan", "buffer_specs", "build_plan", "is_float", "rebatched"]

KINDS = ("primal", "tangent", "vjp", "hvp")
ERROR_RECORD = "enzyme_py.error.jax"  # the record's name in every handler module


def is_float(t: FType | Item) -> bool:
    return (t.elem if isinstance(t, Array) else t).is_float  # type: ignore[union-attr]


def dtype_name(t: FType | Item) -> str:
    return (t.elem if isinstance(t, Array) else t).dtype.name  # type: ignore[union-attr]


def ndim(t: FType | Item) -> int:
    return t.ndim if isinstance(t, Array) else 0


@dataclass(frozen=True)
class Plan:
    """A compiled form's module text and what its handler passes the callee."""

    text: str
    callee: str
    callee_return: str
    param_types: tuple[str, ...]
    args: tuple[BufferSpec, ...]
    rets: tuple[BufferSpec, ...]
    params: tuple[Param, ...]
    scratch: tuple[Scratch, ...]
    stores: tuple[Store, ...]
    zeroed: tuple[int, ...]
    error_global: str | None
    messages: tuple
    arg_slots: tuple[int, ...] = ()  # see `HandlerSpec.arg_slots`
    error_param: bool = False  # the record is the callee's last parameter (`record`)
    aliases: tuple[tuple[int, int], ...] = ()  # (operand, result): one buffer (see `aliases`)


def _canonical_record(text: str, error_name: str) -> tuple[str, str | None]:
    """The module's error record renamed `ERROR_RECORD` and made internal (only the handler
    reads it; a process-independent name keeps target names a pure content hash)."""
    if not re.search(rf"^@{re.escape(error_name)} = ", text, re.MULTILINE):
        return text, None
    text = re.sub(rf"^@{re.escape(error_name)} = global", f"@{ERROR_RECORD} = internal global",
                  text, flags=re.MULTILINE)
    return re.sub(rf"@{re.escape(error_name)}\b", f"@{ERROR_RECORD}", text), ERROR_RECORD


Active = tuple[int, ...] | None  # the float operands a form differentiates; None: every one
Masks = tuple[tuple[bool, ...], ...] | None  # per result, its batch axes; None: every one


def item_layout(types: Sequence[FType], items: Sequence[Item], active: Active = None
                ) -> tuple[list[int], list[int]]:
    """Indices of the active float operands (`active`, or every float operand) and of the
    float result items."""
    return ([i for i, t in enumerate(types) if is_float(t) and (active is None or i in active)],
            [j for j, it in enumerate(items) if is_float(it)])


def operand_buffers(kind: str, types: Sequence[FType], items: Sequence[Item],
                    active: Active = None) -> list[FType | Item]:
    """The enzyme_py type of each operand buffer of `kind` (tangents and cotangents have their
    primal's type)."""
    fl, fo = item_layout(types, items, active)
    extra: list[FType | Item] = []
    if kind in ("tangent", "hvp"):
        extra += [types[i] for i in fl]
    if kind in ("vjp", "hvp"):
        extra += [items[j] for j in fo]
    return [*types, *extra]


def result_buffers(kind: str, types: Sequence[FType], items: Sequence[Item],
                   active: Active = None) -> list[FType | Item]:
    fl, fo = item_layout(types, items, active)
    if kind == "primal":
        return list(items)
    if kind == "tangent":
        return [items[j] for j in fo]
    return [types[i] for i in fl]


@while_compiling
def _prepared(f: Callable, types: tuple[FType, ...], bounds_check: bool
              ) -> tuple[Any, Any, Any, tuple[Item, ...], str, tuple[int, ...]]:
    """`f` compiled for `types` with its output wrapper (none when it returns nothing),
    optimized for AD: the module, compiled function, session, result items, the function to
    derive, and the operands it may write."""
    name = getattr(f, "__name__", "f")
    module, compiled, session = build_module(f, types, Config(bounds_check=bounds_check), True)
    returns_none = isinstance(compiled.return_type, NoneType)
    items = () if returns_none else result_items(compiled.return_type, name)
    wname = compiled.function.name if returns_none else add_output_wrapper(session, compiled, f)
    module = optimize_before_ad(module, 2)
    written = tuple(sorted(i for i in written_arrays(module.get_function(wname),
                                                      compiled.arg_types) if i < len(types)))
    if returns_none and not written:
        raise CallError(f"enzyme_py.jax: {name}() returns nothing and writes no argument; "
                        "inside JAX a function must return its results (arrays, numbers, "
                        "or a tuple of them)")
    return module, compiled, session, items, wname, written


def written_operands(f: Callable, types: tuple[FType, ...], bounds_check: bool
                     ) -> tuple[int, ...]:
    """The operands `f` may write into (their new values are extra results)."""
    return _prepared(f, types, bounds_check)[5]


def build_plan(f: Callable, types: tuple[FType, ...], kind: str,
               batch: tuple[tuple[bool, ...], ...], item_shapes: Sequence[tuple[int, ...]],
               bounds_check: bool, active: Active = None) -> Plan:
    """Compile `f` for `types` (front end and AD, no code generation) as form `kind`, its
    operand buffers batched on the axes `batch` says (one tuple per operand), differentiating
    the float operands `active` (None: all; the others are constants)."""
    from enzyme_py.ad.driver import forward_module

    module, compiled, session, slots, wname, written = _prepared(f, types, bounds_check)
    items = (*slots, *(types[i] for i in written))  # type: ignore[misc]
    b = _PlanBuilder(types, items, kind, item_shapes, len(slots), written, active)
    if kind == "primal":
        out, callee = module, wname
    elif kind == "tangent":
        out, callee = forward_module(module, wname, b.forward_activities(), opt_level=0,
                                     return_primal=False)
    elif kind == "vjp":
        out, callee = reported_gradient(module, wname, b.reverse_activities(), False,
                                        session, f, opt_level=0)
    elif kind == "hvp":
        grad, gname = reported_gradient(module, wname, b.reverse_activities(), False,
                                        session, f)
        out, callee = forward_module(grad, gname, b.hvp_activities(), opt_level=0,
                                     return_primal=False)
    else:
        raise ValueError(f"unknown kind {kind!r}")
    only_export(out, callee)
    fn = out.get_function(callee)
    b.params_for()
    param_types = tuple(str(p) for p in fn.function_type.params)
    if len(param_types) != len(b.params):
        raise CallError(f"enzyme_py.jax: internal error: @{callee} takes {len(param_types)} "
                        f"parameters, the plan passes {len(b.params)}")
    text, record = _canonical_record(str(out), session.error_name)
    per_call = record_as_parameter(text, record) if record else None
    params = tuple(b.params)
    if per_call is not None:  # one record per call: safe when XLA runs calls in parallel
        text, param_types, params = per_call, (*param_types, "ptr"), (*params, Param("record"))
    args, rets = buffer_specs(kind, types, items, batch, active)
    return Plan(text, callee, str(fn.return_type), param_types, args, rets, params,
                tuple(b.scratch), tuple(b.stores), tuple(b.zeroed),
                record if per_call is None else None,
                site_messages(session.sites) if record else (), error_param=per_call is not None,
                aliases=aliases(kind, types, items, written, active))


def aliases(kind: str, types: Sequence[FType], items: Sequence[Item],
            written: Sequence[int], active: Active = None) -> tuple[tuple[int, int], ...]:
    """(operand, result) buffer pairs of form `kind` that are one buffer (XLA's
    `input_output_aliases`): a written array's new value (primal), its tangent (tangent)
    and its cotangent (vjp) are computed in place; the hvp form copies instead."""
    fl, fo = item_layout(types, items, active)
    n, first = len(types), len(items) - len(written)
    out = []
    for w, i in enumerate(written):
        j = first + w
        if kind == "primal":
            out.append((i, j))
        elif kind == "tangent" and i in fl:
            out.append((n + fl.index(i), fo.index(j)))
        elif kind == "vjp" and i in fl:
            out.append((n + fo.index(j), fl.index(i)))
    return tuple(out)


def buffer_specs(kind: str, types: Sequence[FType], items: Sequence[Item],
                 batch: tuple[tuple[bool, ...], ...], active: Active = None,
                 out_batch: Masks = None
                 ) -> tuple[tuple[BufferSpec, ...], tuple[BufferSpec, ...]]:
    """The operand and result buffers of form `kind`, batched as `batch` says (one tuple per
    operand); results have every batch axis, or those `out_batch` says (summed over the
    others)."""
    k = len(batch[0]) if batch else 0
    args = tuple(BufferSpec(dtype_name(t), ndim(t), batch[i])
                 for i, t in enumerate(operand_buffers(kind, types, items, active)))
    rets = tuple(BufferSpec(dtype_name(t), ndim(t), out_batch[r] if out_batch else (True,) * k)
                 for r, t in enumerate(result_buffers(kind, types, items, active)))
    return args, rets


def rebatched(plan: Plan, kind: str, types: Sequence[FType], items: Sequence[Item],
              batch: tuple[tuple[bool, ...], ...], active: Active = None,
              out_batch: Masks = None) -> Plan:
    """`plan` for another batching (the callee does not depend on it, only the handler)."""
    args, rets = buffer_specs(kind, types, items, batch, active, out_batch)
    return replace(plan, args=args, rets=rets)


class _PlanBuilder:
    """The callee's parameters, per kind, in the order the AD transforms lay them out."""

    def __init__(self, types: tuple[FType, ...], items: tuple[Item, ...], kind: str,
                 item_shapes: Sequence[tuple[int, ...]], n_slots: int | None = None,
                 written: tuple[int, ...] = (), active: Active = None) -> None:
        self.types, self.items, self.kind, self.shapes = types, items, kind, item_shapes
        self.fl, self.fo = item_layout(types, items, active)
        self.act = set(self.fl)
        self.n_slots = len(items) if n_slots is None else n_slots
        self.slots = items[:self.n_slots]  # the wrapper's output slots; then written arrays
        self.written = {i: self.n_slots + w for w, i in enumerate(written)}
        self.params: list[Param] = []
        self.scratch: list[Scratch] = []
        self.stores: list[Store] = []
        self.zeroed: list[int] = []

    # -- activities ----------------------------------------------------------------------

    def _operand_acts(self, float_scalar: str, float_array: list[str]) -> list[str]:
        acts: list[str] = []
        for i, t in enumerate(self.types):
            if isinstance(t, Array):
                acts += (float_array if i in self.act else ["const"]) + ["const"] * t.ndim
            else:
                acts.append(float_scalar if i in self.act else "const")
        return acts

    def forward_activities(self) -> list[str]:
        return self._operand_acts("dup", ["dup"]) + slot_activities(self.slots, "dup")

    def reverse_activities(self) -> list[str]:
        return self._operand_acts("out", ["dup"]) + slot_activities(self.slots, "dupnoneed")

    def hvp_activities(self) -> list[str]:
        acts = self._operand_acts("dup", ["dup", "dup"])
        for item in self.slots:
            if is_float(item):
                acts += ["dup", "const"]  # the slot (its tangent: scratch), its seed
            else:
                acts.append("const")
            acts += ["const"] * ndim(item)
        return acts

    # -- parameters ------------------------------------------------------------------------

    def _new_scratch(self, sc: Scratch) -> Param:
        self.scratch.append(sc)
        return Param("scratch", len(self.scratch) - 1)

    def params_for(self) -> None:
        kind, n = self.kind, len(self.types)
        tangent_of = {i: n + m for m, i in enumerate(self.fl)}
        ct_base = n + (len(self.fl) if kind == "hvp" else 0)
        ct_of = {j: ct_base + m for m, j in enumerate(self.fo)}
        ret_of = {i: m for m, i in enumerate(self.fl)}
        p = self.params
        for i, t in enumerate(self.types):
            if isinstance(t, Array) and i in self.written:
                self._written(i, t, tangent_of, ct_of, ret_of)
            elif isinstance(t, Array):
                p.append(Param("data", i))
                if i in self.act and kind == "tangent":
                    p.append(Param("data", tangent_of[i]))
                elif i in self.act and kind == "vjp":
                    p.append(Param("data", ret_of[i], "ret"))
                    self.zeroed.append(ret_of[i])
                elif i in self.act and kind == "hvp":
                    p.append(Param("data", tangent_of[i]))
                    p.append(self._new_scratch(Scratch(t.elem.dtype.name, ("arg", i))))
                    p.append(Param("data", ret_of[i], "ret"))
                    self.zeroed.append(ret_of[i])
                p.extend(Param("dim", i, axis=d) for d in range(t.ndim))
            else:
                p.append(Param("value", i))
                if i in self.act and kind in ("tangent", "hvp"):
                    p.append(Param("value", tangent_of[i]))
                if i in self.act and kind in ("vjp", "hvp"):
                    self.stores.append(Store(ret_of[i]))
        for j, item in enumerate(self.slots):
            self._slot(j, item, ct_of)
        if len(self.stores) > 1:
            self.stores = [Store(s.ret, k) for k, s in enumerate(self.stores)]

    def _written(self, i: int, t: Array, tangent_of: dict[int, int], ct_of: dict[int, int],
                 ret_of: dict[int, int]) -> None:
        """An operand the function writes: in place in the result it aliases (`aliases`),
        else in a copy; its tangent and cotangent likewise."""
        kind, p, dt, j = self.kind, self.params, t.elem.dtype.name, self.written[i]
        if kind == "primal":
            p.append(Param("data", j, "ret"))
        else:
            p.append(self._new_scratch(Scratch(dt, ("arg", i), copy=True)))
        if i in self.act and kind == "tangent":
            p.append(Param("data", self.fo.index(j), "ret"))
        elif i in self.act and kind == "vjp":
            p.append(Param("data", ret_of[i], "ret"))  # holds the new value's cotangent
        elif i in self.act and kind == "hvp":
            p.append(self._new_scratch(Scratch(dt, ("arg", tangent_of[i]), copy=True)))
            p.append(self._new_scratch(Scratch(dt, ("arg", ct_of[j]), copy=True)))
            p.append(Param("data", ret_of[i], "ret"))
            self.zeroed.append(ret_of[i])
        p.extend(Param("dim", i, axis=d) for d in range(t.ndim))

    def _slot(self, j: int, item: Item, ct_of: dict[int, int]) -> None:
        kind, p, dt = self.kind, self.params, dtype_name(item)
        dims: list[Param]
        if not is_float(item) and kind != "primal":  # an integer item: static scratch
            shape = self.shapes[j]
            count = 1
            for d in shape:
                count *= d
            p.append(self._new_scratch(Scratch(dt, None, max(count, 1))))
            p.extend(Param("const", d) for d in shape)
            return
        if kind == "primal":
            p.append(Param("data", j, "ret"))
            dims = [Param("dim", j, "ret", d) for d in range(ndim(item))]
        elif kind == "tangent":
            m = self.fo.index(j)
            p.append(self._new_scratch(Scratch(dt, ("ret", m))))
            p.append(Param("data", m, "ret"))
            dims = [Param("dim", m, "ret", d) for d in range(ndim(item))]
        else:
            ct = ct_of[j]
            p.append(self._new_scratch(Scratch(dt, ("arg", ct))))
            if kind == "hvp":
                p.append(self._new_scratch(Scratch(dt, ("arg", ct))))
            p.append(self._new_scratch(Scratch(dt, ("arg", ct), copy=True)))
            dims = [Param("dim", ct, "arg", d) for d in range(ndim(item))]
        p.extend(dims)
