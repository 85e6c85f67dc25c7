"""From a module and a function name to an optimized module holding the gradient.

Invariants: the caller's module is never changed (the work happens on a canonicalized copy);
every stage can be observed through `on_stage(name, module)`; the result verifies.

Example::

    out, grad_name = gradient_module(parse(text), "f", ["dup", "const"], return_active=True)
"""

from __future__ import annotations

from collections.abc import Callable

from enzyme_py.ad.reverse import ReverseOptions, reverse_diff
from enzyme_py.analysis.activity import analyze_activity
from enzyme_py.analysis.errors import DifferentiationError
from enzyme_py.ir import Module
from enzyme_py.passes import OptLevel, Pipeline

# Enzyme's canonicalization before AD: SSA values instead of stack slots, one return,
# loops with a preheader and one latch, values leaving loops through exit-block phis.
AD_PIPELINE = ("strip-optnone,always-inline,sroa,instcombine,simplifycfg,mergereturn,"
               "loop-simplify,lcssa")

Stage = Callable[[str, Module], None]


def prepare(module: Module, on_stage: Stage | None = None) -> Module:
    """The canonicalized copy of `module` that the transforms read."""
    return Pipeline.parse(AD_PIPELINE).run(module, on_stage)


def gradient_module(module: Module, function: str, activities: list[str], return_active: bool,
                    *, opt_level: int = 2, name: str | None = None,
                    return_primal: bool = False,
                    on_stage: Stage | None = None) -> tuple[Module, str]:
    """Canonicalize, differentiate `function`, optimize; returns (module, gradient name)."""
    work = prepare(module, on_stage)
    try:
        fn = work.get_function(function)
    except KeyError as exc:
        raise DifferentiationError(str(exc.args[0])) from None
    if on_stage is not None:
        on_stage("activity", _ActivityView(analyze_activity(fn, activities, return_active)))
    grad = reverse_diff(work, fn, activities, return_active,
                        ReverseOptions(name=name, return_primal=return_primal))
    if on_stage is not None:
        on_stage("gradient", work)
    if opt_level > 0:
        work = OptLevel(opt_level).run(work)
        if on_stage is not None:
            on_stage(f"O{opt_level}", work)
    assert grad.name is not None
    return work, grad.name


class _ActivityView:
    """Prints as the activity-annotated function (what `--print-after-all` shows)."""

    def __init__(self, activity: object) -> None:
        self.activity = activity

    def __str__(self) -> str:
        return str(self.activity)
