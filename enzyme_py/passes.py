"""Named passes and pipelines over IR modules.

Invariants: a pass is a small object with a `name` and `run(module) -> Module` (it may return
the module it was given, changed in place, or a new one); a pipeline is a list of passes, spelled
as a comma-separated string (`"sroa,instcombine,simplifycfg,loop-simplify,lcssa"`). Passes are
registered with `@register_pass` where they are defined; LLVM's own passes (through llvmlite)
and the levels `O0`..`O3` are registered here. Consecutive LLVM passes run in one llvmlite
session unless the caller asks to see the IR after every pass.

Example::

    >>> from enzyme_py.passes import Pipeline
    >>> pipe = Pipeline.parse("sroa,instcombine")
    >>> [p.name for p in pipe.passes]
    ['sroa', 'instcombine']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from enzyme_py import backend as jit
from enzyme_py.errors import BackendError, EnzymePyError
from enzyme_py.ir import Function, Module, parse, verify
from enzyme_py.ir.source_map import forget_locations, locate_message


class Pass(Protocol):
    name: str

    def run(self, module: Module) -> Module: ...


@dataclass(frozen=True)
class PassInfo:
    name: str
    help: str
    factory: Callable[[], Pass]


PASSES: dict[str, PassInfo] = {}

# The canonicalization Enzyme runs before differentiating (DESIGN.md, "Preprocess").
# `strip-optnone` first: clang -O0 marks every function optnone, which LLVM's passes respect.
PREPROCESS_PIPELINE = "strip-optnone,sroa,instcombine,simplifycfg,loop-simplify,lcssa"


def register_pass(name: str, help: str) -> Callable[[Callable[[], Pass]], Callable[[], Pass]]:
    """Register a pass factory under `name` (used as a decorator)."""

    def deco(factory: Callable[[], Pass]) -> Callable[[], Pass]:
        if name in PASSES:
            raise ValueError(f"pass {name!r} registered twice")
        PASSES[name] = PassInfo(name, help, factory)
        return factory

    return deco


class PipelineError(EnzymePyError):
    """An unknown pass name or a malformed pipeline string."""


def through_llvm(module: Module, name: str, run: Callable[[str], str]) -> Module:
    """`run` (LLVM) on the printed `module`, parsed back into a new module.

    A diagnostic of LLVM about the printed text names the user's `file:line` of the
    instruction (see `source_map.locate_message`), not a line of text the user never saw. The
    result is new code: it has no source locations, and a parse error in it names
    `<LLVM output of NAME>`."""
    text = str(module)
    try:
        out_text = run(text)
    except BackendError as err:
        message = locate_message(str(err), module, text, jit.PRINTED_NAME)
        raise BackendError(message.replace(f"module '{jit.PRINTED_NAME}'",
                                           f"module '{module.name}'")) from None
    out = parse(out_text, f"<LLVM output of {name}>")
    out.name = module.name
    forget_locations(out)
    return out


@dataclass
class LLVMPasses:
    """One or more of LLVM's passes, run by llvmlite on the printed module."""

    names: list[str]

    @property
    def name(self) -> str:
        return ",".join(self.names)

    def run(self, module: Module) -> Module:
        return through_llvm(module, self.name,
                            lambda text: jit.run_llvm_passes(text, self.names))


@dataclass
class OptLevel:
    """LLVM's default pipeline at `-O<level>`.

    `for_ad=True` (named `O<level>-ad`) is that pipeline without loop unrolling and the loop
    and SLP vectorizers: Enzyme's place in the pipeline, after the scalar simplifications and
    before loops are restructured. Unrolled or vectorized loops would be differentiated as
    such (more values to tape, wider code); the gradient is optimized in full afterwards,
    which unrolls and vectorizes the gradient itself."""

    level: int
    for_ad: bool = False

    @property
    def name(self) -> str:
        return f"O{self.level}" + ("-ad" if self.for_ad else "")

    def run(self, module: Module) -> Module:
        keep_loops = not self.for_ad
        return through_llvm(module, self.name, lambda text: jit.optimize(
            text, self.level, loop_vectorize=keep_loops, slp_vectorize=keep_loops,
            unroll=keep_loops))


