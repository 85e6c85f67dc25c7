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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from enzyme_py import backend
from enzyme_py.array_results import (
    Item,
    add_output_wrapper,
    carries_arrays,
    result_items,
    slot_activities,
)
from enzyme_py.backend import _DATA_OFFSET, _data_pointer
from enzyme_py.caches import FunctionCache
from enzyme_py.calling import (
    ErrorRecord,
    _Overlap,
    arg_key,
    arg_types,
    checked_int,
    convert_result,
    error_record,
    make_grad_stub,
    make_stub,
    overlapping_arrays,
    reject_read_only_writes,
)
from enzyme_py.errors import (
    ArgnumsError,
    ArgumentValueError,
    CallError,
    EnzymePyError,
    NotDifferentiableError,
)
from enzyme_py.fastmath import add_fast_math, fast_math_flags
from enzyme_py.frontend import Array, Compiled, FType, Scalar, Tuple, compile_python
from enzyme_py.frontend.ftypes import NONE, Tree, abi_extents, tree_leaves
from enzyme_py.ir import Function, Module
from enzyme_py.ir import parse as parse_module
from enzyme_py.passes import OptLevel
from enzyme_py.pytree import Flattened, Node, flatten_all, flattened, is_container, node_of_type

__all__ = ["Active", "Const", "Duplicated", "DuplicatedNoNeed", "autodiff", "grad",
           "inactive", "jit", "show", "value_and_grad", "vjp"]


@dataclass
class Options:
    """Compilation options (an explicit object, never global flags)."""

    bounds_check: bool = True
    opt_level: int = 2
    # "numpy": math functions and float division give IEEE results (nan, inf), unchecked;
    # "python": math.* domain errors and float division by zero raise as in Python
    errors: str = "numpy"
    # LLVM fast-math flags on the primal and the gradient (see `fastmath`); () is IEEE-exact
    fastmath: Any = False

    def __post_init__(self) -> None:
        if self.errors not in ("numpy", "python"):
            raise ArgumentValueError(f"errors must be 'numpy' or 'python', not "
                                     f"{self.errors!r}")
        self.fast_flags = fast_math_flags(self.fastmath)
        if self.python_errors and {"fast", "nnan", "ninf"} & set(self.fast_flags):
            raise ArgumentValueError("errors='python' detects NaN and infinite results, which "
                                     "fastmath's nnan/ninf flags assume away; drop one or pass "
                                     "fastmath={'reassoc', 'contract', ...}")

    @property
    def python_errors(self) -> bool:
        return self.errors == "python"


# --- primal compilation -------------------------------------------------------------------------


@dataclass
class _Primal:
    compiled: Compiled
    module: Module
    stub: Any  # the generated fast caller (see calling.make_stub)


def _params(f: Callable) -> list[str]:
    if isinstance(f, Flattened):
        return f.params
    code = getattr(f, "__code__", None)
    return list(code.co_varnames[:code.co_argcount]) if code else []


def _flattened(f: Callable, args: Sequence[Any]) -> tuple[Flattened, list[Any]]:
    """`f` as a function of the leaves of `args` (pytrees), and those leaves."""
    leaves, trees = flatten_all(args)
    return flattened(f, trees, _params(f)), leaves


# the structure of results that are trees, per function and leaf types, built so far
_RESULT_NODES = FunctionCache()


def result_node(f: Callable, types: tuple[FType, ...]) -> Node | None:
    """The structure of `f`'s result for these argument types when it is a tree (the
    compiled code returns its leaves as a flat tuple), else None. Valid after `_build`."""
    return _RESULT_NODES.get(f, _node_key(types))


def _node_key(types: tuple[FType, ...]) -> tuple[FType, ...]:
    return tuple(t.value if isinstance(t, Array) else t for t in types)


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
    """`f` compiled for `types` into a fresh module. A `Flattened` f is compiled with its
    arguments' tree types (its IR takes the leaves); a result that is a tree becomes the
    flat tuple of its leaves (`result_node` keeps its structure)."""
    pyfunc, tree_types = (f.f, f.argument_types(types)) if isinstance(f, Flattened) else \
        (f, types)
    module, compiled, session = compile_python(pyfunc, tree_types,
                                               bounds_check=options.bounds_check,
                                               noalias=noalias,
                                               python_errors=options.python_errors)
    if isinstance(f, Flattened):
        compiled = replace(compiled, arg_types=types, param_names=list(f.params))
    if isinstance(compiled.return_type, Tree):
        _RESULT_NODES.put(f, _node_key(types), node_of_type(compiled.return_type))
        compiled = replace(compiled, return_type=Tuple(tuple(tree_leaves(compiled.return_type))))
    if noalias:
        for arg in compiled.function.args:
            if arg.type.is_pointer:
                arg.attrs = ["noalias"]
    add_fast_math(module, options.fast_flags)
    return module, compiled, session


