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

Invariants: a function that may write into an argument array is refused (XLA's operand buffers
are immutable); so is one that returns nothing. Operand buffers are never written: whatever the
derivative writes (slot primals, seeds, first-order shadows) is a scratch block. Results the
derivative accumulates into are zeroed by the handler first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from enzyme_py.api import Options, build_module, optimize_before_ad
from enzyme_py.api.compile import only_export, written_arrays
from enzyme_py.array_results import Item, add_output_wrapper, result_items, slot_activities
from enzyme_py.errors import CallError
from enzyme_py.frontend import Array, FType
from enzyme_py.frontend.ftypes import NoneType
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


def _canonical_record(text: str, error_name: str) -> tuple[str, str | None]:
    """The module's error record renamed `ERROR_RECORD` and made internal (only the handler
    reads it; a process-independent name keeps target names a pure content hash)."""
    if not re.search(rf"^@{re.escape(error_name)} = ", text, re.MULTILINE):
        return text, None
    text = re.sub(rf"^@{re.escape(error_name)} = global", f"@{ERROR_RECORD} = internal global",
                  text, flags=re.MULTILINE)
    return re.sub(rf"@{re.escape(error_name)}\b", f"@{ERROR_RECORD}", text), ERROR_RECORD


def item_layout(types: Sequence[FType], items: Sequence[Item]) -> tuple[list[int], list[int]]:
    """Indices of the float operands and of the float result items."""
    return ([i for i, t in enumerate(types) if is_float(t)],
            [j for j, it in enumerate(items) if is_float(it)])


def operand_buffers(kind: str, types: Sequence[FType], items: Sequence[Item]) -> list[FType | Item]:
    """The enzyme_py type of each operand buffer of `kind` (tangents and cotangents have their
    primal's type)."""
    fl, fo = item_layout(types, items)
    extra: list[FType | Item] = []
    if kind in ("tangent", "hvp"):
        extra += [types[i] for i in fl]
    if kind in ("vjp", "hvp"):
        extra += [items[j] for j in fo]
    return [*types, *extra]


def result_buffers(kind: str, types: Sequence[FType], items: Sequence[Item]) -> list[FType | Item]:
    fl, fo = item_layout(types, items)
    if kind == "primal":
        return list(items)
    if kind == "tangent":
        return [items[j] for j in fo]
    return [types[i] for i in fl]


def build_plan(f: Callable, types: tuple[FType, ...], kind: str,
               batch: tuple[tuple[bool, ...], ...], item_shapes: Sequence[tuple[int, ...]],
               bounds_check: bool) -> Plan:
    """Compile `f` for `types` (front end and AD, no code generation) as form `kind`, its
    operand buffers batched on the axes `batch` says (one tuple per operand)."""
    from enzyme_py.ad.driver import forward_module, gradient_module

    name = getattr(f, "__name__", "f")
    module, compiled, session = build_module(f, types, Options(bounds_check=bounds_check), True)
    if isinstance(compiled.return_type, NoneType):
        raise CallError(f"enzyme_py.jax: {name}() returns nothing; inside JAX a function "
                        "must return its results (arrays, numbers, or a tuple of them)")
    items = result_items(compiled.return_type, name)
    wname = add_output_wrapper(session, compiled, f)
    module = optimize_before_ad(module, 2)
    written = {i for i in written_arrays(module.get_function(wname), compiled.arg_types)
               if i < len(types)}
    if written:
        params = compiled.param_names
        which = ", ".join(f"{i} ('{params[i]}')" for i in sorted(written))
        raise CallError(f"enzyme_py.jax: {name}() may write into argument(s) {which}; JAX "
                        "arrays are immutable: return the new values instead")
    b = _PlanBuilder(types, items, kind, item_shapes)
    if kind == "primal":
        out, callee = module, wname
    elif kind == "tangent":
        out, callee = forward_module(module, wname, b.forward_activities(), opt_level=0,
                                     return_primal=False)
    elif kind == "vjp":
        out, callee = gradient_module(module, wname, b.reverse_activities(), False,
                                      opt_level=0)
    elif kind == "hvp":
        grad, gname = gradient_module(module, wname, b.reverse_activities(), False,
                                      opt_level=2)
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
    args, rets = buffer_specs(kind, types, items, batch)
    return Plan(text, callee, str(fn.return_type), param_types, args, rets, tuple(b.params),
                tuple(b.scratch), tuple(b.stores), tuple(b.zeroed), record,
                site_messages(session.sites) if record else ())


