"""The `opt` and `demo` commands of `enzyme-py` (registered on import).

Invariant: commands read input through `cli.read_text` and report failures as
`EnzymePyError`, so `cli.main` prints them as one line and exits 1.
"""

from __future__ import annotations

import argparse
import sys

from enzyme_py.ad import driver  # noqa: F401  (registers the AD passes and the printers)
from enzyme_py.cli.files import StageDump, add_dump_options, read_module, write_text
from enzyme_py.cli.registry import command
from enzyme_py.errors import EnzymePyError
from enzyme_py.passes import PASSES, PREPROCESS_PIPELINE, Pipeline, PrinterPass


def _opt_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", nargs="?", help="LLVM text file (.ll), or - for stdin")
    p.add_argument("-p", "--passes", default=PREPROCESS_PIPELINE, metavar="PIPELINE",
                   help=f"comma-separated passes, each with its arguments in braces: "
                        f"'sroa,reverse{{fn=f,acts=dup,out}}' (default: {PREPROCESS_PIPELINE}); "
                        "see --list-passes, and --print-pipeline of enzyme-py grad/transform")
    p.add_argument("-o", "--output", metavar="OUT.ll", help="output file (default: stdout)")
    p.add_argument("--list-passes", action="store_true",
                   help="list the known passes with their arguments and exit")
    p.add_argument("--disable-output", action="store_true",
                   help="do not write the module (the printers' reports still go to stdout)")
    add_dump_options(p)


@command("opt", "parse, verify and transform an LLVM module with a pipeline of named passes "
         "(printers such as print-activity write their reports to stdout, before the module)",
         _opt_arguments)
def opt(args: argparse.Namespace) -> int:
    if args.list_passes:
        _list_passes()
        return 0
    if args.input is None:
        raise EnzymePyError("no input file (give a .ll file, or - for stdin)")
    pipeline = Pipeline.parse(args.passes)
    module = read_module(args.input)
    dump = StageDump(args.print_after_all, args.dump_dir)
    if dump.active:
        dump("input", module)
    module = pipeline.run(module, dump if dump.active else None)
    sys.stdout.write("".join(r for p in pipeline.passes if isinstance(p, PrinterPass)
                             for r in p.reports))
    if not args.disable_output:
        write_text(args.output, str(module))
    return 0


def _list_passes() -> None:
    for name in sorted(PASSES):
        info = PASSES[name]
        if not info.params:
            print(f"  {name:24s} {info.help}")
            continue
        print(f"  {info.usage()}\n  {'':24s} {info.help}")
        for param in info.params:
            default = param.default
            if isinstance(default, bool):
                default = int(default)
            said = "" if default is None or param.required else f" (default: {default})"
            print(f"  {'':24s}   {param.key + '=':8s} {param.help}{said}")


def _demo_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true", help="print less")


@command("demo", "run the bundled examples end to end (what `make demo` shows)",
         _demo_arguments)
def demo(args: argparse.Namespace) -> int:
    from enzyme_py.demo import run_demo

    return run_demo(quiet=args.quiet)
