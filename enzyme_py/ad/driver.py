"""From a module and a function name to an optimized module holding its derivative: the
pipelines of `enzyme-py grad`, `enzyme-py transform`, `grad()` and `jvp()`, as text.

    posix-memalign,inline-callees{fn=f},strip-optnone,always-inline,sroa,instcombine,
    simplifycfg,mergereturn,loop-simplify,lcssa,hoist-allocations,devirtualize{fn=f},
    reverse{fn=f,acts=dup,const,ret=active},dupnoneed{fn=f,acts=dup,const,ret=active},
    tape-scopes,tape-checks,O2

`gradient_pipeline`, `forward_pipeline` and `enzyme_pipeline` write that text; the module
functions parse it and run it (`passes.Pipeline`), so `enzyme-py opt -p TEXT` runs the very
same steps, or any prefix of them (`prepare{fn=f}` names the canonicalization in one word).
Importing this module registers every pass (the AD passes and the printers next to it, LLVM's
in `passes.py`).

Invariants: the caller's module is never changed (the pipeline runs on a copy that keeps each
instruction's source location, for LLVM's diagnostics); every stage can be observed through
`on_stage(name, module)` (the activity printer runs only then); the result verifies.

Example::

    out, grad_name = gradient_module(parse(text), "f", ["dup", "const"], return_active=True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from enzyme_py.ad import (  # noqa: F401  (register their passes)
    checkpoint_loops,
    prepare_passes,
    print_passes,
    tape_checks,
)
from enzyme_py.ad.derive_passes import Forward, Reverse
from enzyme_py.ad.prepare_passes import CANONICAL_PASSES, INLINE_PIPELINE, mark_callees_inline
from enzyme_py.checkpointing import LOOP_PROPERTY
from enzyme_py.config import Config
from enzyme_py.ir import Module
from enzyme_py.ir.loop_marks import has_property
from enzyme_py.ir.source_map import reparse
from enzyme_py.passes import NestedPass, Param, Pipeline, Stage, pass_text, register_pass

__all__ = ["AD_PIPELINE", "INLINE_PIPELINE", "enzyme_pipeline", "forward_module",
           "forward_pipeline", "gradient_module", "gradient_pipeline", "mark_callees_inline",
           "prepare", "prepare_pipeline", "run_pipeline"]

DEFAULT = Config()

AD_PIPELINE = ",".join(["strip-optnone", *CANONICAL_PASSES])


def prepare_pipeline(targets: Sequence[str] = (), inline: bool = True,
                     prepared: bool = False) -> str:
    """The canonicalization before differentiating `targets`: their callees (directly or not)
    are inlined into them where LLVM can (not recursion), unless `inline` is False (then calls
    stay calls, as Enzyme leaves them); indirect calls with known targets become direct.
    `prepared`: the module comes from LLVM's -O pipeline followed by `CANONICAL_PASSES`,
    where `canonical_after_optimizing` allowed it (the first steps are left out)."""
    steps: list[str] = []
    if not prepared:
        steps.append("posix-memalign")  # an allocation call like malloc's (before SROA)
        if inline and targets:
            steps.append(pass_text("inline-callees", fn=list(targets)))
        steps.append(AD_PIPELINE)
    steps.append("hoist-allocations")  # (per-iteration temporaries made once per loop nest)
    if targets:
        steps.append(pass_text("devirtualize", fn=list(targets), inline=None if inline else False))
    return ",".join(steps)


class Prepare(NestedPass):
    """`prepare{fn=f}`: the steps of `prepare_pipeline` in one name (each still observed)."""

    name = "prepare"

    def __init__(self, fn: list[str], inline: bool) -> None:
        self.steps = Pipeline.parse(prepare_pipeline(fn, inline))

    def run_observed(self, module: Module, after_each: Stage | None) -> Module:
        return self.steps.run(module, after_each)


register_pass("prepare", "the canonicalization before differentiating fn= (what "
              "--print-pipeline of enzyme-py grad lists before the transform)", (
                  Param("fn", "the functions to differentiate", list, ()),
                  Param("inline", "inline their callees", bool, True),
              ))(Prepare)


def _optimize(cfg: Config) -> list[str]:
    """The steps after differentiating: fast-math flags on the new code (when asked for),
    then LLVM's -O level."""
    steps = [_fast_math(cfg)] if cfg.fast_flags else []
    return steps + ([f"O{cfg.opt_level}"] if cfg.opt_level > 0 else [])


def _fast_math(cfg: Config) -> str:
    return pass_text("fast-math", flags=list(cfg.fast_flags))


def _start(cfg: Config) -> list[str]:
    """The steps before preparing: fast-math flags on the primal (when asked for)."""
    return [_fast_math(cfg)] if cfg.fast_flags else []


