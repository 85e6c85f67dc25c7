"""The rewrites before differentiation, as passes (registered on import): `posix-memalign`,
`inline-callees`, `hoist-allocations`, `devirtualize`, `remove-dead-fallbacks`, and the
rewrites the transforms make on their working copy (`expand-realloc`, `split-invoke-edges`,
`retype-float-copies`), which run here on the module's own functions so that each can be seen
and tested alone.

`fn=` names the functions a pass looks at: for `inline-callees`, `devirtualize` and
`remove-dead-fallbacks` the functions to be differentiated (their callees, transitively, are
reached from them); for the others the function to rewrite (default: every defined one).

Invariants: every pass keeps what the program computes; `devirtualize` runs its follow-up
steps (inline the new direct callees, drop the fallbacks proven dead, canonicalize) only after
a round that changed something, so a module without indirect calls leaves it unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from enzyme_py.ad.activity_arguments import function_named
from enzyme_py.ad.context import split_invoke_edges
from enzyme_py.ad.devirtualize import devirtualize, direct_callees, remove_dead_fallbacks
from enzyme_py.ad.float_memory import rewrite_float_copies
from enzyme_py.ad.hoist_allocations import hoist_allocations
from enzyme_py.ad.posix_memalign import expand_posix_memalign
from enzyme_py.ad.realloc import expand_reallocs
from enzyme_py.ad.registrations import find_registrations
from enzyme_py.ir import instructions as I
from enzyme_py.ir.module import Function, Module
from enzyme_py.passes import NestedPass, Param, Pipeline, Stage, pass_text, register_pass
from enzyme_py.rules.inactive import is_known_inactive

# After indirect calls were split into guarded direct calls (`devirtualize`): inline the new
# callees; then, once the fallbacks proven dead are gone, fold the guards and canonicalize.
INLINE_PIPELINE = "always-inline,sroa,instcombine,simplifycfg"
CLEANUP_PIPELINE = ("instcombine,newgvn,instcombine,simplifycfg,mergereturn,loop-simplify,"
                    "lcssa")
DEVIRTUALIZE_ROUNDS = 3
# Enzyme's canonicalization before AD: SSA values instead of stack slots, one return,
# loops with a preheader and one latch, values leaving loops through exit-block phis.
CANONICAL_PASSES = ("always-inline", "sroa", "instcombine", "simplifycfg", "mergereturn",
                    "loop-simplify", "lcssa")

_TARGETS = Param("fn", "the functions to differentiate", list, required=True)
_ONE = Param("fn", "the function to rewrite (default: every defined function)")


def reachable(module: Module, targets: Sequence[str]) -> list[Function]:
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
    inactive functions, the matrix kernel) and the known-inactive table's (the runtime's
    `enzyme_py.huge_pages`), whose calls must stay calls. Returns the marked
    names."""
    todo = [module.symbols[t] for t in targets if isinstance(module.symbols.get(t), Function)]
    seen: set[str] = set()
    marked: list[str] = []
    groups: dict[str, str | None] = {}  # group -> the same without noinline
    while todo:
        fn = todo.pop()
        for inst in fn.instructions():
            if not isinstance(inst, I.Call):
                continue
            callee = inst.callee
            if not isinstance(callee, Function) or callee.is_declaration or \
                    callee.name in keep or is_known_inactive(callee.name or ""):
                continue  # (a known-inactive body is never differentiated: a call stays)
            if callee.name in seen:
                continue
            seen.add(callee.name or "")
            todo.append(callee)
            if callee.name not in targets:
                words = [g for w in callee.suffix if w != "noinline" for g in
                         [_group_without_noinline(module, w, groups) if w.startswith("#")
                          else w]
                         if g is not None]
                at = 0  # function attributes come after (local_)unnamed_addr and addrspace
                while at < len(words) and (words[at].endswith("unnamed_addr") or
                                           words[at].startswith("addrspace(")):
                    at += 1
                words.insert(at, "alwaysinline")
                callee.suffix = words
                marked.append(callee.name or "")
    return marked


