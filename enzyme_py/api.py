"""The Python API: `jit`, `grad`, `value_and_grad`, `vjp`, Enzyme-style `autodiff`, `show`.

Each decorated function is compiled on first call for the types of its arguments (one native
version per signature, looked up by a dict), differentiated at the LLVM level after
optimization, and run natively.

Example::

    >>> import numpy as np, enzyme_py as ez
    >>> def loss(w, x):
    ...     s = 0.0
    ...     for i in range(x.shape[0]):
    ...         s += (w * x[i] - 1.0) ** 2
    ...     return s
    >>> ez.grad(loss)(2.0, np.array([1.0, 2.0]))  # d/dw
    14.0

Invariants: gradients follow JAX's conventions (a float for a float argument, an array for an
array, a tuple for several `argnums`); shadows are allocated and zeroed here, so users never
see them unless they call `autodiff` with `Duplicated`, which accumulates like Enzyme.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from enzyme_py import backend
from enzyme_py.array_results import (
    Item,
    add_output_wrapper,
    carries_arrays,
    result_items,
    slot_activities,
    slot_types,
)
from enzyme_py.backend import _DATA_OFFSET, _data_pointer
from enzyme_py.calling import (
    ErrorRecord,
    _Overlap,
    arg_key,
    arg_types,
    convert_result,
    error_record,
    make_grad_stub,
    make_stub,
    overlapping_arrays,
)
from enzyme_py.errors import CallError, EnzymePyError
from enzyme_py.frontend import Array, Compiled, FType, Scalar, Tuple, compile_python
from enzyme_py.frontend.ftypes import NONE, abi_extents
from enzyme_py.ir import Function, Module
from enzyme_py.passes import OptLevel

__all__ = ["Active", "Const", "Duplicated", "DuplicatedNoNeed", "autodiff", "grad",
           "inactive", "jit", "show", "value_and_grad", "vjp"]


@dataclass
class Options:
    """Compilation options (an explicit object, never global flags)."""

    bounds_check: bool = True
    opt_level: int = 2


# --- primal compilation -------------------------------------------------------------------------


@dataclass
class _Primal:
    compiled: Compiled
    module: Module
    stub: Any  # the generated fast caller (see calling.make_stub)


def _params(f: Callable) -> list[str]:
    code = getattr(f, "__code__", None)
    return list(code.co_varnames[:code.co_argcount]) if code else []


def _complete(f: Callable, args: tuple, kwargs: dict) -> tuple:
    """All of f's arguments, positionally: keywords placed, defaults filled in (Python's
    rules; a call Python would reject raises the same TypeError)."""
    from enzyme_py.frontend.arguments import complete

    return complete(f, args, kwargs)


def _only_export(module: Module, name: str) -> None:
    """Make every other function definition of `module` internal, so that the optimizer
    drops what `name` does not call (the primal itself, most often) before code generation."""
    for fn in module.functions:
        if fn.name != name and not fn.is_declaration and "internal" not in fn.prefix:
            fn.prefix = ["internal", *[w for w in fn.prefix if w not in ("dso_local",)]]


def optimize_before_ad(module: Module, opt_level: int) -> Module:
    """`module` optimized at `opt_level` for differentiation: LLVM's pipeline without loop
    unrolling and vectorizers (`OptLevel(for_ad=True)`, Enzyme's place in the pipeline), so
    each loop is differentiated as written; the gradient is then optimized in full. Functions
    whose calls must stay calls (inactive ones, those with custom rules: `noinline` from the
    front end) become `optnone` first, so that no interprocedural pass looks through them:
    inferring that one returns its argument, or a constant, would let the optimizer bypass
    the call, and with it the rule (an inactive identity function is `stop_gradient`)."""
    for fn in module.functions:
        if fn.suffix == ["noinline"]:
            fn.suffix = ["noinline", "optnone"]
    return OptLevel(opt_level, for_ad=True).run(module)


def _build(f: Callable, types: tuple[FType, ...], options: Options, noalias: bool):
    module, compiled, session = compile_python(f, types, bounds_check=options.bounds_check,
                                               noalias=noalias)
    if noalias:
        for arg in compiled.function.args:
            if arg.type.is_pointer:
                arg.attrs = ["noalias"]
    return module, compiled, session


class JitFunction:
    """`jit(f)`: `f` compiled natively, one specialization per argument signature."""

    def __init__(self, f: Callable, options: Options | None = None) -> None:
        functools.update_wrapper(self, f)  # type: ignore[arg-type]
        self.pyfunc = f
        self.options = options or Options()
        self.params = _params(f)
        self._cache: dict[Any, _Primal] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != len(self.params):
            args = _complete(self.pyfunc, args, kwargs)
        spec = self._cache.get(tuple(map(arg_key, args)))
        if spec is not None:
            try:
                return spec.stub(*args)
            except _Overlap:
                pass
        return self._specialize(args)(*args)

    def _specialize(self, args: Sequence[Any]) -> Any:
        """Compile for these argument types (without `noalias` if arrays overlap)."""
        key = tuple(map(arg_key, args))
        types = arg_types(self.pyfunc.__name__, self.params, args)
        alias = overlapping_arrays(args)
        spec = self._cache.get((key, alias))
        if spec is None:
            module, compiled, session = _build(self.pyfunc, types, self.options, not alias)
            jm = backend.compile_ir(str(module), opt_level=self.options.opt_level)
            native = jm.function(compiled.function.name or "")
            stub = make_stub(native, types, compiled.return_type, error_record(jm, session),
                             not alias)
            spec = _Primal(compiled, module, stub)
            self._cache[(key, alias)] = spec
            if not alias:
                self._cache[key] = spec
        return spec.stub

    def ir(self, *args: Any, optimized: bool = False) -> str:
        """The LLVM IR of this function for these argument types."""
        types = arg_types(self.pyfunc.__name__, self.params, args)
        module, _, _ = _build(self.pyfunc, types, self.options, True)
        return backend.optimize(str(module), self.options.opt_level) if optimized else str(module)


def jit(f: Callable | None = None, *, bounds_check: bool = True, opt_level: int = 2) -> Any:
    """Compile `f` (a function of the numeric Python subset) to native code.

    Example::

        @jit
        def norm2(x):
            s = 0.0
            for i in range(len(x)):
                s += x[i] * x[i]
            return s
    """
    opts = Options(bounds_check, opt_level)
    if f is None:
        return lambda g: JitFunction(g, opts)
    return JitFunction(f, opts)


# --- gradients ----------------------------------------------------------------------------------


@dataclass
class _Gradient:
    """A compiled `diffe_f` and how Python arguments map onto it."""

    native: Any
    errors: ErrorRecord | None
    types: tuple[FType, ...]
    activities: list[str]  # per Python argument: const / dup / out
    return_type: FType
    return_primal: bool
    seeded: bool
    # an array-returning f: its result items, written into output slots after the arguments
    # (see `array_results`); empty otherwise
    outputs: tuple[Item, ...] = ()


def _written_arrays(fn: Function, arg_types: tuple[FType, ...]) -> set[int]:
    """Indices of array parameters the function (or its callees) may write."""
    from enzyme_py.analysis.memory import underlying
    from enzyme_py.ir import instructions as I

    written_args = set()
    module = fn.parent
    assert module is not None
    for g in module.functions:
        for inst in g.instructions():
            ptr = None
            if isinstance(inst, I.Store):
                ptr = inst.pointer
            elif isinstance(inst, I.Call) and (inst.callee_name or "").startswith(
                    ("llvm.memcpy", "llvm.memmove", "llvm.memset")):
                ptr = inst.args[0]
            elif isinstance(inst, I.Call) and g is fn:
                # arrays passed to callees: treat as written (callees are inlined for AD)
                written_args |= {a for a in inst.args if a.type.is_pointer}
            if ptr is not None:
                written_args |= set(underlying(ptr))
    idx = set()
    flat = 0
    for i, t in enumerate(arg_types):
        if isinstance(t, Array):
            if fn.args[flat] in written_args:
                idx.add(i)
            flat += 1 + t.extents
        else:
            flat += 1
    if any(g is not fn and not g.is_declaration for g in module.functions):
        idx |= {i for i, t in enumerate(arg_types) if isinstance(t, Array)}
    return idx


class _GradCache:
    def __init__(self, f: Callable, options: Options) -> None:
        self.f = f
        self.options = options
        self.params = _params(f)
        self.cache: dict[Any, _Gradient] = {}
        self.result_types: dict[Any, FType] = {}
        self._jit: JitFunction | None = None

    @property
    def jit(self) -> JitFunction:
        """`jit(f)` with these options (the value of `vjp`, the shapes of array results)."""
        if self._jit is None:
            self._jit = JitFunction(self.f, self.options)
        return self._jit

    def result_type(self, args: Sequence[Any]) -> FType:
        """What `f` returns for these arguments (front end only, cached per signature)."""
        key = tuple(map(arg_key, args))
        t = self.result_types.get(key)
        if t is None:
            types = arg_types(self.f.__name__, self.params, args)
            t = self.result_types[key] = _build(self.f, types, self.options, True)[1].return_type
        return t

    def get(self, args: Sequence[Any], active: tuple[bool, ...], return_primal: bool,
            seeded_return: bool = True, dupnoneed: tuple[bool, ...] = (),
            require_scalar: bool = False, array_results: bool = False) -> _Gradient:
        """The gradient for these argument types. `array_results`: the caller passes output
        slots for an array-returning f (their shadows seeded with the cotangent)."""
        key = (tuple(map(arg_key, args)), active, return_primal, seeded_return, dupnoneed,
               len(args) > 1 and overlapping_arrays(args), array_results)
        g = self.cache.get(key)
        if g is None:
            g = self._build(args, active, return_primal, seeded_return, key[-2],
                            require_scalar, dupnoneed, array_results)
            self.cache[key] = g
        return g

    def _build(self, args: Sequence[Any], active: tuple[bool, ...], return_primal: bool,
               seeded_return: bool, alias: bool, require_scalar: bool,
               dupnoneed: tuple[bool, ...] = (), array_results: bool = False) -> _Gradient:
        from enzyme_py.ad.driver import gradient_module

        name = self.f.__name__
        types = arg_types(name, self.params, args)
        module, compiled, session = _build(self.f, types, self.options, not alias)
        rt0 = compiled.return_type
        if require_scalar and not (isinstance(rt0, Scalar) and rt0.is_float):
            raise EnzymePyError(f"grad of {name}() needs a function returning one float; it "
                                f"returns {rt0} (use vjp or jacrev for tuples and arrays)")
        outputs: tuple[Item, ...] = ()
        fname = compiled.function.name or ""
        param_types: tuple[FType, ...] = compiled.arg_types
        if carries_arrays(rt0):
            if not array_results:
                raise EnzymePyError(f"{name}() returns {rt0}; differentiate it with vjp, "
                                    "jacrev or jacfwd")
            outputs = result_items(rt0, name)
            fname = add_output_wrapper(session, compiled, self.f)
            param_types = (*param_types, *slot_types(outputs))
        # Differentiate after optimization (the primal at -O2), then optimize the gradient;
        # which arrays are written is read off the optimized code (no stack copies of the
        # array pointers there).
        module = optimize_before_ad(module, self.options.opt_level)
        written = _written_arrays(module.get_function(fname), param_types)
        acts: list[str] = []
        flat_acts: list[str] = []
        for i, t in enumerate(types):
            if isinstance(t, Array):
                if active[i] and not t.elem.is_float:
                    raise EnzymePyError(f"{name}(): argument {i} ('{self.params[i]}') is an "
                                        f"integer array; only float arrays can be "
                                        "differentiated")
                act = "dup" if active[i] or i in written else "const"
                acts.append(act)
                # DuplicatedNoNeed: the same call, but the primal values written there are
                # not needed (the gradient may skip computing them)
                noneed = act == "dup" and i < len(dupnoneed) and dupnoneed[i]
                flat_acts.append("dupnoneed" if noneed else act)
                flat_acts.extend(["const"] * t.extents)
            else:
                assert isinstance(t, Scalar)
                if active[i] and not t.is_float:
                    raise EnzymePyError(f"{name}(): argument {i} ('{self.params[i]}') is "
                                        f"{t}; only float arguments can be differentiated "
                                        "(as in jax.grad)")
                act = "out" if active[i] else "const"
                acts.append(act)
                flat_acts.append(act)
        # the slots of an array result: their primal values are not needed (the value comes
        # from `jit`), their shadows are the cotangent
        flat_acts += slot_activities(outputs, "dupnoneed")
        rt = NONE if outputs else compiled.return_type
        ret_active = seeded_return and (
            (isinstance(rt, Scalar) and rt.is_float) or
            (isinstance(rt, Tuple) and any(x.is_float for x in rt.items)))
        out, gname = gradient_module(module, fname, flat_acts, ret_active, opt_level=0,
                                     return_primal=return_primal and not outputs)
        if ret_active and isinstance(rt, Tuple):
            gname = _flat_seed_wrapper(out, gname)
        _only_export(out, gname)
        jm = backend.compile_ir(str(out), opt_level=self.options.opt_level)
        native = jm.function(gname)
        return _Gradient(native, error_record(jm, session), types, acts, rt,
                         return_primal and not outputs, ret_active, outputs)


def _flat_seed_wrapper(module: Module, gname: str) -> str:
    """A wrapper of the gradient taking a tuple result's seed as separate floats (a struct
    cannot be passed by value from Python)."""
    from enzyme_py.ir import types as T
    from enzyme_py.ir.builder import Builder
    from enzyme_py.ir.module import Function
    from enzyme_py.ir.values import zero

    grad = module.get_function(gname)
    seed_t = grad.function_type.params[-1]
    assert isinstance(seed_t, T.StructType)
    params = (*grad.function_type.params[:-1], *seed_t.elements)
    ret = grad.return_type
    # A nested result ({ {primal...}, adjoints... }) is flattened for the same reason.
    paths: list[list[int]] = []
    if isinstance(ret, T.StructType):
        for k, e in enumerate(ret.elements):
            if isinstance(e, T.StructType):
                paths.extend([k, j] for j in range(len(e.elements)))
            else:
                paths.append([k])
        leaves = tuple(T.element_type_at(T.element_type_at(ret, p[0]), p[1]) if len(p) == 2
                       else T.element_type_at(ret, p[0]) for p in paths)
        flat_ret: T.Type = T.StructType(leaves)
    else:
        flat_ret = ret
    wrapper = module.add_function(Function(module.unique_name(gname + ".flat"),
                                           T.FunctionType(flat_ret, params)))
    b = Builder(wrapper.append_block("entry"))
    n = len(grad.function_type.params) - 1
    seed: Any = zero(seed_t)
    for k, arg in enumerate(wrapper.args[n:]):
        seed = b.insertvalue(seed, arg, [k])
    r: Any = b.call(grad, [*wrapper.args[:n], seed])
    if paths:
        out: Any = zero(flat_ret)
        for k, p in enumerate(paths):
            out = b.insertvalue(out, b.extractvalue(r, p), [k])
        r = out
    b.ret(None if ret.is_void else r)
    return wrapper.name or ""


def _run_gradient(g: _Gradient, args: Sequence[Any], seed: Any,
                  shadows: dict[int, np.ndarray],
                  slots: Sequence[tuple[np.ndarray, np.ndarray | None]] = ()
                  ) -> tuple[Any, list[Any]]:
    """Call the gradient; returns (primal or None, adjoints of the `out` arguments). `slots`:
    for an array-returning f, one (output buffer, its shadow or None) per result item, C order,
    of the result's shapes (the wrapper checks them)."""
    if len(slots) != len(g.outputs):
        raise EnzymePyError("internal error: output slots do not match the gradient")
    flat: list[Any] = []
    fast = g.native._out_type is None and _DATA_OFFSET is not None
    for i, (t, v, act) in enumerate(zip(g.types, args, g.activities, strict=True)):
        if isinstance(t, Array):
            if not t.strided and not v.flags.c_contiguous:
                raise CallError(f"argument {i} is not C-contiguous; pass "
                                "np.ascontiguousarray(...)")
            flat.append(_data_pointer(v) if fast or t.strided else v)
            if act == "dup":
                sh = shadows[i]
                if not sh.flags.writeable or sh.strides != v.strides:
                    raise CallError(f"the shadow of argument {i} must be a writable array "
                                    "with the strides of its primal")
                flat.append(_data_pointer(sh) if fast or t.strided else sh)
            flat.extend(abi_extents(t, v))
        else:
            flat.append(v)
    for item, (buf, shadow) in zip(g.outputs, slots, strict=True):
        flat.append(_data_pointer(buf))
        if shadow is not None:
            flat.append(_data_pointer(shadow))
        if isinstance(item, Array):
            flat.extend(buf.shape)
    if g.seeded:
        if isinstance(seed, tuple):
            flat.extend(seed)
        else:
            flat.append(seed)
    # Shapes and dtypes were fixed by the specialization key; the raw call skips the checks.
    r = g.native._cfunc(*flat) if fast else g.native(*flat)
    if g.errors is not None:
        g.errors.check()
    results = list(r) if isinstance(r, tuple) else ([] if r is None else [r])
    primal = None
    rt = g.return_type
    if g.return_primal and isinstance(rt, Tuple) and g.seeded:  # flattened by the wrapper
        primal = convert_result(rt, results[:len(rt.items)])
        results = results[len(rt.items):]
    elif g.return_primal and isinstance(rt, (Scalar, Tuple)):
        primal = convert_result(rt, results.pop(0))
    return primal, results


