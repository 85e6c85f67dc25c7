"""Compiled gradients (`Gradient`) and their per-function cache (`GradCache`), and how Python
arguments, shadows and seeds meet the native `diffe_f` (`run_gradient`).

Invariants: a gradient is built once per (signature, activities, options) key; shadows are
allocated and zeroed here, so users never see them; the config reaches the AD pipeline
unchanged (`gradient_module(..., self.options, opt_level=0)`: the backend optimizes once).

Optimistic gradients: a caller that allocates the shadows itself and can run the gradient
again (`retrying`) may get a gradient compiled without the checked copies of versioned loops
(`compile_python(optimistic=True)`): where a loop's bounds test fails, it stops and asks for
the checked version (`ChecksNeeded`), which then runs from the start on fresh shadows. The
checked copies double those loops and their reverse (the gradient of GMM compiles in ~25 %
less time, LSTM's and the stencils' run faster). Both versions give the same results, since
an optimistic gradient is used only where a rerun sees the same inputs: `f` writes none of
its arrays, returns no arrays, and the caller's shadows are its own.
"""

from __future__ import annotations

import linecache
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np

from enzyme_py.analysis.activities import Activity
from enzyme_py.api.compile import (
    build_module,
    only_export,
    optimize_before_ad,
    param_names,
    written_arrays,
)
from enzyme_py.api.disk_cache import entry_path, load, store
from enzyme_py.api.jit import JitFunction, link_stored
from enzyme_py.array_results import (
    Item,
    add_output_wrapper,
    carries_arrays,
    result_items,
    slot_activities,
)
from enzyme_py.backend import _DATA_OFFSET, _data_pointer
from enzyme_py.calling import (
    ChecksNeeded,
    ErrorRecord,
    arg_key,
    arg_types,
    checked_int,
    compile_checked,
    convert_result,
    overlapping_arrays,
    reject_read_only_writes,
)
from enzyme_py.collector import while_compiling
from enzyme_py.config import Config
from enzyme_py.errors import (
    ArgumentValueError,
    EnzymePyError,
    NotDifferentiableError,
)
from enzyme_py.frontend import Array, FType, Scalar, Tuple
from enzyme_py.frontend.ftypes import NONE, abi_extents
from enzyme_py.frontend.session import TAPE, TAPE_CHECKPOINTED, ErrorSite
from enzyme_py.ir import Module
from enzyme_py.passes import OptLevel
from enzyme_py.stage_times import stage


@dataclass
class Gradient:
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
    # an optimistic gradient (it may raise `ChecksNeeded`): its key in `GradCache.get`
    optimistic_key: Any = None


