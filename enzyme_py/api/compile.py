"""A Python function compiled for argument types: the front end, then the module every entry
point starts from (`build_module`), and the -O2 before differentiation (`optimize_before_ad`).

Invariants: `build_module` returns a fresh module (callers may change it); a `Flattened`
function is compiled with its arguments' tree types and a tree result becomes the flat tuple of
its leaves, whose structure `result_node` keeps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from enzyme_py import backend
from enzyme_py.analysis.call_graph import referenced_functions
from enzyme_py.caches import FunctionCache
from enzyme_py.config import Config
from enzyme_py.fastmath import add_fast_math
from enzyme_py.frontend import Array, Compiled, FType, Tuple, compile_python
from enzyme_py.frontend.ftypes import Tree, tree_leaves
from enzyme_py.ir import Function, Module
from enzyme_py.ir.values import Value
from enzyme_py.passes import OptLevel, through_llvm
from enzyme_py.pytree import Flattened, Node, flatten_all, flattened, node_of_type
from enzyme_py.stage_times import stage


@dataclass
class Primal:
    """One specialization of `jit(f)`."""

    compiled: Compiled
    module: Module
    stub: Any  # the generated fast caller (see calling.make_stub)
    code: Any = None  # the backend's JITModule (its optimized text: `code.ir`)
    errors: Any = None  # its `calling.ErrorRecord` (None: the code has no checks)


def param_names(f: Callable) -> list[str]:
    if isinstance(f, Flattened):
        return f.params
    code = getattr(f, "__code__", None)
    return list(code.co_varnames[:code.co_argcount]) if code else []


def flatten_call(f: Callable, args: Sequence[Any]) -> tuple[Flattened, list[Any]]:
    """`f` as a function of the leaves of `args` (pytrees), and those leaves."""
    leaves, trees = flatten_all(args)
    return flattened(f, trees, param_names(f)), leaves


# the structure of results that are trees, per function and leaf types, built so far
_RESULT_NODES = FunctionCache()


def result_node(f: Callable, types: tuple[FType, ...]) -> Node | None:
    """The structure of `f`'s result for these argument types when it is a tree (the
    compiled code returns its leaves as a flat tuple), else None. Valid after `build_module`."""
    return _RESULT_NODES.get(f, _node_key(types))


def _node_key(types: tuple[FType, ...]) -> tuple[FType, ...]:
    return tuple(t.value if isinstance(t, Array) else t for t in types)


def complete_args(f: Callable, args: tuple, kwargs: dict) -> tuple:
    """All of f's arguments, positionally: keywords placed, defaults filled in (Python's
    rules; a call Python would reject raises the same TypeError)."""
    from enzyme_py.frontend.arguments import complete

    return complete(f, args, kwargs)


def with_defaults(f: Callable, primals: Sequence[Any],
                  tangents: Sequence[Any] | None = None) -> tuple[tuple, tuple | None]:
    """Primals with f's defaults filled in (as a call would), tangents with zeros for them
    (None for a None default: it has no tangent)."""
    n = len(primals)
    if n == len(param_names(f)):
        return tuple(primals), None if tangents is None else tuple(tangents)
    full = complete_args(f, tuple(primals), {})
    if tangents is None:
        return full, None
    extra = [np.zeros_like(v) if isinstance(v, np.ndarray) else None if v is None else 0.0
             for v in full[n:]]
    return full, (*tangents, *extra)


def only_export(module: Module, name: str) -> None:
    """Make every other function definition of `module` internal, and remove those that
    `name` cannot reach (the primal itself, most often), so that neither the printer nor
    LLVM's parser and pipeline spend time on code that is never run. A function referenced
    from a global variable or an alias is kept (and what it reaches)."""
    for fn in module.functions:
        if fn.name != name and not fn.is_declaration and "internal" not in fn.prefix:
            fn.prefix = ["internal", *[w for w in fn.prefix if w not in ("dso_local",)]]
    roots: list[Value] = [module.get_function(name)]
    roots += [gv.initializer for gv in module.globals if gv.initializer is not None]
    roots += [a.aliasee for a in module.aliases if a.aliasee is not None]
    reached = referenced_functions(roots)
    dead = [fn for fn in module.functions if not fn.is_declaration and fn not in reached]
    for fn in dead:
        module.functions.remove(fn)
        module.symbols.pop(fn.name or "", None)


def optimize_before_ad(module: Module, opt_level: int, then: Sequence[str] = ()) -> Module:
    """`module` optimized at `opt_level` for differentiation: LLVM's pipeline without loop
    unrolling and vectorizers (`OptLevel(for_ad=True)`, Enzyme's place in the pipeline), so
    each loop is differentiated as written; the gradient is then optimized in full. Functions
    whose calls must stay calls (inactive ones, those with custom rules: `noinline` from the
    front end) become `optnone` first, so that no interprocedural pass looks through them:
    inferring that one returns its argument, or a constant, would let the optimizer bypass
    the call, and with it the rule (an inactive identity function is `stop_gradient`).
    `then`: LLVM's named passes run right after the pipeline, in the same call
    (`canonical_after_optimizing`)."""
    for fn in module.functions:
        if fn.suffix == ["noinline"]:
            fn.suffix = ["noinline", "optnone"]
    with stage(f"LLVM: -O{opt_level} before AD"):
        if not then:
            return OptLevel(opt_level, for_ad=True).run(module)
        level = OptLevel(opt_level, for_ad=True)
        return through_llvm(module, ",".join([level.name, *then]), lambda text: backend.optimize(
            text, opt_level, loop_vectorize=False, slp_vectorize=False, unroll=False,
            then=then))


def build_module(f: Callable, types: tuple[FType, ...], options: Config, noalias: bool,
                 optimistic: bool = False, reverse_mode: bool = False):
    """`f` compiled for `types` into a fresh module. A `Flattened` f is compiled with its
    arguments' tree types (its IR takes the leaves); a result that is a tree becomes the
    flat tuple of its leaves (`result_node` keeps its structure). `optimistic`: see
    `compile_python` (a gradient's loops leave with a request for their checked copies);
    `reverse_mode`: the module is for a reverse-mode gradient (same values, forms whose
    reverse is cheaper)."""
    pyfunc, tree_types = (f.f, f.argument_types(types)) if isinstance(f, Flattened) else \
        (f, types)
    # (a function compiled once per process that the module comes to call, such as the
    # matrix kernel, starts compiling at once, beside the rest of this compile)
    with stage("front end"):
        module, compiled, session = compile_python(pyfunc, tree_types,
                                                   bounds_check=options.bounds_check,
                                                   noalias=noalias,
                                                   python_errors=options.python_errors,
                                                   optimistic=optimistic,
                                                   reverse_mode=reverse_mode,
                                                   fresh_temporaries=reverse_mode and
                                                   options.checkpointing,
                                                   on_declare=lambda name: backend.prefetch_shared(
                                                       [name], persistent=options.cache))
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


def written_arrays(fn: Function, arg_types: tuple[FType, ...]) -> set[int]:
    """Indices of array parameters the function (or its callees) may write."""
    from enzyme_py.analysis.memory_effects import written_arguments

    written, flat, idx = written_arguments(fn), 0, set()
    for i, t in enumerate(arg_types):
        if isinstance(t, Array) and flat in written:
            idx.add(i)
        flat += 1 + t.extents if isinstance(t, Array) else 1
    return idx