def canonical_after_optimizing(module: Module, targets: Sequence[str]) -> tuple[str, ...]:
    """The passes to run right after LLVM's -O pipeline before AD (in the same LLVM call) in
    place of `prepare_pipeline`'s first steps, with `targets`' callees marked `alwaysinline`
    here; () where those steps must run themselves (then nothing is marked).

    Those steps are `posix-memalign`, `inline-callees`, `strip-optnone` and
    `CANONICAL_PASSES`. They can run with the optimizer where the first three have nothing
    to do after it: no `posix_memalign`, no defined function whose calls must stay calls
    (`noinline` ones become `optnone` for the optimizer: rules, inactive functions), and the
    callees marked before it (the optimizer's always-inliner inlines them). The module
    then reaches AD with one print and parse less (`prepare_pipeline(prepared=True)`)."""
    if "posix_memalign" in module.symbols:
        return ()
    for fn in module.functions:
        words = [w for word in fn.suffix for w in
                 ([module.attribute_groups.get(word[1:], "")] if word.startswith("#")
                  else [word])]
        if any(_KEPT_CALLS.search(w) for w in words):
            return ()
    mark_callees_inline(module, targets, find_registrations(module).keep_calls)
    return CANONICAL_PASSES


_KEPT_CALLS = re.compile(r"(?<![\w\"-])(noinline|optnone)(?![\w\"-])")


def _group_without_noinline(module: Module, word: str, made: dict[str, str | None]
                            ) -> str | None:
    """The attribute group `word` (`#4`) as `callee` may reference it once it is inlined:
    itself when it holds no `noinline`, else a new group without it (None when nothing is
    left). The group itself stays: functions kept as calls (`keep`) may share it. `made`
    remembers the groups made so far."""
    if word in made:
        return made[word]
    line = module.attribute_groups.get(word)
    if line is None or not _NOINLINE.search(line):
        return word
    rest = _NOINLINE.sub("", line)
    key: str | None = None
    if not _EMPTY_GROUP.search(rest):
        numbers = [int(k[1:]) for k in module.attribute_groups if k[1:].isdigit()]
        key = f"#{max(numbers, default=0) + 1}"
        module.attribute_groups[key] = rest.replace(f"attributes {word} ", f"attributes {key} ",
                                                    1)
    made[word] = key
    return key


_EMPTY_GROUP = re.compile(r"=\s*\{\s*\}\s*$")
_NOINLINE = re.compile(r"(?<![\w\"-])noinline (?=[^\"]*(?:\"[^\"]*\"[^\"]*)*\}$)")


class PosixMemalign:
    name = "posix-memalign"

    def run(self, module: Module) -> Module:
        expand_posix_memalign(module)
        return module


class InlineCallees:
    """Mark the callees of `fn` `alwaysinline` (LLVM's `always-inline` then inlines them),
    except those with a registered rule or declared inactive: their calls stay calls."""

    name = "inline-callees"

    def __init__(self, fn: list[str]) -> None:
        self.targets = fn

    def run(self, module: Module) -> Module:
        mark_callees_inline(module, self.targets, find_registrations(module).keep_calls)
        return module


class Devirtualize(NestedPass):
    """Up to `rounds` rounds of: guard the indirect calls reachable from `fn` with direct calls
    to their candidate targets; then `inline-callees` (unless `inline=0`), `INLINE_PIPELINE`,
    `remove-dead-fallbacks`. After any round that changed something: `CLEANUP_PIPELINE`."""

    name = "devirtualize"

    def __init__(self, fn: list[str], rounds: int, inline: bool) -> None:
        self.targets, self.rounds = fn, rounds
        steps = [pass_text("inline-callees", fn=fn)] if inline else []
        steps += [INLINE_PIPELINE, pass_text("remove-dead-fallbacks", fn=fn)]
        self.follow_up = Pipeline.parse(",".join(steps))
        self.cleanup = Pipeline.parse(CLEANUP_PIPELINE)

    def run_observed(self, module: Module, after_each: Stage | None) -> Module:
        rounds = 0
        while rounds < self.rounds and devirtualize(reachable(module, self.targets)):
            rounds += 1
            if after_each is not None:
                after_each(self.name, module)
            module = self.follow_up.run(module, after_each)
        if rounds:
            module = self.cleanup.run(module, after_each)
        elif after_each is not None:
            after_each(self.name, module)  # (unchanged)
        return module


