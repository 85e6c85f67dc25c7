"""`jit`: a Python function compiled natively, one specialization per argument signature.

Invariants: a signature is compiled once (a dict lookup afterwards, through the generated
stub); pytree arguments go through `Flattened`, and a tree result is rebuilt.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from enzyme_py import backend
from enzyme_py.api.compile import (
    Primal,
    build_module,
    complete_args,
    flatten_call,
    optimize_before_ad,
    param_names,
    result_node,
    written_arrays,
)
from enzyme_py.api.disk_cache import entry_path, load, store
from enzyme_py.backend.native import link_object
from enzyme_py.calling import (
    ErrorRecord,
    _Overlap,
    arg_key,
    arg_types,
    compile_checked,
    make_stub,
    overlapping_arrays,
    reject_read_only_writes,
)
from enzyme_py.collector import while_compiling
from enzyme_py.config import Config
from enzyme_py.frontend import Compiled
from enzyme_py.ir import Function, Module
from enzyme_py.ir import parse as parse_module
from enzyme_py.pytree import Flattened, Node, flatten_all, is_container


class JitFunction:
    """`jit(f)`: `f` compiled natively, one specialization per argument signature.

    A result that is a tree comes back rebuilt (`rebuild_trees`, the public form) or as the
    flat tuple of its leaves (the form the differentiation entry points work on)."""

    def __init__(self, f: Callable, options: Config | None = None,
                 rebuild_trees: bool = True) -> None:
        if not isinstance(f, Flattened):
            functools.update_wrapper(self, f)  # type: ignore[arg-type]
        self.pyfunc = f
        self.options = options or Config()
        self.rebuild_trees = rebuild_trees
        self.params = param_names(f)
        self._cache: dict[Any, Primal] = {}
        self._leaf_jits: dict[Flattened, JitFunction] = {}  # per structure of pytree arguments

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) != len(self.params):
            args = complete_args(self.pyfunc, args, kwargs)
        spec = self._cache.get(tuple(map(arg_key, args)))
        if spec is not None:
            try:
                return spec.stub(*args)
            except _Overlap:
                pass
        return self._specialize(args)(*args)

    def specialization(self, args: Sequence[Any]) -> Primal:
        """The compiled specialization for these (flat) arguments, compiled if needed."""
        self._specialize(args)
        return self._cache[(tuple(map(arg_key, args)), overlapping_arrays(args))]

    @while_compiling
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
        disk = entry_path("jit", self.pyfunc, (key, alias, self.rebuild_trees),
                          self.options) if self.options.cache else None
        if spec is None and disk is not None:
            spec = self._from_disk(disk, types, alias)
            if spec is not None:
                self._cache[(key, alias)] = spec
                if not alias:
                    self._cache[key] = spec
        if spec is None:
            module, compiled, session = build_module(self.pyfunc, types, self.options, not alias)
            if any(isinstance(a, np.ndarray) and not a.flags.writeable for a in args):
                # read-only arrays get their own specialization (`arg_key`): refused if the
                # code may write them (read off the optimized code, as for gradients)
                optimized = optimize_before_ad(parse_module(str(module)), self.options.opt_level)
                written = written_arrays(optimized.get_function(compiled.function.name or ""),
                                          types)
                reject_read_only_writes(self.pyfunc.__name__, self.params, args, written)
            # (`module` is handed over: its error record may become a parameter of
            # `compiled.function`, in place; only the function's name is read afterwards)
            jm, errors = compile_checked(module, session, compiled.function.name or "",
                                         self.options.opt_level,
                                         keep_object=disk is not None)
            native = jm.function(compiled.function.name or "")
            stub = make_stub(native, types, compiled.return_type, errors, not alias)
            node = result_node(self.pyfunc, types)
            if node is not None and self.rebuild_trees:  # a tree result, rebuilt
                stub = _rebuilding(stub, node)
            spec = Primal(compiled, module, stub, jm, errors)
            self._cache[(key, alias)] = spec
            if not alias:
                self._cache[key] = spec
            if disk is not None:
                store(disk, self.pyfunc, session.global_reads, {
                    "ir": jm.ir, "object": jm.object, "manifest": jm.manifest,
                    "name": compiled.function.name or "",
                    "types": types,
                    "return_type": compiled.return_type, "params": compiled.param_names,
                    "error_name": session.error_name, "sites": session.sites,
                    "per_call": errors is not None and errors.per_call,
                    "node": node, "opt_level": self.options.opt_level})
        return spec.stub

    def _from_disk(self, disk: Any, types: tuple, alias: bool) -> Primal | None:
        """The specialization from the persistent cache, if it holds a valid one."""
        got = load(disk, self.pyfunc)
        if got is None:
            return None
        jm, errors = link_stored(got)
        native = jm.function(got["name"])
        stub = make_stub(native, got["types"], got["return_type"], errors, not alias)
        node = got["node"]
        if node is not None and self.rebuild_trees:
            stub = _rebuilding(stub, node)
        compiled = Compiled(Function(got["name"]), got["types"], got["return_type"],
                            got["params"])
        return Primal(compiled, Module(), stub, jm, errors)

    def _over_leaves(self, args: Sequence[Any]) -> Callable[..., Any]:
        flat, _ = flatten_call(self.pyfunc, args)
        inner = self._leaf_jits.get(flat)
        if inner is None:
            inner = self._leaf_jits[flat] = JitFunction(flat, self.options,
                                                        self.rebuild_trees)
        return lambda *a: inner(*flatten_all(a)[0])

    def ir(self, *args: Any, optimized: bool = False) -> str:
        """The LLVM IR of this function for these argument types."""
        if any(is_container(a) for a in args):
            flat, leaves = flatten_call(self.pyfunc, args)
            return JitFunction(flat, self.options).ir(*leaves, optimized=optimized)
        types = arg_types(self.pyfunc.__name__, self.params, args)
        module, _, _ = build_module(self.pyfunc, types, self.options, True)
        return backend.optimize(str(module), self.options.opt_level) if optimized else str(module)


def link_stored(got: dict) -> tuple[Any, ErrorRecord | None]:
    """The code of a persistent-cache entry, linked (its object file: no code generation),
    and its error record, of the kind it was compiled with."""
    manifest = got.get("manifest")
    if manifest is not None:  # (no parsing: linked as it is)
        jm = link_object(got["ir"], got["object"], manifest, got["opt_level"])
    else:
        jm = backend.compile_ir(got["ir"], opt_level=got["opt_level"], preoptimized=True,
                                object_code=got["object"])
    if got["per_call"]:
        return jm, ErrorRecord(None, got["sites"])
    errors = ErrorRecord(jm.address(got["error_name"]), got["sites"]) \
        if got["error_name"] in jm else None
    return jm, errors


def _rebuilding(stub: Callable[..., Any], node: Node) -> Callable[..., Any]:
    return lambda *args: node.unflatten(stub(*args))


def jit(f: Callable | None = None, *, bounds_check: bool = True, opt_level: int = 2,
        errors: str = "numpy", fastmath: Any = False, cache: bool = False) -> Any:
    """Compile `f` (a function of the numeric Python subset) to native code.

    `cache=True` keeps the optimized code on disk (`ENZYME_PY_CACHE_DIR`, default
    `~/.cache/enzyme_py`) and reuses it in later processes while `f`'s source, the functions
    and globals it uses, the options and enzyme_py itself are unchanged (see
    `enzyme_py.api.disk_cache`); a later process then skips the front end and optimization.

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
    opts = Config(bounds_check, opt_level, errors, fastmath, cache=cache)
    if f is None:
        return lambda g: JitFunction(g, opts)
    return JitFunction(f, opts)
