"""The `grad` and `transform` commands of `enzyme-py` (registered on import).

Invariant: both read LLVM text, canonicalize a copy, differentiate, optimize the result at
`-O<level>` and write LLVM text that plain clang-22 compiles and links. Both run a pipeline of
`ad/driver.py` (`--print-pipeline` shows it: `enzyme-py opt -p` runs the same).
"""

from __future__ import annotations

import argparse
import sys

from enzyme_py.ad.activity_arguments import default_activity
from enzyme_py.ad.driver import (
    enzyme_pipeline,
    forward_module,
    forward_pipeline,
    gradient_module,
    gradient_pipeline,
    run_pipeline,
)
from enzyme_py.ad.enzyme_abi import autodiff_calls, plan_call
from enzyme_py.ad.enzyme_abi_fwd import fwddiff_targets
from enzyme_py.ad.enzyme_abi_split import split_targets
from enzyme_py.ad.registrations import uncalled_rules
from enzyme_py.analysis.activities import WORDS, parse_activities
from enzyme_py.analysis.opcode_counts import opcode_counts
from enzyme_py.backend.ptx import emit_ptx
from enzyme_py.cli.files import StageDump, add_dump_options, read_module, write_text
from enzyme_py.cli.registry import command
from enzyme_py.config import Config
from enzyme_py.errors import EnzymePyError
from enzyme_py.ir import Module
from enzyme_py.ir.types import carries_float
from enzyme_py.passes import OptLevel
from enzyme_py.profiling.report import opcode_table, stage_table
from enzyme_py.stage_times import collecting


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="LLVM text file (.ll), or - for stdin")
    p.add_argument("-o", "--output", metavar="OUT.ll", help="output file (default: stdout)")
    p.add_argument("-O", dest="opt_level", type=int, default=2, choices=range(4),
                   help="optimization level of the output (default: 2)")
    p.add_argument("--no-inline", dest="inline", action="store_false",
                   help="keep calls as calls (each callee on an active path gets an augmented "
                        "forward function and a reverse function, as in Enzyme) instead of "
                        "inlining them before differentiating")
    p.add_argument("--fast-math", metavar="FLAGS", nargs="?", const="fast",
                   help="LLVM's fast-math flags on the primal and the derivative code: all "
                        "('fast') or a comma-separated set of reassoc, contract, nnan, ninf, "
                        "nsz, arcp, afn (default: IEEE-exact)")
    add_dump_options(p)
    p.add_argument("--target", choices=("nvptx64",),
                   help="write PTX for an NVPTX module (CUDA device code) instead of LLVM IR")
    p.add_argument("--sm", type=int, default=80,
                   help="with --target nvptx64: the compute capability (default: 80)")
    p.add_argument("--print-pipeline", action="store_true",
                   help="print the pipeline of passes this command runs (for enzyme-py opt -p) "
                        "and exit")


def _config(args: argparse.Namespace) -> Config:
    """The options the common flags give (`-O`, `--no-inline`, `--fast-math`)."""
    flags = args.fast_math.split(",") if args.fast_math else False
    return Config(opt_level=args.opt_level, inline=args.inline, fastmath=flags)


def _grad_arguments(p: argparse.ArgumentParser) -> None:
    _common(p)
    p.add_argument("--function", "-f", required=True, help="the function to differentiate")
    p.add_argument("--activity", "-a", metavar="LIST",
                   help=f"one of {', '.join(WORDS)} per argument, comma-separated "
                        "(default: integers const, floats out, pointers dup)")
    p.add_argument("--const-return", action="store_true",
                   help="treat a floating point result as inactive (no seed argument)")
    p.add_argument("--name", help="name of the gradient function (default: diffe_<function>)")
    p.add_argument("--profile", action="store_true",
                   help="print to stderr where the time goes (each stage of the pipeline) and "
                        "the instructions by opcode of the function and of its derivative")
    p.add_argument("--mode", choices=("reverse", "forward"), default="reverse",
                   help="forward: add @fwddiffe_<function> (tangents; floats default to dup)")
    p.add_argument("--width", type=int, default=1, help="forward mode: directions per sweep")
    _checkpoint_arguments(p)


def _checkpoint_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--checkpoint", action="store_true",
                   help="reverse the time loops of the differentiated functions by binomial "
                        "checkpointing: a few copies of a loop's state (about the square root "
                        "of its trip count) instead of a tape that grows with it")
    p.add_argument("--snapshots", metavar="STATES", type=int,
                   help="checkpoint, keeping this many copies of a loop's state")
    p.add_argument("--memory-budget", metavar="SIZE",
                   help="checkpoint, the kept states taking at most SIZE bytes ('256MB')")


def _with_checkpointing(config: Config, args: argparse.Namespace) -> Config:
    if not args.checkpoint and args.snapshots is None and args.memory_budget is None:
        return config
    return config.replace(checkpoint=args.snapshots if args.snapshots is not None else True,
                          memory_budget=args.memory_budget)


@command("grad", "add the reverse-mode gradient @diffe_<f> of one function to a module",
         _grad_arguments)