def shadow_like(v: np.ndarray) -> np.ndarray:
    """A zeroed shadow with `v`'s strides (the gradient reads and writes it at the primal's
    element offsets): `zeros_like` for a C-contiguous array, else a view into a zeroed
    block spanning `v`'s elements."""
    if v.flags.c_contiguous:
        return np.zeros_like(v)
    if v.size == 0:
        return np.zeros(v.shape, v.dtype)
    lo = sum(min(0, (n - 1) * s) for n, s in zip(v.shape, v.strides, strict=True))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(v.shape, v.strides, strict=True))
    block = np.zeros((hi - lo) // v.itemsize + 1, v.dtype)
    start = block[-lo // v.itemsize:]
    return np.lib.stride_tricks.as_strided(start, v.shape, v.strides)


def gradient_of(shadow: np.ndarray) -> np.ndarray:
    """What `grad` returns for an array argument: a C-contiguous copy of a strided shadow."""
    return shadow if shadow.flags.c_contiguous else np.ascontiguousarray(shadow)


def _norm_argnums(argnums: int | Sequence[int], nargs: int, fname: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not -nargs <= a < nargs:
            raise CallError(f"{fname}(): argnums {a} is out of range for {nargs} arguments")
    return tuple(a % nargs for a in nums)


def _scalar_return(g: _Gradient, fname: str) -> None:
    rt = g.return_type
    if not (isinstance(rt, Scalar) and rt.is_float):
        raise EnzymePyError(f"grad of {fname}() needs a function returning one float; it "
                            f"returns {rt} (use vjp or jacrev for tuples and arrays)")


class GradFunction:
    """`grad(f)` / `value_and_grad(f)`."""

    def __init__(self, f: Callable, argnums: int | Sequence[int], with_value: bool,
                 options: Options | None = None) -> None:
        functools.update_wrapper(self, f)  # type: ignore[arg-type]
        self.pyfunc = f
        self.argnums = argnums
        self.with_value = with_value
        self._grads = _GradCache(f, options or Options())
        self._stubs: dict[Any, Any] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != len(self._grads.params):
            args = _complete(self.pyfunc, args, kwargs)
        stub = self._stubs.get(tuple(map(arg_key, args)))
        if stub is not None:
            try:
                return stub(*args)
            except _Overlap:
                pass
        return self._general(args)

    def _general(self, args: Sequence[Any]) -> Any:
        name = self.pyfunc.__name__
        nums = _norm_argnums(self.argnums, len(args), name)
        active = tuple(i in nums for i in range(len(args)))
        g = self._grads.get(args, active, self.with_value, require_scalar=True)
        if not self.with_value:
            alias = len(args) > 1 and overlapping_arrays(args)
            stub = make_grad_stub(g, nums, isinstance(self.argnums, int), not alias)
            if stub is not None and not alias:
                self._stubs[tuple(map(arg_key, args))] = stub
        _scalar_return(g, name)
        shadows = {i: shadow_like(v) for i, (v, act) in enumerate(zip(args, g.activities,
                                                                        strict=True))
                   if act == "dup"}
        seed = 1.0
        primal, outs = _run_gradient(g, args, seed, shadows)
        per_arg: dict[int, Any] = {}
        k = 0
        for i, act in enumerate(g.activities):
            if act == "out":
                per_arg[i] = float(outs[k])
                k += 1
        grads = tuple(per_arg[i] if i in per_arg else gradient_of(shadows[i]) for i in nums)
        result = grads[0] if isinstance(self.argnums, int) else grads
        return (primal, result) if self.with_value else result


def grad(f: Callable | None = None, argnums: int | Sequence[int] = 0, *,
         bounds_check: bool = True) -> Any:
    """The gradient of scalar-valued `f` with respect to argument(s) `argnums` (like jax.grad).

    Usable as `@grad`, `grad(f)`, or `grad(f, argnums=(0, 2))`.
    """
    opts = Options(bounds_check)
    if f is None:
        return lambda g: GradFunction(g, argnums, False, opts)
    return GradFunction(f, argnums, False, opts)


def value_and_grad(f: Callable | None = None, argnums: int | Sequence[int] = 0, *,
                   bounds_check: bool = True) -> Any:
    """Like `grad`, returning `(f(*args), gradient)`."""
    opts = Options(bounds_check)
    if f is None:
        return lambda g: GradFunction(g, argnums, True, opts)
    return GradFunction(f, argnums, True, opts)


def vjp(f: Callable, *args: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """`(f(*args), vjp_fn)` where `vjp_fn(cotangent)` gives one cotangent per argument
    (None for integer arguments), like `jax.vjp`. The value may be a float, an array, or a
    tuple of them; the cotangent has its structure (arrays of its shapes).

    Example::

        def layer(W, x):
            return np.tanh(W @ x)

        y, pullback = vjp(layer, W, x)
        dW, dx = pullback(np.ones_like(y))
    """
    cache = grad_cache_of(f)
    active = tuple(isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")
                   for v in args)
    if carries_arrays(cache.result_type(args)):
        from enzyme_py.api_arrays import array_vjp

        return array_vjp(cache, args, active)
    g = cache.get(args, active, True)
    work = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    primal, _ = _run_gradient(g, work, _zero_seed(g.return_type),
                              {i: shadow_like(work[i]) for i in range(len(args))
                               if g.activities[i] == "dup"})

    def vjp_fn(ct: Any) -> tuple[Any, ...]:
        work = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
        shadows = {i: shadow_like(work[i]) for i in range(len(args))
                   if g.activities[i] == "dup"}
        _, outs = _run_gradient(g, work, ct, shadows)
        return argument_cotangents(g, active, outs, shadows)

    return primal, vjp_fn


def argument_cotangents(g: _Gradient, active: Sequence[bool], outs: Sequence[Any],
                        shadows: dict[int, np.ndarray]) -> tuple[Any, ...]:
    """One cotangent per argument after a gradient call: a float, a C-contiguous array, or
    None (an argument not differentiated)."""
    res: list[Any] = []
    k = 0
    for i, act in enumerate(g.activities):
        if act == "out":
            res.append(float(outs[k]))
            k += 1
        elif act == "dup" and active[i]:
            res.append(gradient_of(shadows[i]))
        else:
            res.append(None)
    return tuple(res)


def grad_cache_of(f: Callable) -> _GradCache:
    """The gradients of `f` compiled so far (kept on `f`, shared by `vjp` and `autodiff`)."""
    cache = getattr(f, "_enzyme_autodiff_cache", None)
    if cache is None:
        cache = _GradCache(f, Options())
        try:
            f._enzyme_autodiff_cache = cache  # type: ignore[attr-defined]
        except AttributeError:
            pass
    return cache


def _zero_seed(t: FType) -> Any:
    if isinstance(t, Tuple):
        return tuple(0.0 for _ in t.items)
    return 0.0


def inactive(f: Callable) -> Callable:
    """Mark a Python function as carrying no derivative (`__enzyme_inactivefn`): calls to it
    from differentiated code contribute nothing to gradients.

    Example::

        @inactive
        def log_value(x):
            return x
    """
    f._enzyme_inactive = True  # type: ignore[attr-defined]
    return f


# --- Enzyme-style autodiff ----------------------------------------------------------------------


@dataclass
class Const:
    """An argument that is not differentiated."""

    value: Any


@dataclass
class Active:
    """A float argument whose adjoint `autodiff` returns."""

    value: float


@dataclass
class Duplicated:
    """An array argument with its shadow `dval`; the gradient is *added* to `dval`."""

    value: np.ndarray
    dval: np.ndarray


@dataclass
class DuplicatedNoNeed(Duplicated):
    """Like `Duplicated`, but the primal results written into `value` are not needed:
    the gradient may leave them unwritten (and not compute them), as Enzyme's
    `enzyme_dupnoneed`. Only the shadow `dval` is meaningful after the call."""


@dataclass
class _Marked:
    args: list = field(default_factory=list)


def autodiff(f: Callable, *args: Any, seed: float = 1.0) -> tuple[float, ...]:
    """Enzyme's `autodiff` in reverse mode: returns the adjoints of `Active` arguments in order;
    `Duplicated` shadows accumulate the gradients of arrays (seeded by their initial contents
    for outputs, as in Enzyme).

    Example::

        x, dx = np.array([1.0, 2.0]), np.zeros(2)
        (da,) = autodiff(f, Duplicated(x, dx), Active(3.0), Const(5))
    """
    cache = grad_cache_of(f)
    values, active, shadows = [], [], {}
    for i, a in enumerate(args):
        if isinstance(a, Duplicated):
            if not isinstance(a.value, np.ndarray) or a.dval.shape != a.value.shape or \
                    a.dval.dtype != a.value.dtype:
                raise CallError(f"autodiff: argument {i}: the shadow must be an array of the "
                                "same shape and dtype as the value")
            values.append(a.value)
            active.append(True)
            shadows[i] = a.dval
        elif isinstance(a, Active):
            values.append(a.value)
            active.append(True)
        elif isinstance(a, Const):
            values.append(a.value)
            active.append(False)
        else:
            raise CallError(f"autodiff: argument {i} must be Const(...), Active(...) or "
                            f"Duplicated(...), not {type(a).__name__}")
    noneed = tuple(isinstance(a, DuplicatedNoNeed) for a in args)
    g = cache.get(values, tuple(active), False, dupnoneed=noneed if any(noneed) else ())
    for i, act in enumerate(g.activities):
        if act == "dup" and i not in shadows:
            shadows[i] = np.zeros_like(values[i])  # written but not differentiated
    _, outs = _run_gradient(g, values, seed, shadows)
    return tuple(float(o) for o in outs)


def show(f: Callable, *args: Any, stage: str = "gradient", argnums: int | Sequence[int] = 0,
         preoptimize: bool = False) -> str:
    """The IR of `f` for these arguments at a stage: `python` (our IR of the function),
    `preprocessed` (canonicalized for AD), `activity`, `gradient` (before optimization), or
    `optimized`. `grad` runs LLVM's -O2 on `f` before differentiating it; the stages skip
    that step, which keeps them close to the source, unless `preoptimize` is true (then they
    show exactly the code `grad` differentiates and runs)."""
    from enzyme_py.ad.driver import gradient_module

    pyfunc = getattr(f, "pyfunc", f)
    types = arg_types(pyfunc.__name__, _params(pyfunc), args)
    module, compiled, _ = _build(pyfunc, types, Options(), True)
    if stage == "python":
        return str(module)
    stages: dict[str, str] = {}
    nums = _norm_argnums(argnums, len(args), pyfunc.__name__)
    acts: list[str] = []
    for i, t in enumerate(types):
        if isinstance(t, Array):
            acts.append("dup" if i in nums else "const")
            acts.extend(["const"] * t.extents)
        else:
            acts.append("out" if i in nums and isinstance(t, Scalar) and t.is_float else "const")
    rt = compiled.return_type
    if preoptimize:  # the module exactly as `grad` differentiates it
        module = optimize_before_ad(module, 2)
    gradient_module(module, compiled.function.name or "", acts,
                    isinstance(rt, Scalar) and rt.is_float,
                    on_stage=lambda name, m: stages.__setitem__(name, str(m)))
    key = {"preprocessed": "lcssa", "activity": "activity", "gradient": "gradient",
           "optimized": "O2"}.get(stage)
    if key is None or key not in stages:
        raise ValueError(f"unknown stage {stage!r}: use python, preprocessed, activity, "
                         "gradient or optimized")
    return stages[key]
