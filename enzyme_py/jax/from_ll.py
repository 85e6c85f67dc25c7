"""`from_ll`: a function of an LLVM IR module (C/C++ through `clang-22 -O2 -S -emit-llvm`) as a
JAX primitive, like Enzyme-JAX's `ffi_call(lang=LLVM)`.

The function takes scalars and pointers and returns void or one float. Each parameter has an
activity: `"in"` (an input: a pointer to an array whose dtype and shape are the JAX operand's,
or a number; differentiated when it holds floats), `"const"` (an input never differentiated:
its derivatives are zero) or `"out"` (a pointer to a result array the function writes; its shape
and dtype come from `out_shapes`, in order). The op's results are the float the function
returns (if it returns one), then the `out` arrays. Extents are not passed for you: pass them as
integer inputs.

The same four forms as for Python functions (`derivatives`) are built by enzyme_py's AD on the
module, so `jax.grad`, `jvp`, `vmap`, `hessian` ... work alike.

Invariants: a function that may store into an input pointer is refused (XLA's operands are
immutable); operands are checked against the parameters' LLVM types when the op is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jax.numpy as jnp
import numpy as np

from enzyme_py.api.compile import only_export
from enzyme_py.errors import CallError
from enzyme_py.frontend import Array, FType, Scalar
from enzyme_py.frontend.ftypes import scalar_of_dtype
from enzyme_py.ir import Module
from enzyme_py.ir import parse as parse_module
from enzyme_py.jax.derivatives import (
    Active,
    Masks,
    Plan,
    buffer_specs,
    dtype_name,
    is_float,
    rebatched,
)
from enzyme_py.jax.ffi_handler import Param, Scratch, Store
from enzyme_py.jax.op import Signature, bind

__all__ = ["LLOp", "from_ll"]

ACTIVITIES = ("in", "const", "out")
_SCALAR_OF_LLVM = {"double": "f64", "float": "f32", "i64": "i64", "i32": "i32", "i1": "bool"}


def _read(ir: str | Path) -> str:
    if isinstance(ir, Path) or (isinstance(ir, str) and "\n" not in ir and
                                ir.endswith((".ll", ".bc")) and Path(ir).exists()):
        return Path(ir).read_text()
    return str(ir)


class LLOp:
    """`from_ll(...)`: call it with the inputs (the non-`out` parameters, in order)."""

    def __init__(self, text: str, function: str, activities: Sequence[str],
                 out_shapes: Sequence[Any]) -> None:
        self.text = text
        self.label = function
        module = parse_module(text)
        fn = module.get_function(function) if function in module.symbols else None
        if fn is None or fn.is_declaration:
            raise CallError(f"from_ll: the module defines no function @{function}")
        params = [str(p) for p in fn.function_type.params]
        if len(activities) != len(params):
            raise CallError(f"from_ll: @{function} has {len(params)} parameters "
                            f"({', '.join(params)}); {len(activities)} activities were given")
        for k, (a, p) in enumerate(zip(activities, params, strict=True)):
            if a not in ACTIVITIES:
                raise CallError(f"from_ll: activity {k} is {a!r}; use one of {ACTIVITIES}")
            if a == "out" and p != "ptr":
                raise CallError(f"from_ll: parameter {k} of @{function} is {p}; an 'out' "
                                "parameter must be a pointer")
            if p != "ptr" and p not in _SCALAR_OF_LLVM:
                raise CallError(f"from_ll: parameter {k} of @{function} has type {p}; "
                                "supported: ptr, double, float, i64, i32, i1")
        ret = str(fn.return_type)
        if ret not in ("void", "double", "float"):
            raise CallError(f"from_ll: @{function} returns {ret}; it must return void, "
                            "double or float")
        n_out = list(activities).count("out")
        if len(out_shapes) != n_out:
            raise CallError(f"from_ll: @{function} has {n_out} 'out' parameters; "
                            f"{len(out_shapes)} out_shapes were given")
        outs: list[tuple[tuple[int, ...], Scalar]] = []
        for s in out_shapes:
            shape, dtype = (tuple(s.shape), s.dtype) if hasattr(s, "shape") else (
                tuple(s[0]), s[1])
            elem = scalar_of_dtype(np.dtype(dtype))
            if elem is None or elem.name == "bool" or not shape:
                raise CallError(f"from_ll: out shape {shape} of {np.dtype(dtype)}: outputs "
                                "are arrays of float64, float32, int64 or int32")
            outs.append((shape, elem))
        self.params = params
        self._plans: dict[Any, Plan] = {}
        self.activities = tuple(activities)
        self.ret = None if ret == "void" else Scalar(_SCALAR_OF_LLVM[ret])
        self.items: tuple[Array | Scalar, ...] = (
            *(() if self.ret is None else (self.ret,)),
            *(Array(elem, len(shape)) for shape, elem in outs))
        self.item_shapes = (*(() if self.ret is None else ((),)),
                            *(shape for shape, _ in outs))
        _refuse_input_writes(fn, self.activities, function)

    def __repr__(self) -> str:
        return f"<enzyme_py.jax.from_ll @{self.label}>"

    def __call__(self, *args: Any) -> Any:
        inputs = [k for k, a in enumerate(self.activities) if a != "out"]
        if len(args) != len(inputs):
            raise CallError(f"{self.label}() takes {len(inputs)} inputs; got {len(args)}")
        operands, types = [], []
        for k, a in zip(inputs, args, strict=True):
            p = self.params[k]
            if p == "ptr":
                x = jnp.asarray(a)
                elem = scalar_of_dtype(np.dtype(x.dtype))
                if elem is None or elem.name == "bool" or x.ndim == 0:
                    raise CallError(f"{self.label}(): input for parameter {k} (a pointer) must "
                                    "be an array of float64, float32, int64 or int32; got "
                                    f"{x.dtype}{list(x.shape)}")
                types.append(Array(elem, x.ndim))
            else:
                elem = Scalar(_SCALAR_OF_LLVM[p])
                x = jnp.asarray(a)
                given = np.dtype(x.dtype)
                if x.ndim or (hasattr(a, "dtype") and given != elem.dtype) or \
                        (given.kind == "f" and not elem.is_float):
                    raise CallError(f"{self.label}(): input for parameter {k} ({p}) must be a "
                                    f"{elem.dtype} number; got {x.dtype}{list(x.shape)}")
                x = jnp.asarray(a, dtype=elem.dtype)
                types.append(elem)
            operands.append(x)
        sig = Signature(self, tuple(types), tuple(tuple(x.shape) for x in operands),
                        (None,) * len(operands), self.items, self.item_shapes)
        outs = bind("primal", sig, ((),) * len(operands), operands)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def plan(self, kind: str, sig: Signature, batch: tuple[tuple[bool, ...], ...],
             active: Active = None, out_batch: Masks = None) -> Plan:
        """The form `kind` for these operand types and active operands (derived once; the
        batching changes only the handler)."""
        key = (kind, sig.types, active)
        got = self._plans.get(key)
        if got is None:
            got = self._plans[key] = _LLPlan(self, sig, kind, ((),) * len(batch), active).build()
        return rebatched(got, kind, sig.types, sig.items, batch, active, out_batch)


def _refuse_input_writes(fn: Any, activities: Sequence[str], name: str) -> None:
    from enzyme_py.analysis.memory import underlying
    from enzyme_py.ir import instructions as I

    inputs = {fn.args[k] for k, a in enumerate(activities) if a != "out"}
    for inst in fn.instructions():
        ptr = None
        if isinstance(inst, I.Store):
            ptr = inst.pointer
        elif isinstance(inst, I.Call) and (inst.callee_name or "").startswith(
                ("llvm.memcpy", "llvm.memmove", "llvm.memset")):
            ptr = inst.args[0]
        if ptr is not None and set(underlying(ptr)) & inputs:
            k = next(k for k, a in enumerate(fn.args) if a in set(underlying(ptr)))
            raise CallError(f"from_ll: @{name} may write through its input parameter {k}; "
                            "JAX arrays are immutable: make it an 'out' parameter")


class _LLPlan:
    """The forms of an LLVM function: parameters laid out as the AD transforms lay them."""

    def __init__(self, op: LLOp, sig: Signature, kind: str,
                 batch: tuple[tuple[bool, ...], ...], active: Active = None) -> None:
        self.op, self.sig, self.kind, self.batch, self.active = op, sig, kind, batch, active
        self.params: list[Param] = []
        self.scratch: list[Scratch] = []
        self.stores: list[Store] = []
        self.zeroed: list[int] = []
        self.fl = [i for i, t in enumerate(sig.types)
                   if is_float(t) and (active is None or i in active)]
        self.fo = [j for j, it in enumerate(sig.items) if is_float(it)]

    def _scratch(self, sc: Scratch) -> Param:
        self.scratch.append(sc)
        return Param("scratch", len(self.scratch) - 1)

    def _active(self, q: int) -> bool:
        return self.op.activities[q] == "in"

    def build(self) -> Plan:
        from enzyme_py.ad.driver import forward_module, gradient_module

        op, kind, sig = self.op, self.kind, self.sig
        module: Module = parse_module(op.text)
        n = len(sig.types)
        tangent_of = {i: n + m for m, i in enumerate(self.fl)}
        ct_base = n + (len(self.fl) if kind == "hvp" else 0)
        ct_of = {j: ct_base + m for m, j in enumerate(self.fo)}
        ret_of = {i: m for m, i in enumerate(self.fl)}
        has_ret = op.ret is not None
        fwd: list[str] = []
        rev: list[str] = []
        hvp: list[str] = []
        p = self.params
        i = 0  # input (operand) index
        j = 1 if has_ret else 0  # result item index of the next `out` parameter
        for q, act in enumerate(op.activities):
            if act == "out":
                item = sig.items[j]
                self._out(j, item, ct_of, fwd, rev, hvp)
                j += 1
                continue
            t = sig.types[i]
            active = i in ret_of and self._active(q)
            pointer = isinstance(t, Array)
            p.append(Param("data" if pointer else "value", i))
            if not active:
                fwd.append("const")
                rev.append("const")
                hvp.append("const")
                if i in ret_of and kind in ("vjp", "hvp"):
                    self.zeroed.append(ret_of[i])
            elif pointer:
                fwd.append("dup")
                rev.append("dup")
                hvp += ["dup", "dup"]
                if kind == "tangent":
                    p.append(Param("data", tangent_of[i]))
                elif kind == "vjp":
                    p.append(Param("data", ret_of[i], "ret"))
                    self.zeroed.append(ret_of[i])
                elif kind == "hvp":
                    p.append(Param("data", tangent_of[i]))
                    p.append(self._scratch(Scratch(dtype_name(t), ("arg", i))))
                    p.append(Param("data", ret_of[i], "ret"))
                    self.zeroed.append(ret_of[i])
            else:
                fwd.append("dup")
                rev.append("out")
                hvp.append("dup")
                if kind in ("tangent", "hvp"):
                    p.append(Param("value", tangent_of[i]))
                if kind in ("vjp", "hvp"):
                    self.stores.append(Store(ret_of[i]))
            i += 1
        if kind in ("primal", "tangent") and has_ret:
            self.stores.append(Store(0))  # the returned float (or its tangent): result 0
        if kind in ("vjp", "hvp") and has_ret:
            p.append(Param("value", ct_of[0]))  # the seed of the returned float
            hvp.append("const")
        fname = op.label
        if kind == "primal":
            out, callee = module, fname
        elif kind == "tangent":
            out, callee = forward_module(module, fname, fwd, opt_level=0, return_primal=False)
        else:
            out, callee = gradient_module(module, fname, rev, has_ret,
                                          opt_level=0 if kind == "vjp" else 2)
            if kind == "hvp":
                out, callee = forward_module(out, callee, hvp, opt_level=0, return_primal=False)
        if len(self.stores) > 1:
            self.stores = [Store(s.ret, k) for k, s in enumerate(self.stores)]
        only_export(out, callee)
        fn = out.get_function(callee)
        param_types = tuple(str(t) for t in fn.function_type.params)
        if len(param_types) != len(p):
            raise CallError(f"from_ll: internal error: @{callee} takes {len(param_types)} "
                            f"parameters, the plan passes {len(p)}")
        args, rets = buffer_specs(kind, sig.types, sig.items, self.batch, self.active)
        return Plan(str(out), callee, str(fn.return_type), param_types, args, rets, tuple(p),
                    tuple(self.scratch), tuple(self.stores), tuple(self.zeroed), None, ())

    def _out(self, j: int, item: FType, ct_of: dict[int, int], fwd: list[str],
             rev: list[str], hvp: list[str]) -> None:
        kind, p, dt = self.kind, self.params, dtype_name(item)
        if not is_float(item):
            fwd.append("const")
            rev.append("const")
            hvp.append("const")
            if kind == "primal":
                p.append(Param("data", j, "ret"))
            else:
                count = int(np.prod(self.sig.item_shapes[j], dtype=np.int64))
                p.append(self._scratch(Scratch(dt, None, max(count, 1))))
            return
        fwd.append("dup")
        rev.append("dupnoneed")
        hvp += ["dup", "const"]
        if kind == "primal":
            p.append(Param("data", j, "ret"))
        elif kind == "tangent":
            m = self.fo.index(j)
            p.append(self._scratch(Scratch(dt, ("ret", m))))
            p.append(Param("data", m, "ret"))
        else:
            ct = ct_of[j]
            p.append(self._scratch(Scratch(dt, ("arg", ct))))
            if kind == "hvp":
                p.append(self._scratch(Scratch(dt, ("arg", ct))))
            p.append(self._scratch(Scratch(dt, ("arg", ct), copy=True)))


def from_ll(ir: str | Path, function: str, activities: Sequence[str],
            out_shapes: Sequence[Any] = ()) -> LLOp:
    """The LLVM function `function` of `ir` (LLVM text, or the path of a `.ll` file) as a JAX
    primitive (see the module docstring for `activities` and `out_shapes`).

    Example::

        // scale.c:  void scale(const double *x, double a, long n, double *y)
        //           { for (long i = 0; i < n; i++) y[i] = a * x[i] * x[i]; }
        op = from_ll("scale.ll", "scale", ["in", "in", "const", "out"],
                     [jax.ShapeDtypeStruct((3,), jnp.float64)])
        y = op(x, 2.0, 3)                       # shape (3,)
        jax.grad(lambda x: op(x, 2.0, 3).sum())(x)
    """
    return LLOp(_read(ir), function, activities, out_shapes)