class JitFunction:
    """`jit(f)`: `f` compiled natively, one specialization per argument signature.

    A result that is a tree comes back rebuilt (`rebuild_trees`, the public form) or as the
    flat tuple of its leaves (the form the differentiation entry points work on)."""

    def __init__(self, f: Callable, options: Options | None = None,
                 rebuild_trees: bool = True) -> None:
        if not isinstance(f, Flattened):
            functools.update_wrapper(self, f)  # type: ignore[arg-type]
        self.pyfunc = f
        self.options = options or Options()
        self.rebuild_trees = rebuild_trees
        self.params = _params(f)
        self._cache: dict[Any, _Primal] = {}
        self._leaf_jits: dict[Flattened, JitFunction] = {}  # per structure of pytree arguments

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
        """Compile for these argument types (without `noalias` if arrays overlap). Pytree
        arguments go to the `jit` of `f` over their leaves (never into `_cache`: a
        container's key would not tell its structure)."""
        if any(is_container(a) for a in args):
            return self._over_leaves(args)
        key = tuple(map(arg_key, args))
        types = arg_types(self.pyfunc.__name__, self.params, args)
        alias = overlapping_arrays(args)
        spec = self._cache.get((key, alias))
        if spec is None:
            module, compiled, session = _build(self.pyfunc, types, self.options, not alias)
            if any(isinstance(a, np.ndarray) and not a.flags.writeable for a in args):
                # read-only arrays get their own specialization (`arg_key`): refused if the
                # code may write them (read off the optimized code, as for gradients)
                optimized = optimize_before_ad(parse_module(str(module)), self.options.opt_level)
                written = _written_arrays(optimized.get_function(compiled.function.name or ""),
                                          types)
                reject_read_only_writes(self.pyfunc.__name__, self.params, args, written)
            jm = backend.compile_ir(str(module), opt_level=self.options.opt_level)
            native = jm.function(compiled.function.name or "")
            stub = make_stub(native, types, compiled.return_type, error_record(jm, session),
                             not alias)
            node = result_node(self.pyfunc, types)
            if node is not None and self.rebuild_trees:  # a tree result, rebuilt
                stub = _rebuilding(stub, node)
            spec = _Primal(compiled, module, stub)
            self._cache[(key, alias)] = spec
            if not alias:
                self._cache[key] = spec
        return spec.stub

    def _over_leaves(self, args: Sequence[Any]) -> Callable[..., Any]:
        flat, _ = _flattened(self.pyfunc, args)
        inner = self._leaf_jits.get(flat)
        if inner is None:
            inner = self._leaf_jits[flat] = JitFunction(flat, self.options,
                                                        self.rebuild_trees)
        return lambda *a: inner(*flatten_all(a)[0])

    def ir(self, *args: Any, optimized: bool = False) -> str:
        """The LLVM IR of this function for these argument types."""
        if any(is_container(a) for a in args):
            flat, leaves = _flattened(self.pyfunc, args)
            return JitFunction(flat, self.options).ir(*leaves, optimized=optimized)
        types = arg_types(self.pyfunc.__name__, self.params, args)
        module, _, _ = _build(self.pyfunc, types, self.options, True)
        return backend.optimize(str(module), self.options.opt_level) if optimized else str(module)


def _rebuilding(stub: Callable[..., Any], node: Node) -> Callable[..., Any]:
    return lambda *args: node.unflatten(stub(*args))