@dataclass
class VerifyPass:
    name: str = "verify"

    def run(self, module: Module) -> Module:
        verify(module)
        return module


@dataclass
class StripOptNone:
    """Drop `optnone` (clang -O0 adds it) so that the canonicalizing passes may run."""

    name: str = "strip-optnone"

    def run(self, module: Module) -> Module:
        for fn in module.functions:
            fn.suffix = [w for w in fn.suffix if w != "optnone"]
        for key, line in module.attribute_groups.items():
            module.attribute_groups[key] = _OPTNONE.sub("", line)
        return module


_OPTNONE = re.compile(r"(?<![\w\"-])optnone (?=[^\"]*(?:\"[^\"]*\"[^\"]*)*\}$)")

@dataclass
class AnalysisPass:
    """Runs an analysis on every defined function; `reports` holds the printed results."""

    name: str
    analyze: Callable[[Function], object]
    reports: list[str] = field(default_factory=list)

    def run(self, module: Module) -> Module:
        for fn in module.functions:
            if not fn.is_declaration:
                self.reports.append(str(self.analyze(fn)))
        return module


def _default_activity(fn: Function) -> object:
    from enzyme_py.analysis.activity import analyze_activity, carries_float

    acts = ["const" if a.type.is_int else "out" if carries_float(a.type) else
            "dup" if a.type.is_pointer else "const" for a in fn.args]
    return analyze_activity(fn, acts, carries_float(fn.return_type))


def _loops(fn: Function) -> object:
    from enzyme_py.analysis.loops import describe_loops

    return describe_loops(fn)


register_pass("activity", "activity analysis with default activities (ints const, floats "
              "out, pointers dup); see --print")(lambda: AnalysisPass("activity",
                                                                      _default_activity))
register_pass("loops", "natural loops, induction variables, trip counts; see --print")(
    lambda: AnalysisPass("loops", _loops))
register_pass("verify", "check the IR invariants (raises on the first bad function)")(VerifyPass)
register_pass("strip-optnone", "remove optnone so that -O0 code can be optimized")(StripOptNone)
for _level in range(4):
    register_pass(f"O{_level}", f"LLVM's default -O{_level} pipeline")(
        lambda level=_level: OptLevel(level))
    register_pass(f"O{_level}-ad", f"-O{_level} for differentiation: no loop unrolling, no "
                  "vectorizers")(lambda level=_level: OptLevel(level, for_ad=True))
for _name in sorted(set(jit.LLVM_PASSES) - set(PASSES)):
    register_pass(_name, f"LLVM pass '{_name}'")(lambda n=_name: LLVMPasses([n]))


@dataclass
class Pipeline:
    passes: list[Pass] = field(default_factory=list)

    @classmethod
    def parse(cls, spec: str | list[str]) -> Pipeline:
        """Build a pipeline from `"a,b,c"` or `["a", "b", "c"]`."""
        names = spec.split(",") if isinstance(spec, str) else list(spec)
        names = [n.strip() for n in names if n.strip()]
        if not names:
            raise PipelineError("empty pipeline")
        passes: list[Pass] = []
        for n in names:
            info = PASSES.get(n)
            if info is None:
                known = ", ".join(sorted(PASSES))
                raise PipelineError(f"unknown pass {n!r}; known passes: {known}")
            passes.append(info.factory())
        return cls(passes)

    def fused(self) -> list[Pass]:
        """The passes with runs of adjacent LLVM passes merged into one llvmlite call."""
        out: list[Pass] = []
        for p in self.passes:
            if isinstance(p, LLVMPasses) and out and isinstance(out[-1], LLVMPasses):
                out[-1] = LLVMPasses(out[-1].names + p.names)
            else:
                out.append(p)
        return out

    def run(self, module: Module,
            after_each: Callable[[str, Module], None] | None = None) -> Module:
        """Run every pass in order; `after_each(pass_name, module)` sees each stage."""
        steps = self.passes if after_each is not None else self.fused()
        for p in steps:
            module = p.run(module)
            if after_each is not None:
                after_each(p.name, module)
        return module
