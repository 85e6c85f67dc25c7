"""The `grad` and `transform` commands of `enzyme-py` (registered on import).

Invariant: both read LLVM text, canonicalize a copy, differentiate, optimize the result at
`-O<level>` and write LLVM text that plain clang-22 compiles and links.
"""

from __future__ import annotations

import argparse
import sys

from enzyme_py.ad.driver import gradient_module, prepare
from enzyme_py.ad.enzyme_abi import autodiff_calls, lower_autodiff_calls
from enzyme_py.ad.registrations import uncalled_rules
from enzyme_py.analysis.activity import ACTIVITIES, analyze_activity, carries_float
from enzyme_py.cli import StageDump, add_dump_options, command, read_module, write_text
from enzyme_py.errors import EnzymePyError
from enzyme_py.passes import OptLevel


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="LLVM text file (.ll), or - for stdin")
    p.add_argument("-o", "--output", metavar="OUT.ll", help="output file (default: stdout)")
    p.add_argument("-O", dest="opt_level", type=int, default=2, choices=range(4),
                   help="optimization level of the output (default: 2)")
    p.add_argument("--no-inline", dest="inline", action="store_false",
                   help="keep calls as calls (each callee on an active path gets an augmented "
                        "forward function and a reverse function, as in Enzyme) instead of "
                        "inlining them before differentiating")
    add_dump_options(p)


def _grad_arguments(p: argparse.ArgumentParser) -> None:
    _common(p)
    p.add_argument("--function", "-f", required=True, help="the function to differentiate")
    p.add_argument("--activity", "-a", metavar="LIST",
                   help=f"one of {', '.join(ACTIVITIES)} per argument, comma-separated "
                        "(default: integers const, floats out, pointers dup)")
    p.add_argument("--const-return", action="store_true",
                   help="treat a floating point result as inactive (no seed argument)")
    p.add_argument("--name", help="name of the gradient function (default: diffe_<function>)")
    p.add_argument("--mode", choices=("reverse", "forward"), default="reverse",
                   help="forward: add @fwddiffe_<function> (tangents; floats default to dup)")
    p.add_argument("--width", type=int, default=1, help="forward mode: directions per sweep")


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
        acts = ["const" if a.type.is_int else "dup" if args.mode == "forward" else
                "out" if carries_float(a.type) else "dup" for a in fn.args]
    if len(acts) != len(fn.args):
        raise EnzymePyError(f"--activity lists {len(acts)} activities but @{fn.name} has "
                            f"{len(fn.args)} arguments")
    bad = [a for a in acts if a not in ACTIVITIES]
    if bad:
        raise EnzymePyError(f"unknown activity {bad[0]!r}; use one of {', '.join(ACTIVITIES)}")
    ret_active = carries_float(fn.return_type) and not args.const_return
    dump = StageDump(args.print_after_all, args.dump_dir)
    if dump.active:
        dump("input", module)
    if args.mode == "forward":
        from enzyme_py.ad.forward import forward_module

        out, _ = forward_module(module, args.function, acts, width=args.width,
                                opt_level=args.opt_level, name=args.name, inline=args.inline,
                                on_stage=dump if dump.active else None)
        write_text(args.output, str(out))
        return 0
    out, name = gradient_module(module, args.function, acts, ret_active,
                                opt_level=args.opt_level, name=args.name, inline=args.inline,
                                on_stage=dump if dump.active else None)
    write_text(args.output, str(out))
    return 0


@command("transform", "lower every __enzyme_autodiff call (drop-in for Enzyme's plugin)",
         _common)
def transform(args: argparse.Namespace) -> int:
    module = read_module(args.input)
    dump = StageDump(args.print_after_all, args.dump_dir)
    if dump.active:
        dump("input", module)
    from enzyme_py.ad.enzyme_abi import plan_call
    from enzyme_py.ad.enzyme_abi_fwd import fwddiff_targets, lower_fwddiff_calls

    for name in uncalled_rules(module):
        print(f"{args.input}: warning: @{name} has a registered derivative but no call to it "
              "is left in this module (clang inlines small functions at -O1 and above), so "
              "the registered rule is not used; declare it __attribute__((noinline))",
              file=sys.stderr)
    targets = [plan_call(module, c).function.name or "" for c in autodiff_calls(module)]
    targets += fwddiff_targets(module)
    work = prepare(module, dump if dump.active else None, targets=targets, inline=args.inline)
    if dump.active:
        for call in autodiff_calls(work):
            plan = plan_call(work, call)
            act = analyze_activity(plan.function, list(plan.activities),
                                   carries_float(plan.function.return_type))
            dump(f"activity-{plan.function.name}", act)
    lower_autodiff_calls(work)
    lower_fwddiff_calls(work)
    if dump.active:
        dump("gradient", work)
    if args.opt_level > 0:
        work = OptLevel(args.opt_level).run(work)
        if dump.active:
            dump(f"O{args.opt_level}", work)
    write_text(args.output, str(work))
    return 0