def jit(f: Callable | None = None, *, bounds_check: bool = True, opt_level: int = 2,
        errors: str = "numpy", fastmath: Any = False) -> Any:
    """Compile `f` (a function of the numeric Python subset) to native code.

    `fastmath` (True, or a set such as `{"reassoc", "contract"}`: see `enzyme_py.fastmath`)
    puts LLVM's fast-math flags on the code, as Numba's option does: sums may be reordered
    (reductions vectorize), results may differ in the last bits; the default is IEEE-exact.

    `errors` chooses what a math domain error or a float division by zero does. The default,
    `"numpy"`, gives IEEE results without any check, as NumPy does (and as fast as C):
    `math.sqrt(-4.0)` is nan, `math.log(0.0)` is -inf, `1.0 / 0.0` is inf. With
    `errors="python"`, `math.*` functions and arithmetic on Python numbers raise as Python
    does, naming the source line: `ValueError: math domain error` (sqrt of a negative, log
    of x <= 0, acos outside [-1, 1], ...), `OverflowError: math range error` (math.exp,
    math.pow ... overflowing), `ZeroDivisionError` (`x / 0.0`, `x // 0.0`, `x % 0.0`,
    math.log with base 1). NumPy functions and array arithmetic keep NumPy's IEEE results
    in both modes. Integer `//` and `%` by zero always raise `ZeroDivisionError`.

    Example::

        @jit
        def norm2(x):
            s = 0.0
            for i in range(len(x)):
                s += x[i] * x[i]
            return s

        @jit(errors="python")
        def root(x):
            return math.sqrt(x)  # root(-4.0): ValueError: math domain error, at this line
    """
    opts = Options(bounds_check, opt_level, errors, fastmath)
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
    from enzyme_py.analysis.memory_effects import written_arguments

    written, flat, idx = written_arguments(fn), 0, set()
    for i, t in enumerate(arg_types):
        if isinstance(t, Array) and flat in written:
            idx.add(i)
        flat += 1 + t.extents if isinstance(t, Array) else 1
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
            self._jit = JitFunction(self.f, self.options, rebuild_trees=False)
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
            raise NotDifferentiableError(f"grad of {name}() needs a function returning one "
                                         f"float; it returns {rt0} (use vjp or jacrev for "
                                         "tuples and arrays)")
        outputs: tuple[Item, ...] = ()
        fname = compiled.function.name or ""
        if carries_arrays(rt0):
            if not array_results:
                raise NotDifferentiableError(f"{name}() returns {rt0}; differentiate it "
                                             "with vjp, jacrev or jacfwd")
            outputs = result_items(rt0, name)
            fname = add_output_wrapper(session, compiled, self.f)
        # Differentiate after optimization (the primal at -O2), then optimize the gradient;
        # which arrays are written is read off the optimized code (no stack copies of the
        # array pointers there).
        module = optimize_before_ad(module, self.options.opt_level)
        # (the output slots after them are written by construction)
        written = _written_arrays(module.get_function(fname), compiled.arg_types)
        reject_read_only_writes(name, self.params, args, written)
        acts: list[str] = []
        flat_acts: list[str] = []
        for i, t in enumerate(types):
            if isinstance(t, Array):
                if active[i] and not t.elem.is_float:
                    raise NotDifferentiableError(
                        f"{name}(): argument {i} ('{self.params[i]}') is an integer array; "
                        "only float arrays can be differentiated (grad requires real-valued "
                        "inputs, as in jax.grad)")
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
                    raise NotDifferentiableError(
                        f"{name}(): argument {i} ('{self.params[i]}') is {t}; only float "
                        "arguments can be differentiated (grad requires real-valued inputs, "
                        "as in jax.grad)")
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
        add_fast_math(out, self.options.fast_flags)  # the adjoint code too
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
                raise ArgumentValueError(f"argument {i} is not C-contiguous; pass "
                                         "np.ascontiguousarray(...)")
            flat.append(_data_pointer(v) if fast or t.strided else v)
            if act == "dup":
                sh = shadows[i]
                if not sh.flags.writeable or sh.strides != v.strides:
                    raise ArgumentValueError(f"the shadow of argument {i} must be a writable "
                                             "array with the strides of its primal")
                flat.append(_data_pointer(sh) if fast or t.strided else sh)
            flat.extend(abi_extents(t, v))
        elif isinstance(t, Scalar) and t.is_int:
            flat.append(checked_int(t, i, v))
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
            raise ArgnumsError(f"{fname}(): argnums {a} is out of range for {nargs} "
                               "arguments")
    return tuple(a % nargs for a in nums)


def _scalar_return(g: _Gradient, fname: str) -> None:
    rt = g.return_type
    if not (isinstance(rt, Scalar) and rt.is_float):
        raise NotDifferentiableError(f"grad of {fname}() needs a function returning one "
                                     f"float; it returns {rt} (use vjp or jacrev for tuples "
                                     "and arrays)")


