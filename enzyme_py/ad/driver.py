"""From a module and a function name to an optimized module holding the gradient.

Invariants: the caller's module is never changed (the work happens on a canonicalized copy);
every stage can be observed through `on_stage(name, module)`; the result verifies.

Example::

    out, grad_name = gradient_module(parse(text), "f", ["dup", "const"], return_active=True)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from enzyme_py.ad.devirtualize import devirtualize, direct_callees, remove_dead_fallbacks
from enzyme_py.ad.dupnoneed import drop_unneeded_stores
from enzyme_py.ad.posix_memalign import expand_posix_memalign
from enzyme_py.ad.registrations import find_registrations
from enzyme_py.ad.reverse import ReverseOptions, reverse_diff
from enzyme_py.analysis.activity import analyze_activity
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import Function, Module
from enzyme_py.ir import instructions as I
from enzyme_py.ir.source_map import reparse
from enzyme_py.passes import OptLevel, Pipeline

# Enzyme's canonicalization before AD: SSA values instead of stack slots, one return,
# loops with a preheader and one latch, values leaving loops through exit-block phis.
AD_PIPELINE = ("strip-optnone,always-inline,sroa,instcombine,simplifycfg,mergereturn,"
               "loop-simplify,lcssa")
# After indirect calls were split into guarded direct calls (`devirtualize`): inline the new
# callees; then, once the fallbacks proven dead are gone, fold the guards and canonicalize.
INLINE_PIPELINE = "always-inline,sroa,instcombine,simplifycfg"
CLEANUP_PIPELINE = ("instcombine,newgvn,instcombine,simplifycfg,mergereturn,loop-simplify,"
                    "lcssa")
DEVIRTUALIZE_ROUNDS = 3

Stage = Callable[[str, Module], None]


def prepare(module: Module, on_stage: Stage | None = None,
            targets: Sequence[str] = (), inline: bool = True) -> Module:
    """The canonicalized copy of `module` that the transforms read; functions called
    (directly or not) from `targets` are inlined into them where LLVM can (not recursion),
    unless `inline` is False (then calls stay calls, as Enzyme leaves them)."""
    work = reparse(module)  # keeps each instruction's source location for LLVM's diagnostics
    expand_posix_memalign(work)  # an allocation call like malloc's (before SROA)
    keep = find_registrations(work).keep_calls
    if inline:
        mark_callees_inline(work, targets, keep)
    work = Pipeline.parse(AD_PIPELINE).run(work, on_stage)
    rounds = 0
    while rounds < DEVIRTUALIZE_ROUNDS and devirtualize(_reachable(work, targets)):
        rounds += 1
        if on_stage is not None:
            on_stage("devirtualize", work)
        if inline:
            mark_callees_inline(work, targets, keep)
        work = Pipeline.parse(INLINE_PIPELINE).run(work, on_stage)
        if remove_dead_fallbacks(_reachable(work, targets)) and on_stage is not None:
            on_stage("remove-dead-fallbacks", work)
    if rounds:
        work = Pipeline.parse(CLEANUP_PIPELINE).run(work, on_stage)
    return work


def _reachable(module: Module, targets: Sequence[str]) -> list[Function]:
    """The defined functions in `targets` and those they call directly, transitively."""
    todo = [f for t in targets if isinstance(f := module.symbols.get(t), Function)]
    seen: dict[str, Function] = {}
    while todo:
        fn = todo.pop()
        if fn.is_declaration or fn.name in seen:
            continue
        seen[fn.name or ""] = fn
        todo.extend(direct_callees(fn))
    return sorted(seen.values(), key=lambda f: f.name or "")


def mark_callees_inline(module: Module, targets: Sequence[str],
                        keep: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Mark every defined function reachable by calls from `targets` `alwaysinline` (and drop
    `noinline`, which clang -O0 puts on everything), except those in `keep` (custom gradients,
    inactive functions), whose calls must stay calls. Returns the marked names."""
    todo = [module.symbols[t] for t in targets if isinstance(module.symbols.get(t), Function)]
    seen: set[str] = set()
    marked: list[str] = []
    while todo:
        fn = todo.pop()
        for inst in fn.instructions():
            if not isinstance(inst, I.Call):
                continue
            callee = inst.callee
            if not isinstance(callee, Function) or callee.is_declaration or \
                    callee.name in keep:
                continue
            if callee.name in seen:
                continue
            seen.add(callee.name or "")
            todo.append(callee)
            if callee.name not in targets:
                words = [w for w in callee.suffix if w != "noinline"]
                at = 0  # function attributes come after (local_)unnamed_addr and addrspace
                while at < len(words) and (words[at].endswith("unnamed_addr") or
                                           words[at].startswith("addrspace(")):
                    at += 1
                words.insert(at, "alwaysinline")
                callee.suffix = words
                marked.append(callee.name or "")
    if marked:
        for key, line in module.attribute_groups.items():
            module.attribute_groups[key] = _NOINLINE.sub("", line)
    return marked


_NOINLINE = re.compile(r"(?<![\w\"-])noinline (?=[^\"]*(?:\"[^\"]*\"[^\"]*)*\}$)")


def derive_module(module: Module, function: str, derive: Callable[[Module, Function], Function],
                  stage: str, *, opt_level: int, inline: bool,
                  on_stage: Stage | None) -> tuple[Module, str]:
    """Canonicalize a copy of `module` (`prepare`), add a derivative of `function` to it
    (`derive(work, fn)`, reported as `stage`), optimize; returns (module, derivative name).
    The driver of both modes (`gradient_module`, `forward.forward_module`)."""
    work = prepare(module, on_stage, targets=[function], inline=inline)
    try:
        fn = work.get_function(function)
    except KeyError as exc:
        raise DifferentiationError(str(exc.args[0])) from None
    derived = derive(work, fn)
    if on_stage is not None:
        on_stage(stage, work)
    if opt_level > 0:
        work = OptLevel(opt_level).run(work)
        if on_stage is not None:
            on_stage(f"O{opt_level}", work)
    assert derived.name is not None
    return work, derived.name


def gradient_module(module: Module, function: str, activities: list[str], return_active: bool,
                    *, opt_level: int = 2, name: str | None = None,
                    return_primal: bool = False, inline: bool = True,
                    on_stage: Stage | None = None) -> tuple[Module, str]:
    """Canonicalize, differentiate `function`, optimize; returns (module, gradient name)."""

    def derive(work: Module, fn: Function) -> Function:
        if on_stage is not None:
            on_stage("activity", _ActivityView(analyze_activity(fn, activities, return_active)))
        grad = reverse_diff(work, fn, activities, return_active,
                            ReverseOptions(name=name, return_primal=return_primal))
        drop_unneeded_stores(grad, fn, activities)
        return grad

    return derive_module(module, function, derive, "gradient", opt_level=opt_level,
                         inline=inline, on_stage=on_stage)


class _ActivityView:
    """Prints as the activity-annotated function (what `--print-after-all` shows)."""

    def __init__(self, activity: object) -> None:
        self.activity = activity

    def __str__(self) -> str:
        return str(self.activity)
