"""Named passes with arguments, and pipelines of them.

Invariants: a pass is a small object with a `name` and `run(module) -> Module` (it may return
the module it was given, changed in place, or a new one); a pipeline is a list of passes, spelled
as text (`"sroa,instcombine,reverse{fn=f,acts=dup,out}"`, `pass_spec.py`). Passes are
registered with `register_pass` where they are defined, each with the arguments it takes
(`Param`); LLVM's own passes (through llvmlite) and the levels `O0`..`O3` are registered here,
the AD passes in `ad/prepare_passes.py` and `ad/derive_passes.py`, the printers in
`ad/print_passes.py`, `prepare` in `ad/driver.py` (which imports them all). A pass that runs
steps of its own (`NestedPass`) shows each of them to the observer. Consecutive LLVM passes
run in one llvmlite session unless the caller asks to see the IR after every pass. A printer
(`PrinterPass`) leaves the module alone and keeps its report; the IR "after" a printer, as an
observer sees it, is that report.

Example::

    >>> from enzyme_py.passes import Pipeline
    >>> pipe = Pipeline.parse("sroa,instcombine")
    >>> [p.name for p in pipe.passes]
    ['sroa', 'instcombine']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from enzyme_py import backend as jit
from enzyme_py.errors import BackendError
from enzyme_py.fastmath import FLAGS, add_fast_math, fast_math_flags
from enzyme_py.ir import Module, parse, verify
from enzyme_py.ir.source_map import forget_locations, locate_message
from enzyme_py.pass_spec import Argument, PipelineError, format_item, parse_pipeline
from enzyme_py.stage_times import stage

__all__ = ["PASSES", "PREPROCESS_PIPELINE", "LLVMPasses", "NestedPass", "OptLevel", "Param",
           "Pass", "PassInfo", "Pipeline", "PipelineError", "PrinterPass", "Stage",
           "pass_text", "register_pass", "through_llvm"]

# What sees each stage of a pipeline: its name and the module (or a printer's report).
Stage = Callable[[str, object], None]


class Pass(Protocol):
    name: str

    def run(self, module: Module) -> Module: ...


@dataclass(frozen=True)
class Param:
    """One argument a pass takes: `key=value` in `pass{...}`.

    `kind` is `str`, `int`, `bool` (`key=1`/`0`, or the bare word `key`) or `list` (words
    separated by commas: `acts=dup,out`). An argument left out is `default`, or an error
    when `required`."""

    key: str
    help: str
    kind: type = str
    default: object = None
    required: bool = False

    def convert(self, pass_name: str, words: list[str]) -> object:
        if self.kind is list:
            return [w for w in words if w]
        if len(words) != 1:
            raise PipelineError(f"{pass_name}: {self.key}= takes one value, not "
                                f"{','.join(words) or 'none'}")
        word = words[0]
        if self.kind is bool:
            if word.lower() not in _BOOLS:
                raise PipelineError(f"{pass_name}: {self.key}= is 1 or 0, not {word!r}")
            return _BOOLS[word.lower()]
        if self.kind is int:
            try:
                return int(word)
            except ValueError:
                raise PipelineError(f"{pass_name}: {self.key}= is a number, not {word!r}") \
                    from None
        return word


_BOOLS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


@dataclass(frozen=True)
class PassInfo:
    name: str
    help: str
    factory: Callable[..., Pass]
    params: tuple[Param, ...] = ()

    def make(self, arguments: Sequence[Argument] = ()) -> Pass:
        """The pass, its arguments bound (`bind_arguments`)."""
        return self.factory(**bind_arguments(self, arguments))

    def usage(self) -> str:
        """`name{key=...,...}` as `--list-passes` shows it."""
        if not self.params:
            return self.name
        return f"{self.name}{{{','.join(p.key + '=' for p in self.params)}}}"


def bind_arguments(info: PassInfo, arguments: Sequence[Argument]) -> dict[str, object]:
    """The keyword arguments of `info.factory` for these parsed arguments.

    A bare word continues the list argument before it (`acts=dup,out`) or, where there is
    none, sets a flag (`primal`)."""
    params = {p.key: p for p in info.params}
    words: dict[str, list[str]] = {}
    last: Param | None = None
    for arg in arguments:
        if arg.key is None and last is not None and last.kind is list:
            words[last.key].append(arg.value)
            continue
        key, value = (arg.key, arg.value) if arg.key is not None else (arg.value, "1")
        param = params.get(key)
        if param is None or (arg.key is None and param.kind is not bool):
            known = ", ".join(params) or "none"
            what = f"argument {key!r}" if arg.key is not None else f"word {key!r}"
            raise PipelineError(f"{info.name}: unknown {what} (its arguments: {known})")
        if key in words:
            raise PipelineError(f"{info.name}: {key}= given twice")
        words[key] = [value] if value or param.kind is not list else []
        last = param
    out: dict[str, object] = {}
    for p in info.params:
        if p.key in words:
            out[p.key] = p.convert(info.name, words[p.key])
        elif p.required:
            raise PipelineError(f"{info.name}: needs {p.key}= ({p.help})")
        else:
            out[p.key] = p.default
    return out


PASSES: dict[str, PassInfo] = {}

# The canonicalization Enzyme runs before differentiating (DESIGN.md, "Preprocess").
# `strip-optnone` first: clang -O0 marks every function optnone, which LLVM's passes respect.
PREPROCESS_PIPELINE = "strip-optnone,sroa,instcombine,simplifycfg,loop-simplify,lcssa"


def register_pass(name: str, help: str, params: Sequence[Param] = ()
                  ) -> Callable[[Callable[..., Pass]], Callable[..., Pass]]:
    """Register a pass factory under `name` (used as a decorator); the factory takes one
    keyword argument per `Param`."""

    def deco(factory: Callable[..., Pass]) -> Callable[..., Pass]:
        if name in PASSES:
            raise ValueError(f"pass {name!r} registered twice")
        PASSES[name] = PassInfo(name, help, factory, tuple(params))
        return factory

    return deco


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


class PrinterPass:
    """A pass that prints what an analysis found and leaves the module alone.

    Subclasses give `name` and `report(module)`; each run appends its report to `reports`."""

    name = "printer"

    def __init__(self) -> None:
        self.reports: list[str] = []

    def report(self, module: Module) -> str:
        raise NotImplementedError

    def run(self, module: Module) -> Module:
        self.reports.append(self.report(module))
        return module


class NestedPass:
    """A pass made of other steps, each shown to an observer (`Pipeline.run`)."""

    name = "nested"

    def run_observed(self, module: Module, after_each: Stage | None) -> Module:
        raise NotImplementedError

    def run(self, module: Module) -> Module:
        return self.run_observed(module, None)


class FastMath:
    """`fast-math{flags=reassoc,contract}`: LLVM's fast-math flags on every floating-point
    operation (`fastmath.add_fast_math`; no flags given: all of them, `fast`)."""

    name = "fast-math"

    def __init__(self, flags: list[str]) -> None:
        self.flags = fast_math_flags(flags or True)

    def run(self, module: Module) -> Module:
        return add_fast_math(module, self.flags)


register_pass("fast-math", "put LLVM's fast-math flags on every floating-point operation", (
    Param("flags", f"some of {', '.join(FLAGS)} (default: all, 'fast')", list, ()),
))(FastMath)
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
        """Build a pipeline from `"a,b{k=v},c"` or `["a", "b{k=v}", "c"]`, with the passes
        registered so far (`ad/driver.py` imports every module that registers some)."""
        text = spec if isinstance(spec, str) else ",".join(spec)
        items = parse_pipeline(text)
        if not items:
            raise PipelineError("empty pipeline")
        passes: list[Pass] = []
        for item in items:
            info = PASSES.get(item.name)
            if info is None:
                known = ", ".join(sorted(PASSES))
                raise PipelineError(f"unknown pass {item.name!r}; known passes: {known}")
            passes.append(info.make(item.arguments))
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

    def run(self, module: Module, after_each: Stage | None = None) -> Module:
        """Run every pass in order; `after_each(pass_name, module)` sees each stage (after a
        printer: its report; inside a `NestedPass`: each of its steps)."""
        steps = self.passes if after_each is not None else self.fused()
        for p in steps:
            if isinstance(p, NestedPass):
                with stage(p.name):
                    module = p.run_observed(module, after_each)
                continue
            with stage(p.name):
                module = p.run(module)
            if after_each is not None:
                shown = _Report(p.reports[-1]) if isinstance(p, PrinterPass) else module
                after_each(p.name, shown)
        return module


class _Report:
    """A printer's report as an observer sees it (prints as the text)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def pass_text(pass_name: str, /, **arguments: object) -> str:
    """The text of one pass with these arguments (those that are None are left out), as
    `Pipeline.parse` reads it: `pass_text("reverse", fn="f", acts=["dup", "out"])`."""
    args: list[tuple[str, list[str]]] = []
    for key, value in arguments.items():
        if value is None:
            continue
        if isinstance(value, bool):
            words = ["1" if value else "0"]
        elif isinstance(value, (list, tuple)):
            words = [str(v) for v in value]
        else:
            words = [str(value)]
        args.append((key, words))
    return format_item(pass_name, args)
