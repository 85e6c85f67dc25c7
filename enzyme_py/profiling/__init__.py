"""`enzyme_py.profile(f, *args)`: where a gradient's time and memory go.

    >>> print(ez.profile(loss, w, x, argnums=0))      # doctest: +SKIP
    profile of loss()
      run: primal 0.51 ms, gradient 2.84 ms (gradient/primal 5.56)
    compile stages of the gradient (first call):
      front end ...  AD pipeline / reverse ...  LLVM: -O2 ...
    heap asked for by one gradient call: 1.2 MB (%tape 1.1 MB, %buf ...)
    instructions of the optimized code: primal 412, gradient 1650 (by opcode)

Invariants: the profiled function is compiled afresh (no cache of `jit`/`grad` is read or
filled), with the options given (`bounds_check`, `errors`, `fastmath`); the heap figures come
from a counted copy of the same optimized code run once on copies of the arguments (the
caller's arrays are never written); pytree arguments are profiled over their leaves.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from enzyme_py import backend
from enzyme_py.analysis.activities import Activity
from enzyme_py.analysis.opcode_counts import opcode_counts
from enzyme_py.api.compile import flatten_call
from enzyme_py.api.grad import normalize_argnums
from enzyme_py.api.gradients import GradCache, Gradient, retrying, run_gradient, shadow_like
from enzyme_py.api.jit import JitFunction
from enzyme_py.calling import ErrorRecord, make_stub
from enzyme_py.config import Config
from enzyme_py.ir import parse
from enzyme_py.profiling.allocations import (
    SiteCount,
    count_allocations,
    read_counts,
    reset_counts,
)
from enzyme_py.profiling.report import Profile
from enzyme_py.pytree import is_container
from enzyme_py.stage_times import collecting

__all__ = ["Profile", "profile"]


def profile(f: Callable, *args: Any, argnums: int | Sequence[int] = 0, repeat: int = 7,
            **options: Any) -> Profile:
    """Compile `jit(f)` and `grad(f, argnums)` for `args` and report their compile stages,
    run times (medians of `repeat` timed batches), heap use per call and instruction counts
    (see `profiling.report.Profile`; `print` it for the tables). `options` are `Config`'s
    (`fastmath=True`, `bounds_check=False` ...)."""
    cfg = Config(**options)
    name = getattr(f, "__name__", "f")
    fn, flat = f, list(args)
    nums = normalize_argnums(argnums, len(args), name)
    if any(is_container(a) for a in args):
        fn, flat = flatten_call(f, args)
        nums = tuple(j for i in nums for j in fn.leaf_range(i))
    jitted = JitFunction(fn, cfg, rebuild_trees=False)
    with collecting() as primal_stages:
        primal = jitted.specialization(flat)
    cache = GradCache(fn, cfg)
    active = tuple(i in nums for i in range(len(flat)))
    with collecting() as gradient_stages:  # the gradient grad uses (see `retrying`)
        g = retrying(cache, lambda optimistic: cache.get(flat, active, False,
                                                         require_scalar=True,
                                                         optimistic=optimistic),
                     lambda g: (_run(g, _copies(flat)), g)[1])
    run_primal = lambda: primal.stub(*_copies(flat))  # noqa: E731
    run_grad = lambda: _run(g, _copies(flat))  # noqa: E731
    return Profile(
        function=name,
        primal_seconds=_median_time(run_primal, repeat),
        gradient_seconds=_median_time(run_grad, repeat),
        primal_stages=tuple(primal_stages), gradient_stages=tuple(gradient_stages),
        primal_ops=opcode_counts(parse(primal.code.ir), primal.compiled.function.name or ""),
        gradient_ops=opcode_counts(parse(g.native._module.ir), g.native.name),
        primal_heap=tuple(_primal_heap(primal, flat)),
        gradient_heap=tuple(_gradient_heap(g, flat)))


def _copies(args: Sequence[Any]) -> list[Any]:
    return [np.copy(a) if isinstance(a, np.ndarray) else a for a in args]


def _run(g: Gradient, args: list[Any]) -> Any:
    shadows = {i: shadow_like(v) for i, (v, act) in enumerate(zip(args, g.activities,
                                                                    strict=True))
               if act == Activity.DUP}
    return run_gradient(g, args, 1.0, shadows)


def _median_time(call: Callable[[], Any], repeat: int) -> float:
    """Median seconds per call over `repeat` batches, each at least ~20 ms long."""
    call()
    start = time.perf_counter()
    call()
    once = max(time.perf_counter() - start, 1e-7)
    n = max(1, int(0.02 / once))
    times = []
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        for _ in range(n):
            call()
        times.append((time.perf_counter() - start) / n)
    return float(np.median(times))


def _same_kind(errors: ErrorRecord | None) -> ErrorRecord | None:
    """A record for the counted copy: the same calling convention (a per-call record is the
    code's last argument; a global one belongs to the original module and is not read)."""
    return ErrorRecord(None, errors.sites) if errors is not None and errors.per_call else None


def _counted(ir: str) -> tuple[Any, list]:
    """The optimized text `ir` with allocation counters, compiled as it is (no -O again)."""
    module = parse(ir)
    sites = count_allocations(module)
    return backend.compile_ir(str(module), opt_level=0), sites


def _gradient_heap(g: Gradient, args: list[Any]) -> list[SiteCount]:
    jm, sites = _counted(g.native._module.ir)
    counted = replace(g, native=jm.function(g.native.name), errors=_same_kind(g.errors))
    reset_counts(jm.address, sites)
    _run(counted, _copies(args))
    return read_counts(jm.address, sites)


def _primal_heap(primal: Any, args: list[Any]) -> list[SiteCount]:
    jm, sites = _counted(primal.code.ir)
    compiled = primal.compiled
    stub = make_stub(jm.function(compiled.function.name or ""), compiled.arg_types,
                     compiled.return_type, _same_kind(primal.errors), False)
    reset_counts(jm.address, sites)
    stub(*_copies(args))
    return read_counts(jm.address, sites)