def buffer_specs(kind: str, types: Sequence[FType], items: Sequence[Item],
                 batch: tuple[tuple[bool, ...], ...]
                 ) -> tuple[tuple[BufferSpec, ...], tuple[BufferSpec, ...]]:
    """The operand and result buffers of form `kind`, batched as `batch` says (one tuple per
    operand; results have every batch axis)."""
    k = len(batch[0]) if batch else 0
    args = tuple(BufferSpec(dtype_name(t), ndim(t), batch[i])
                 for i, t in enumerate(operand_buffers(kind, types, items)))
    rets = tuple(BufferSpec(dtype_name(t), ndim(t), (True,) * k)
                 for t in result_buffers(kind, types, items))
    return args, rets


def rebatched(plan: Plan, kind: str, types: Sequence[FType], items: Sequence[Item],
              batch: tuple[tuple[bool, ...], ...]) -> Plan:
    """`plan` for another batching (the callee does not depend on it, only the handler)."""
    args, rets = buffer_specs(kind, types, items, batch)
    return replace(plan, args=args, rets=rets)


class _PlanBuilder:
    """The callee's parameters, per kind, in the order the AD transforms lay them out."""

    def __init__(self, types: tuple[FType, ...], items: tuple[Item, ...], kind: str,
                 item_shapes: Sequence[tuple[int, ...]]) -> None:
        self.types, self.items, self.kind, self.shapes = types, items, kind, item_shapes
        self.fl, self.fo = item_layout(types, items)
        self.params: list[Param] = []
        self.scratch: list[Scratch] = []
        self.stores: list[Store] = []
        self.zeroed: list[int] = []

    # -- activities ----------------------------------------------------------------------

    def _operand_acts(self, float_scalar: str, float_array: list[str]) -> list[str]:
        acts: list[str] = []
        for t in self.types:
            if isinstance(t, Array):
                acts += (float_array if t.elem.is_float else ["const"]) + ["const"] * t.ndim
            else:
                acts.append(float_scalar if t.is_float else "const")
        return acts

    def forward_activities(self) -> list[str]:
        return self._operand_acts("dup", ["dup"]) + slot_activities(self.items, "dup")

    def reverse_activities(self) -> list[str]:
        return self._operand_acts("out", ["dup"]) + slot_activities(self.items, "dupnoneed")

    def hvp_activities(self) -> list[str]:
        acts = self._operand_acts("dup", ["dup", "dup"])
        for item in self.items:
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
            if isinstance(t, Array):
                p.append(Param("data", i))
                if t.elem.is_float and kind == "tangent":
                    p.append(Param("data", tangent_of[i]))
                elif t.elem.is_float and kind == "vjp":
                    p.append(Param("data", ret_of[i], "ret"))
                    self.zeroed.append(ret_of[i])
                elif t.elem.is_float and kind == "hvp":
                    p.append(Param("data", tangent_of[i]))
                    p.append(self._new_scratch(Scratch(t.elem.dtype.name, ("arg", i))))
                    p.append(Param("data", ret_of[i], "ret"))
                    self.zeroed.append(ret_of[i])
                p.extend(Param("dim", i, axis=d) for d in range(t.ndim))
            else:
                p.append(Param("value", i))
                if t.is_float and kind in ("tangent", "hvp"):
                    p.append(Param("value", tangent_of[i]))
                if t.is_float and kind in ("vjp", "hvp"):
                    self.stores.append(Store(ret_of[i]))
        for j, item in enumerate(self.items):
            self._slot(j, item, ct_of)
        if len(self.stores) > 1:
            self.stores = [Store(s.ret, k) for k, s in enumerate(self.stores)]

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