class RemoveDeadFallbacks:
    """Make the indirect fallback of a guarded call `unreachable` where the pointer is proven
    to be one of the tested functions (`devirtualize.remove_dead_fallbacks`)."""

    name = "remove-dead-fallbacks"

    def __init__(self, fn: list[str]) -> None:
        self.targets = fn

    def run(self, module: Module) -> Module:
        remove_dead_fallbacks(reachable(module, self.targets))
        return module


class _EachFunction:
    """A rewrite of one function, applied to `fn` or to every defined function."""

    name = "each-function"

    def __init__(self, fn: str | None) -> None:
        self.function = fn

    def functions(self, module: Module) -> list[Function]:
        if self.function:
            return [function_named(module, self.function)]
        return [f for f in module.functions if not f.is_declaration]

    def rewrite(self, module: Module, fn: Function) -> None:
        raise NotImplementedError

    def run(self, module: Module) -> Module:
        for fn in self.functions(module):
            self.rewrite(module, fn)
        return module


class ExpandRealloc(_EachFunction):
    name = "expand-realloc"

    def rewrite(self, module: Module, fn: Function) -> None:
        expand_reallocs(module, fn)


class SplitInvokeEdges(_EachFunction):
    name = "split-invoke-edges"

    def rewrite(self, module: Module, fn: Function) -> None:
        split_invoke_edges(fn)


class HoistAllocations(_EachFunction):
    name = "hoist-allocations"

    def rewrite(self, module: Module, fn: Function) -> None:
        hoist_allocations(fn)


class RetypeFloatCopies(_EachFunction):
    name = "retype-float-copies"

    def rewrite(self, module: Module, fn: Function) -> None:
        rewrite_float_copies(fn)


register_pass("posix-memalign", "posix_memalign(&p, align, n) as p = aligned_alloc(align, n') "
              "(an allocation call like malloc's)")(PosixMemalign)
register_pass("inline-callees", "mark the functions called from fn= alwaysinline (not those "
              "with a registered rule or declared inactive); always-inline inlines them",
              (_TARGETS,))(InlineCallees)
register_pass("hoist-allocations", "a malloc freed in the same iteration of a loop nest is "
              "made once before the nest and freed at its exits", (_ONE,))(HoistAllocations)
register_pass("devirtualize", "guard indirect calls reachable from fn= with direct calls to "
              "their candidate targets, inline those, drop the fallbacks proven dead", (
                  _TARGETS,
                  Param("rounds", "at most this many rounds", int, DEVIRTUALIZE_ROUNDS),
                  Param("inline", "mark the new direct callees alwaysinline", bool, True),
              ))(Devirtualize)
register_pass("remove-dead-fallbacks", "make the indirect fallback of a guarded call "
              "unreachable where it is proven dead", (_TARGETS,))(RemoveDeadFallbacks)
register_pass("expand-realloc", "realloc as malloc + memcpy + free (the reverse pass does this "
              "on its working copy)", (_ONE,))(ExpandRealloc)
register_pass("split-invoke-edges", "give each invoke a normal destination of its own (both "
              "transforms do this on their working copy)", (_ONE,))(SplitInvokeEdges)
register_pass("retype-float-copies", "floats copied as integers get their float type back "
              "(both transforms do this on their working copy)", (_ONE,))(RetypeFloatCopies)
