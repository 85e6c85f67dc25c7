"""The `opt` and `demo` commands of `enzyme-py` (registered on import).

Invariant: commands read input through `cli.read_text` and report failures as
`EnzymePyError`, so `cli.main` prints them as one line and exits 1.
"""

from __future__ import annotations

import argparse
import sys

from enzyme_py.cli import StageDump, add_dump_options, command, read_module, write_text
from enzyme_py.errors import EnzymePyError
from enzyme_py.passes import PREPROCESS_PIPELINE, Pipeline


def _opt_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="LLVM text file (.ll), or - for stdin")
    p.add_argument("-p", "--passes", default=PREPROCESS_PIPELINE, metavar="PIPELINE",
                   help=f"comma-separated passes (default: {PREPROCESS_PIPELINE}); "
                        "see --list-passes")
    p.add_argument("-o", "--output", metavar="OUT.ll", help="output file (default: stdout)")
    p.add_argument("--list-passes", action="store_true", help="list the known passes and exit")
    p.add_argument("--print", action="store_true", dest="print_analyses",
                   help="print the results of analysis passes (activity, loops) instead of "
                        "the module (which still goes to -o when given)")
    add_dump_options(p)


@command("opt", "parse, verify and transform an LLVM module with a pipeline of named passes",
         _opt_arguments)
def opt(args: argparse.Namespace) -> int:
    if args.list_passes:
        from enzyme_py.passes import PASSES

        for name in sorted(PASSES):
            print(f"  {name:28s} {PASSES[name].help}")
        return 0
    pipeline = Pipeline.parse(args.passes)
    module = read_module(args.input)
    dump = StageDump(args.print_after_all, args.dump_dir)
    if dump.active:
        dump("input", module)
    module = pipeline.run(module, dump if dump.active else None)
    if args.print_analyses:
        from enzyme_py.passes import AnalysisPass

        reports = [r for p in pipeline.passes if isinstance(p, AnalysisPass) for r in p.reports]
        if not reports:
            raise EnzymePyError("--print needs an analysis pass in the pipeline "
                                "(e.g. -p activity or -p loops)")
        sys.stdout.write("\n".join(reports))
        if args.output:
            write_text(args.output, str(module))
        return 0
    write_text(args.output, str(module))
    return 0


def _demo_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true", help="print less")


@command("demo", "run the bundled examples end to end (what `make demo` shows)",
         _demo_arguments)
def demo(args: argparse.Namespace) -> int:
    from enzyme_py.demo import run_demo

    return run_demo(quiet=args.quiet)