class GradCache:
    def __init__(self, f: Callable, options: Config) -> None:
        self.f = f
        self.options = options
        self.params = param_names(f)
        self.cache: dict[Any, Gradient] = {}
        self.result_types: dict[Any, FType] = {}
        self._jit: JitFunction | None = None
        self.checked_keys: set[Any] = set()  # keys whose optimistic gradient asked for checks

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
            compiled = build_module(self.f, types, self.options, True)[1]
            t = self.result_types[key] = compiled.return_type
        return t

    def get(self, args: Sequence[Any], active: tuple[bool, ...], return_primal: bool,
            seeded_return: bool = True, dupnoneed: tuple[bool, ...] = (),
            require_scalar: bool = False, array_results: bool = False,
            optimistic: bool = False) -> Gradient:
        """The gradient for these argument types. `array_results`: the caller passes output
        slots for an array-returning f (their shadows seeded with the cotangent).
        `optimistic`: the caller runs it through `retrying`, so it may be an optimistic
        gradient (see the module docstring)."""
        key = (tuple(map(arg_key, args)), active, return_primal, seeded_return, dupnoneed,
               len(args) > 1 and overlapping_arrays(args), array_results)
        optimistic = optimistic and self.options.bounds_check and not array_results and \
            not dupnoneed and key not in self.checked_keys
        g = self.cache.get((key, optimistic))
        if g is None:
            disk = entry_path("grad", self.f, (key, require_scalar, optimistic),
                              self.options) if self.options.cache else None
            g = _from_disk(disk, self.f) if disk is not None else None
            if g is None:
                g = self._compile(args, active, return_primal, seeded_return, key[-2],
                                  require_scalar, dupnoneed, array_results, disk,
                                  key if optimistic else None)
            self.cache[(key, optimistic)] = g
        return g

    @while_compiling
    def _compile(self, args: Sequence[Any], active: tuple[bool, ...], return_primal: bool,
                 seeded_return: bool, alias: bool, require_scalar: bool,
                 dupnoneed: tuple[bool, ...] = (), array_results: bool = False,
                 disk: Any = None, optimistic_key: Any = None) -> Gradient:
        from enzyme_py.ad.driver import gradient_module
        from enzyme_py.ad.prepare_passes import canonical_after_optimizing

        name = self.f.__name__
        types = arg_types(name, self.params, args)
        module, compiled, session = build_module(self.f, types, self.options, not alias,
                                                 optimistic=optimistic_key is not None,
                                                 reverse_mode=True)
        if not session.retry_site:
            optimistic_key = None  # (no versioned loop: the gradient is the checked one)
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
        then = canonical_after_optimizing(module, [fname]) if \
            self.options.inline and self.options.opt_level > 0 else ()
        module = optimize_before_ad(module, self.options.opt_level, then)
        # (the output slots after them are written by construction)
        written = written_arrays(module.get_function(fname), compiled.arg_types)
        reject_read_only_writes(name, self.params, args, written)
        if optimistic_key is not None and written:  # a rerun would see the changed arrays
            return self._compile(args, active, return_primal, seeded_return, alias,
                                 require_scalar, dupnoneed, array_results, disk)
        acts: list[str] = []
        flat_acts: list[str] = []
        for i, t in enumerate(types):
            if isinstance(t, Array):
                if active[i] and not t.elem.is_float:
                    raise NotDifferentiableError(
                        f"{name}(): argument {i} ('{self.params[i]}') is an integer array; "
                        "only float arrays can be differentiated (grad requires real-valued "
                        "inputs, as in jax.grad)")
                act = Activity.DUP if active[i] or i in written else Activity.CONST
                acts.append(act)
                # DuplicatedNoNeed: the same call, but the primal values written there are
                # not needed (the gradient may skip computing them)
                noneed = act == Activity.DUP and i < len(dupnoneed) and dupnoneed[i]
                flat_acts.append(Activity.DUPNONEED if noneed else act)
                flat_acts.extend([Activity.CONST] * t.extents)
            else:
                assert isinstance(t, Scalar)
                if active[i] and not t.is_float:
                    raise NotDifferentiableError(
                        f"{name}(): argument {i} ('{self.params[i]}') is {t}; only float "
                        "arguments can be differentiated (grad requires real-valued inputs, "
                        "as in jax.grad)")
                act = Activity.OUT if active[i] else Activity.CONST
                acts.append(act)
                flat_acts.append(act)
        # the slots of an array result: their primal values are not needed (the value comes
        # from `jit`), their shadows are the cotangent
        flat_acts += slot_activities(outputs, Activity.DUPNONEED)
        rt = NONE if outputs else compiled.return_type
        ret_active = seeded_return and (
            (isinstance(rt, Scalar) and rt.is_float) or
            (isinstance(rt, Tuple) and any(x.is_float for x in rt.items)))
        # (the gradient module is optimized once, by the backend at the config's level; the
        # pipeline puts the config's fast-math flags on the adjoint code too)
        with stage("AD pipeline"):
            out, gname = gradient_module(module, fname, flat_acts, ret_active, self.options,
                                         opt_level=0, handed_over=True,
                                         array_extents=_array_extents(types),
                                         prepared=bool(then),
                                         return_primal=return_primal and not outputs)
        report_tape_failures(out, gname, session, self.f, self.options.checkpointing)
        if ret_active and isinstance(rt, Tuple):
            gname = _flat_seed_wrapper(out, gname)
        only_export(out, gname)
        jm, errors = compile_checked(out, session, gname, self.options.opt_level,
                                     keep_object=disk is not None)
        native = jm.function(gname)
        g = Gradient(native, errors, types, acts, rt,
                     return_primal and not outputs, ret_active, outputs, optimistic_key)
        if disk is not None:
            store(disk, self.f, session.global_reads, {
                "ir": jm.ir, "object": jm.object, "manifest": jm.manifest, "name": gname,
                "error_name": session.error_name,
                "sites": session.sites, "opt_level": self.options.opt_level,
                "per_call": errors is not None and errors.per_call,
                "gradient": replace(g, native=None, errors=None)})
        return g


def report_tape_failures(module: Module, gradient: str, session: Any, f: Callable,
                         checkpointed: bool = False) -> None:
    """A failed tape allocation of `gradient` records a site of `f` (its `def` line) in
    `session`'s error record and returns, so the caller raises `MemoryError`
    (`ad.tape_checks.report_to_record`); so does one in a function it calls (a checkpoint
    block's derivative, a recursive callee's gradient), passed up through each caller.
    `checkpointed`: the gradient's time loops are checkpointed (the message's hint says so
    instead of suggesting it)."""
    from enzyme_py.ad.tape_checks import report_to_record

    code = getattr(f, "__code__", None)
    filename = code.co_filename if code is not None else "<unknown>"
    line = code.co_firstlineno if code is not None else 0
    source = linecache.getline(filename, line).strip() or f"def {f.__name__}(...)"
    site = session.add_site(ErrorSite(filename, line, source,
                                      TAPE_CHECKPOINTED if checkpointed else TAPE, 0))
    report_to_record(module, gradient, session.error_name, site)