def grad(args: argparse.Namespace) -> int:
    module = read_module(args.input)
    try:
        fn = module.get_function(args.function)
    except KeyError as exc:
        raise EnzymePyError(str(exc.args[0])) from None
    if args.activity:
        acts = [a.strip() for a in args.activity.split(",") if a.strip()]
    else:
        acts = default_activity(fn, forward=args.mode == "forward")
    if len(acts) != len(fn.args):
        raise EnzymePyError(f"--activity lists {len(acts)} activities but @{fn.name} has "
                            f"{len(fn.args)} arguments")
    try:
        acts = list(parse_activities(acts))
    except ValueError as exc:
        raise EnzymePyError(str(exc)) from None
    ret_active = carries_float(fn.return_type) and not args.const_return
    forward = args.mode == "forward"
    config = _with_checkpointing(
        _config(args).replace(name=args.name, width=args.width if forward else 1), args)
    if args.print_pipeline:
        print(forward_pipeline(args.function, acts, config) if forward else
              gradient_pipeline(args.function, acts, ret_active, config))
        return 0
    dump = StageDump(args.print_after_all, args.dump_dir)
    if dump.active:
        dump("input", module)
    on_stage = dump if dump.active else None
    with collecting() as stages:
        if forward:
            out, name = forward_module(module, args.function, acts, config, on_stage=on_stage)
        else:
            out, name = gradient_module(module, args.function, acts, ret_active, config,
                                        on_stage=on_stage)
    if args.profile:
        table = stage_table(f"stages of enzyme-py grad -f {args.function}", tuple(stages))
        table += opcode_table(opcode_counts(module, args.function), opcode_counts(out, name),
                              title="instructions of the input function (primal) and of the "
                                    "derivative")
        print("\n".join(table), file=sys.stderr)
    _write(args, out)
    return 0


def _write(args: argparse.Namespace, out: Module) -> None:
    """The module as LLVM IR, or as PTX with `--target nvptx64` (the NVPTX target's own
    pipeline at `-O`: it turns generic pointers into global ones, among others)."""
    if args.target == "nvptx64":
        write_text(args.output, emit_ptx(str(out), sm=args.sm, opt_level=args.opt_level))
    else:
        write_text(args.output, str(out))


def _transform_arguments(p: argparse.ArgumentParser) -> None:
    _common(p)
    p.add_argument("--preoptimize", action="store_true",
                   help="the input is clang's unoptimized output (clang-22 -O2 -Xclang "
                        "-disable-llvm-passes -emit-llvm): run LLVM's -O2 before "
                        "differentiating, as Enzyme's plugin does, with the functions that "
                        "have registered derivatives kept as calls")
    p.add_argument("--allow-inlined-rules", action="store_true",
                   help="differentiate the inlined body of a function whose registered "
                        "derivative is no longer called (an error otherwise)")
    _checkpoint_arguments(p)


@command("transform", "lower every __enzyme_autodiff call (drop-in for Enzyme's plugin)",
         _transform_arguments)
def transform(args: argparse.Namespace) -> int:
    module = read_module(args.input)
    dump = StageDump(args.print_after_all, args.dump_dir)
    if dump.active and not args.print_pipeline:
        dump("input", module)
    _check_registered_rules(module, args)
    if args.preoptimize:
        module = preoptimize(module)
        if dump.active and not args.print_pipeline:
            dump("preoptimized", module)
    plans = [plan_call(module, c) for c in autodiff_calls(module)]
    targets = [p.function.name or "" for p in plans]
    targets += fwddiff_targets(module)
    split = split_targets(module)
    targets += split
    shown = [(p.function.name or "", p.activities, carries_float(p.function.return_type))
             for p in plans] if dump.active else []
    # checkpointed: the __enzyme_autodiff targets, not split-mode ones (memory may change
    # between their two calls)
    combined = dict.fromkeys(p.function.name or "" for p in plans)
    text = enzyme_pipeline(targets, _with_checkpointing(_config(args), args),
                           show_activity=shown,
                           checkpoint=[t for t in combined if t not in split])
    if args.print_pipeline:  # (of the preoptimized module, with --preoptimize)
        print(text)
        return 0
    out = run_pipeline(module, text, dump if dump.active else None)
    _write(args, out)
    return 0


def _check_registered_rules(module: Module, args: argparse.Namespace) -> None:
    """A registered derivative that no call uses any more (clang inlined the function) is an
    error: the gradient would differ from the user's rule."""
    uncalled = uncalled_rules(module)
    if not uncalled:
        return
    names = ", ".join(f"@{n}" for n in uncalled)
    if not args.allow_inlined_rules:
        raise EnzymePyError(
            f"{names} has a registered derivative (or is declared inactive, or like a math "
            "function) but no call to it is left in this module: clang inlined it (at -O1 "
            "and above), so the gradient would differentiate its body, not your rule. "
            "Compile with `clang-22 -O2 -Xclang -disable-llvm-passes -S -emit-llvm` and pass "
            "--preoptimize (enzyme-py then runs -O2 itself, keeping registered functions as "
            "calls), or declare it __attribute__((noinline)); --allow-inlined-rules "
            "differentiates the inlined code instead")
    print(f"{args.input}: warning: {names} has a registered derivative that is not used "
          "(inlined); its inlined body is differentiated (--allow-inlined-rules)",
          file=sys.stderr)


def preoptimize(module: Module) -> Module:
    """LLVM's -O2 for differentiation (`OptLevel(2, for_ad=True)`: no unrolling or
    vectorization, Enzyme's place in the pipeline) over clang's unoptimized output, with
    every function that has a registered derivative (and its rules) made `noinline`, so the
    calls the rules replace survive."""
    from enzyme_py.ad.registrations import find_registrations

    reg = find_registrations(module)
    keep = reg.keep_calls  # (rules, inactive functions, functions like a math function)
    for fn in module.functions:
        if fn.name in keep and not fn.is_declaration:
            fn.suffix = [w for w in fn.suffix if w not in ("alwaysinline", "inlinehint")]
            if "noinline" not in fn.suffix:
                fn.suffix = [*fn.suffix, "noinline"]
    return OptLevel(2, for_ad=True).run(module)