class GradFunction:
    """`grad(f)` / `value_and_grad(f)`."""

    def __init__(self, f: Callable, argnums: int | Sequence[int], with_value: bool,
                 options: Options | None = None, has_aux: bool = False) -> None:
        if not isinstance(f, Flattened):
            functools.update_wrapper(self, f)  # type: ignore[arg-type]
        self.pyfunc = f
        self.argnums = argnums
        self.with_value = with_value
        self.has_aux = has_aux
        self.options = options or Options()
        self._grads = _GradCache(f, self.options)
        self._stubs: dict[Any, Any] = {}
        self._leaf_grads: dict[tuple[Flattened, tuple[int, ...]], GradFunction] = {}
        self._aux_caches: dict[Flattened, _GradCache] = {}

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

    def _structured(self, args: Sequence[Any]) -> Any:
        """Pytree arguments or `has_aux`: the gradient over the leaves, regrouped."""
        flat, leaves = _flattened(self.pyfunc, args)
        nums = _norm_argnums(self.argnums, len(args), flat.__name__)
        leaf_nums = tuple(j for i in nums for j in flat.leaf_range(i))
        if self.has_aux:
            cache = self._aux_caches.get(flat)
            if cache is None:
                cache = self._aux_caches[flat] = _GradCache(flat, self.options)
            value, aux, grads = _gradient_with_aux(cache, leaves, leaf_nums)
        elif not leaf_nums:  # only empty structures (None, ()) are differentiated
            value = self._grads.jit(*args) if self.with_value else None
            grads = ()
        else:
            inner = self._leaf_grads.get((flat, leaf_nums))
            if inner is None:
                inner = GradFunction(flat, leaf_nums, self.with_value, self.options)
                self._leaf_grads[(flat, leaf_nums)] = inner
            r = inner(*leaves)
            value, grads = r if self.with_value else (None, r)
        per_arg = flat.regroup(nums, grads)
        result = per_arg[0] if isinstance(self.argnums, int) else tuple(per_arg)
        if self.has_aux:
            return ((value, aux), result) if self.with_value else (result, aux)
        return (value, result) if self.with_value else result

    def _general(self, args: Sequence[Any]) -> Any:
        if self.has_aux or any(is_container(a) for a in args):
            return self._structured(args)
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
         has_aux: bool = False, bounds_check: bool = True, errors: str = "numpy",
         fastmath: Any = False) -> Any:
    """The gradient of scalar-valued `f` with respect to argument(s) `argnums` (like jax.grad).

    Usable as `@grad`, `grad(f)`, or `grad(f, argnums=(0, 2))`; `errors` and `fastmath` as
    for `jit` (fast-math flags go on the gradient's code too).
    Arguments may be pytrees (dicts, tuples, lists, NamedTuples, dataclasses of arrays and
    floats, nested): the gradient of one comes back in its structure. With `has_aux`, `f`
    returns `(value, aux)` and the result is `(gradient, aux)`.
    """
    opts = Options(bounds_check, errors=errors, fastmath=fastmath)
    if f is None:
        return lambda g: GradFunction(g, argnums, False, opts, has_aux)
    return GradFunction(f, argnums, False, opts, has_aux)


def value_and_grad(f: Callable | None = None, argnums: int | Sequence[int] = 0, *,
                   has_aux: bool = False, bounds_check: bool = True,
                   errors: str = "numpy", fastmath: Any = False) -> Any:
    """Like `grad`, returning `(f(*args), gradient)` (`((value, aux), gradient)` with
    `has_aux`)."""
    opts = Options(bounds_check, errors=errors, fastmath=fastmath)
    if f is None:
        return lambda g: GradFunction(g, argnums, True, opts, has_aux)
    return GradFunction(f, argnums, True, opts, has_aux)


