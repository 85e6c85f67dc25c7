"""`show`: the IR of a function at one stage of the gradient pipeline."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from enzyme_py.analysis.activities import Activity
from enzyme_py.api.compile import build_module, optimize_before_ad, param_names
from enzyme_py.api.grad import normalize_argnums
from enzyme_py.calling import (
    arg_types,
)
from enzyme_py.config import Config
from enzyme_py.frontend import Array, Scalar


def show(f: Callable, *args: Any, stage: str = "gradient", argnums: int | Sequence[int] = 0,
         preoptimize: bool = False, bounds_check: bool = True) -> str:
    """The IR of `f` for these arguments at a stage: `python` (our IR of the function),
    `preprocessed` (canonicalized for AD), `activity`, `gradient` (before optimization), or
    `optimized`. `grad` runs LLVM's -O2 on `f` before differentiating it; the stages skip
    that step, which keeps them close to the source, unless `preoptimize` is true (then they
    show exactly the code `grad` differentiates and runs); `bounds_check` as in `grad`."""
    from enzyme_py.ad.driver import gradient_module

    pyfunc = getattr(f, "pyfunc", f)
    types = arg_types(pyfunc.__name__, param_names(pyfunc), args)
    module, compiled, _ = build_module(pyfunc, types, Config(bounds_check), True,
                                       reverse_mode=stage != "python")  # (as `grad` builds it)
    if stage == "python":
        return str(module)
    stages: dict[str, str] = {}
    nums = normalize_argnums(argnums, len(args), pyfunc.__name__)
    acts: list[str] = []
    for i, t in enumerate(types):
        if isinstance(t, Array):
            acts.append(Activity.DUP if i in nums else Activity.CONST)
            acts.extend([Activity.CONST] * t.extents)
        else:
            acts.append(Activity.OUT if i in nums and isinstance(t, Scalar) and t.is_float
                        else Activity.CONST)
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