def gradient_pipeline(function: str, activities: Sequence[str], return_active: bool,
                      config: Config | None = None, *, show_activity: bool = False,
                      marked_loops: bool = False, array_extents: Sequence[str] = (),
                      prepared: bool = False, **changes: Any) -> str:
    """The pipeline of `gradient_module` (`show_activity`: print the activity first;
    `marked_loops`: the module has loops marked `checkpointed`, which are checkpointed even
    without the config's `checkpoint`; `array_extents`: `checkpoint-loops`'s `arrays=`);
    `prepared`: see `prepare_pipeline`; `changes` are options of `config` (`opt_level=0`,
    `name="g"` ...)."""
    cfg = _config(config, changes)
    request = {"fn": function, "acts": list(activities),
               "ret": "active" if return_active else "const"}
    primal = True if cfg.primal_returned(False) else None
    steps = [prepare_pipeline([function], cfg.inline, prepared)]
    if cfg.checkpointing or marked_loops:
        steps.append(pass_text("checkpoint-loops", fn=function,
                               snapshots=cfg.checkpoint_snapshots or None,
                               budget=cfg.memory_budget,
                               time=None if cfg.checkpointing else False,
                               arrays=list(array_extents) or None))
    if show_activity:
        steps.append(pass_text("print-activity", **request))
    steps.append(pass_text("reverse", **request, name=cfg.name, primal=primal))
    steps.append(pass_text("dupnoneed", **request, primal=primal))
    steps += ["tape-scopes", "tape-checks"]
    return ",".join(_start(cfg) + steps + _optimize(cfg))


def forward_pipeline(function: str, activities: Sequence[str], config: Config | None = None,
                     **changes: Any) -> str:
    """The pipeline of `forward_module`."""
    cfg = _config(config, changes)
    forward = pass_text("forward", fn=function, acts=list(activities),
                        width=cfg.width if cfg.width != 1 else None, name=cfg.name,
                        primal=None if cfg.primal_returned(True) else False)
    return ",".join([*_start(cfg), prepare_pipeline([function], cfg.inline), forward,
                     *_optimize(cfg)])


def _config(config: Config | None, changes: dict[str, Any]) -> Config:
    cfg = config or DEFAULT
    return cfg.replace(**changes) if changes else cfg


def enzyme_pipeline(targets: Sequence[str], config: Config | None = None, *,
                    show_activity: Sequence[tuple[str, Sequence[str], bool]] = (),
                    checkpoint: Sequence[str] = (), **changes: Any) -> str:
    """The pipeline of `enzyme-py transform`: lower the `__enzyme_autodiff`/`__enzyme_fwddiff`
    calls, whose functions are `targets`; `show_activity` lists (function, activities, active
    return) to print first; with the config's checkpointing, the time loops of the functions
    `checkpoint` (those of `__enzyme_autodiff` calls) are checkpointed."""
    cfg = _config(config, changes)
    steps = [prepare_pipeline(targets, cfg.inline)]
    if cfg.checkpointing:
        steps += [pass_text("checkpoint-loops", fn=fn, snapshots=cfg.checkpoint_snapshots or None,
                            budget=cfg.memory_budget) for fn in checkpoint]
    steps += [pass_text("print-activity", fn=fn, acts=list(acts),
                        ret="active" if ret else "const") for fn, acts, ret in show_activity]
    steps += ["lower-enzyme", "tape-scopes", pass_text("tape-checks", hugepages=True)]
    return ",".join(_start(cfg) + steps + _optimize(cfg))


def run_pipeline(module: Module, text: str, on_stage: Stage | None = None) -> Module:
    """`text` run on a copy of `module` (`module` itself is never changed)."""
    work = reparse(module)  # keeps each instruction's source location for LLVM's diagnostics
    return Pipeline.parse(text).run(work, on_stage)


def prepare(module: Module, on_stage: Stage | None = None,
            targets: Sequence[str] = (), inline: bool = True) -> Module:
    """The canonicalized copy of `module` that the transforms read (`prepare_pipeline`)."""
    return run_pipeline(module, prepare_pipeline(targets, inline), on_stage)


def _derive(module: Module, text: str, on_stage: Stage | None,
            handed_over: bool = False) -> tuple[Module, str]:
    """`text` run on a copy of `module`, or with `handed_over` on `module` itself (the caller
    gives it up: no print and re-parse to copy it)."""
    pipeline = Pipeline.parse(text)
    out = pipeline.run(module if handed_over else reparse(module), on_stage)
    made = [p for p in pipeline.passes if isinstance(p, (Reverse, Forward))]
    assert made and made[-1].derived is not None
    return out, made[-1].derived


def gradient_module(module: Module, function: str, activities: Sequence[str],
                    return_active: bool, config: Config | None = None, *,
                    on_stage: Stage | None = None, handed_over: bool = False,
                    array_extents: Sequence[str] = (), prepared: bool = False,
                    **changes: Any) -> tuple[Module, str]:
    """Canonicalize, differentiate `function`, optimize; returns (module, gradient name).
    The options are `config`'s (opt level, inlining, name, return-primal), with `changes`.
    `module` is left as it was, unless `handed_over` (the caller no longer reads it: it is
    then worked on in place, which saves copying it). `prepared`: see `prepare_pipeline`."""
    text = gradient_pipeline(function, activities, return_active, _config(config, changes),
                             show_activity=on_stage is not None,
                             marked_loops=has_property(module, LOOP_PROPERTY),
                             array_extents=array_extents, prepared=prepared)
    return _derive(module, text, on_stage, handed_over)


def forward_module(module: Module, function: str, activities: Sequence[str],
                   config: Config | None = None, *, on_stage: Stage | None = None,
                   handed_over: bool = False, **changes: Any) -> tuple[Module, str]:
    """Canonicalize a copy of `module` (`module` itself where `handed_over`), add the
    forward derivative of `function`, optimize; returns (module, name of the derivative).
    The forward twin of `gradient_module` (the options are `config`'s, with `changes`:
    width, name, return-primal, inlining, opt level).

    Example::

        out, name = forward_module(parse(text), "f", ["dup", "const"], width=2)
    """
    text = forward_pipeline(function, activities, _config(config, changes))
    return _derive(module, text, on_stage, handed_over)