def vjp(f: Callable, *args: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """`(f(*args), vjp_fn)` where `vjp_fn(cotangent)` gives one cotangent per argument
    (None for integer arguments), like `jax.vjp`. The value may be a float, an array, or a
    pytree of them (tuples, dicts, ...); the cotangent has its structure (arrays of its
    shapes). Arguments may be pytrees; their cotangents come back in their structure. With
    `has_aux`, `f` returns `(value, aux)` and the result is `(value, vjp_fn, aux)`.

    Example::

        def layer(W, x):
            return np.tanh(W @ x)

        y, pullback = vjp(layer, W, x)
        dW, dx = pullback(np.ones_like(y))
    """
    if has_aux or any(is_container(a) for a in args):
        return _structured_vjp(f, args, has_aux)
    active = tuple(isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")
                   for v in args)
    return _vjp(grad_cache_of(f), args, active)


def _structured_vjp(f: Callable, args: Sequence[Any], has_aux: bool) -> tuple[Any, ...]:
    """`vjp` over the leaves of pytree arguments; the value (and aux) rebuilt as trees."""
    flat, leaves = _flattened(f, args)
    cache = grad_cache_of(flat)
    node = result_structure(cache, leaves)
    active = tuple(isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")
                   for v in leaves)
    value, pullback = _vjp(cache, leaves, active)
    values = _result_leaves(value, node)
    out_node = node
    if has_aux:
        out_node = _aux_split(node, flat.__name__)
        n_value = out_node.num_leaves
        aux = node.children[1].unflatten(values[n_value:])
    else:
        n_value = len(values)

    def vjp_fn(ct: Any) -> tuple[Any, ...]:
        parts, ct_node = flatten_all([ct])
        if ct_node[0] != out_node:
            raise ArgumentValueError(f"vjp of {flat.__name__}(): the cotangent has "
                                     f"structure {ct_node[0]}; the value's is {out_node}")
        zeros = [_zero_like(v) for v in values[n_value:]]
        return tuple(flat.regroup(range(len(args)), pullback(_as_result(parts + zeros,
                                                                          node))))

    primal = out_node.unflatten(values[:n_value])
    return (primal, vjp_fn, aux) if has_aux else (primal, vjp_fn)


def _vjp(cache: _GradCache, args: Sequence[Any], active: tuple[bool, ...]
         ) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """`vjp` of `cache.f` on flat arguments, cotangents for the `active` ones."""
    if carries_arrays(cache.result_type(args)):
        from enzyme_py.api_arrays import array_vjp

        return array_vjp(cache, args, active)
    g = cache.get(args, active, True)
    work = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
    primal, _ = _run_gradient(g, work, _zero_seed(g.return_type),
                              {i: shadow_like(work[i]) for i in range(len(args))
                               if g.activities[i] == "dup"})

    def vjp_fn(ct: Any) -> tuple[Any, ...]:
        seed = _number_cotangent(g.return_type, ct, cache.f.__name__)
        work = [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]
        shadows = {i: shadow_like(work[i]) for i in range(len(args))
                   if g.activities[i] == "dup"}
        _, outs = _run_gradient(g, work, seed, shadows)
        return argument_cotangents(g, active, outs, shadows)

    return primal, vjp_fn


def _number_cotangent(rt: FType, ct: Any, fname: str) -> Any:
    """The seed for a result of numbers: a float (a tuple of them, ints for int items) from
    a cotangent of the value's structure, else `ArgumentValueError`."""
    items = rt.items if isinstance(rt, Tuple) else (rt,)
    parts = ct if isinstance(rt, Tuple) else (ct,)
    if isinstance(rt, Tuple) and (not isinstance(ct, tuple | list) or len(ct) != len(items)):
        raise ArgumentValueError(f"vjp of {fname}(): the cotangent must be a tuple of "
                                 f"{len(items)} numbers, like the value; got {ct!r}")
    seed = []
    for k, (item, c) in enumerate(zip(items, parts, strict=True)):
        if np.ndim(c) != 0 or not isinstance(c, float | int | np.number | np.ndarray) or \
                isinstance(c, bool):
            raise ArgumentValueError(f"vjp of {fname}(): cotangent {k} must be a number "
                                     f"(the value's is {item}); got {c!r}")
        floating = isinstance(item, Scalar) and item.is_float
        seed.append(float(c) if floating else 0)
    return tuple(seed) if isinstance(rt, Tuple) else seed[0]


def result_structure(cache: _GradCache, args: Sequence[Any]) -> Node:
    """The structure of `cache.f`'s result for these (flat) arguments."""
    rt = cache.result_type(args)
    node = result_node(cache.f, arg_types(cache.f.__name__, cache.params, args))
    return node if node is not None else node_of_type(rt)


def _result_leaves(value: Any, node: Node) -> list[Any]:
    """A flat result's leaves (a tuple for several, the value for one)."""
    if node.kind == "leaf":
        return [value]
    return list(value) if isinstance(value, tuple) else [value]


def _as_result(leaves: list[Any], node: Node) -> Any:
    """Per-leaf values (cotangents) in the form the flat machinery takes for this result."""
    return leaves[0] if node.kind == "leaf" else tuple(leaves)


def _zero_like(v: Any) -> Any:
    """A zero cotangent for a result leaf (of its type: ints stay ints)."""
    return np.zeros_like(v) if isinstance(v, np.ndarray) else type(v)(0)


def _aux_split(node: Node, fname: str) -> Node:
    """The value's structure of a `has_aux` result `(value, aux)`."""
    if node.kind != "tuple" or len(node.children) != 2:
        raise CallError(f"has_aux=True requires {fname}() to return a pair (value, aux); it "
                        f"returns {node}")
    return node.children[0]


def _gradient_with_aux(cache: _GradCache, args: Sequence[Any], nums: tuple[int, ...]
                       ) -> tuple[float, Any, tuple[Any, ...]]:
    """`grad(f, nums, has_aux=True)` on flat arguments: (value, aux, gradients of `nums`)."""
    fname = cache.f.__name__
    node = result_structure(cache, args)
    if _aux_split(node, fname).kind != "leaf":
        raise CallError(f"has_aux=True: the value {fname}() returns first must be one float")
    rt = cache.result_type(args)
    assert isinstance(rt, Tuple)
    if not (isinstance(rt.items[0], Scalar) and rt.items[0].is_float):
        raise NotDifferentiableError(f"grad of {fname}() needs a value that is one float; "
                                     f"it is {rt.items[0]}")
    active = tuple(i in nums for i in range(len(args)))
    value, pullback = _vjp(cache, args, active)
    values = list(value)
    ct = [1.0] + [_zero_like(v) for v in values[1:]]
    cots = pullback(tuple(ct))
    return values[0], node.children[1].unflatten(values[1:]), tuple(cots[i] for i in nums)


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
    """A zero seed of a result: ints for integer items (the seed struct keeps their type)."""
    if isinstance(t, Tuple):
        return tuple(0.0 if isinstance(i, Scalar) and i.is_float else 0 for i in t.items)
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
            if not isinstance(a.value, np.ndarray) or not isinstance(a.dval, np.ndarray) or \
                    a.dval.dtype != a.value.dtype:
                raise CallError(f"autodiff: argument {i}: the value and its shadow must be "
                                "arrays of the same dtype")
            if a.dval.shape != a.value.shape:
                raise ArgumentValueError(f"autodiff: argument {i}: the shadow has shape "
                                         f"{a.dval.shape}, the value {a.value.shape}")
            values.append(a.value)
            active.append(True)
            shadows[i] = a.dval
        elif isinstance(a, Active):
            if not isinstance(a.value, float | np.floating):
                raise NotDifferentiableError(
                    f"autodiff: argument {i}: Active takes a float, not "
                    f"{type(a.value).__name__}" + ("; pass an array as Duplicated(x, dx)"
                                                   if isinstance(a.value, np.ndarray) else ""))
            values.append(a.value)
            active.append(True)
        elif isinstance(a, Const):
            values.append(a.value)
            active.append(False)
        else:
            raise CallError(f"autodiff: argument {i} must be Const(...), Active(...) or "
                            f"Duplicated(...), not {type(a).__name__}")
    # A shadow that shares memory with a value or with another shadow would have the gradient
    # overwrite what it reads (`Duplicated(x, x)` would leave a wrong gradient in x).
    arrays = [(j, "value", v) for j, v in enumerate(values) if isinstance(v, np.ndarray)]
    arrays += [(j, "shadow", d) for j, d in shadows.items()]
    for i, dval in shadows.items():
        for j, kind, other in arrays:
            if (j, kind) == (i, "shadow") or not np.may_share_memory(dval, other):
                continue
            try:
                overlap = np.shares_memory(dval, other, max_work=10**6)
            except RuntimeError:  # numpy's TooHardError: too costly to decide, so refuse
                overlap = True
            if overlap:
                whose = "its value" if (j, kind) == (i, "value") else \
                    f"the {kind} of argument {j}"
                raise ArgumentValueError(f"autodiff: argument {i}: the shadow shares memory "
                                         f"with {whose}; give each shadow its own array "
                                         "(np.zeros_like(value))")
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
    # (the stages are the driver's pass names: the gradient is shown after `dupnoneed`)
    key = {"preprocessed": "lcssa", "activity": "print-activity", "gradient": "dupnoneed",
           "optimized": "O2"}.get(stage)
    if key is None or key not in stages:
        raise ValueError(f"unknown stage {stage!r}: use python, preprocessed, activity, "
                         "gradient or optimized")
    return stages[key]