def reported_gradient(module: Module, function: str, activities: Sequence[str],
                      return_active: bool, session: Any, f: Callable, opt_level: int = 2,
                      handed_over: bool = False) -> tuple[Module, str]:
    """`gradient_module` of `function` with its tape failures reported
    (`report_tape_failures`) and then optimized at `opt_level`: for derivatives taken of the
    gradient again (forward over reverse), which carry its checks. The report comes before
    -O2, which inlines `tape_failed`'s abort where it is no longer found."""
    from enzyme_py.ad.driver import gradient_module

    out, name = gradient_module(module, function, activities, return_active, opt_level=0,
                                handed_over=handed_over)
    report_tape_failures(out, name, session, f)
    return (OptLevel(opt_level).run(out) if opt_level else out), name


R = TypeVar("R")


def retrying(cache: GradCache, get: Callable[[bool], Gradient],
             run: Callable[[Gradient], R]) -> R:
    """`run(get(True))`: `get(optimistic)` is the caller's `cache.get`, `run` calls the
    gradient on shadows it allocates itself. When the optimistic gradient asks for its checked
    version, the key is remembered (later calls get the checked one at once) and the result
    is `run(get(False))`: the first run's shadows and results are dropped."""
    g = get(True)
    try:
        return run(g)
    except ChecksNeeded:
        if g.optimistic_key is None:
            raise
        cache.checked_keys.add(g.optimistic_key)
        return run(get(False))


def _array_extents(types: Sequence[Any]) -> list[str]:
    """`checkpoint-loops`'s `arrays=`: where each contiguous array argument's data pointer and
    extents sit among the flat parameters, and its element size."""
    out: list[str] = []
    k = 0
    for t in types:
        if isinstance(t, Array):
            if not t.strided:
                shape = ".".join(str(k + 1 + j) for j in range(t.ndim))
                out.append(f"{k}:{shape}:{t.elem.dtype.itemsize}")
            k += 1 + t.extents
        else:
            k += 1
    return out


def _from_disk(disk: Any, f: Callable) -> Gradient | None:
    """A gradient from the persistent cache, if it holds a valid one (`disk_cache`)."""
    got = load(disk, f)
    if got is None:
        return None
    jm, errors = link_stored(got)
    return replace(got["gradient"], native=jm.function(got["name"]), errors=errors)


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


def run_gradient(g: Gradient, args: Sequence[Any], seed: Any,
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
            if act == Activity.DUP:
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
    native = g.native._cfunc if fast else g.native
    r = native(*flat) if g.errors is None else g.errors.call(native, *flat)
    results = list(r) if isinstance(r, tuple) else ([] if r is None else [r])
    primal = None
    rt = g.return_type
    if g.return_primal and isinstance(rt, Tuple) and g.seeded:  # flattened by the wrapper
        primal = convert_result(rt, results[:len(rt.items)])
        results = results[len(rt.items):]
    elif g.return_primal and isinstance(rt, (Scalar, Tuple)):
        primal = convert_result(rt, results.pop(0))
    return primal, results


def float_arguments(args: Sequence[Any]) -> tuple[bool, ...]:
    """Which arguments are differentiable: floats and float arrays (as `jax.vjp` takes)."""
    return tuple(isinstance(v, float) or (isinstance(v, np.ndarray) and v.dtype.kind == "f")
                 for v in args)


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


def argument_cotangents(g: Gradient, active: Sequence[bool], outs: Sequence[Any],
                        shadows: dict[int, np.ndarray]) -> tuple[Any, ...]:
    """One cotangent per argument after a gradient call: a float, a C-contiguous array, or
    None (an argument not differentiated)."""
    res: list[Any] = []
    k = 0
    for i, act in enumerate(g.activities):
        if act == Activity.OUT:
            res.append(float(outs[k]))
            k += 1
        elif act == Activity.DUP and active[i]:
            res.append(gradient_of(shadows[i]))
        else:
            res.append(None)
    return tuple(res)


def grad_cache_of(f: Callable) -> GradCache:
    """The gradients of `f` compiled so far (kept on `f`, shared by `vjp` and `autodiff`)."""
    cache = getattr(f, "_enzyme_autodiff_cache", None)
    if cache is None:
        cache = GradCache(f, Config())
        try:
            f._enzyme_autodiff_cache = cache  # type: ignore[attr-defined]
        except AttributeError:
            pass
    return cache


def zero_seed(t: FType) -> Any:
    """A zero seed of a result: ints for integer items (the seed struct keeps their type)."""
    if isinstance(t, Tuple):
        return tuple(0.0 if isinstance(i, Scalar) and i.is_float else 0 for i in t.items)
    return 0.0
