"""`enzyme-py`: the command-line front door.

Invariants: every command returns an exit status; an `EnzymePyError` (bad input, unsupported
construct) or an unreadable file prints one clear message to stderr and exits 1, never a
traceback (`--traceback` shows one for bug reports); a warning prints one line to stderr.
Input files are parsed and verified (`read_module`), so an error in one names its line.
Commands register themselves with `@command`, so adding one never edits a central list.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

from enzyme_py.errors import EnzymePyError
from enzyme_py.ir import Module, parse, verify

Handler = Callable[[argparse.Namespace], int]
_COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Handler]] = {}


def command(name: str, help: str,
            arguments: Callable[[argparse.ArgumentParser], None]) -> Callable[[Handler], Handler]:
    """Register a subcommand: `arguments` adds its options, the decorated function runs it."""

    def deco(fn: Handler) -> Handler:
        _COMMANDS[name] = (help, arguments, fn)
        return fn

    return deco


def read_text(path: str) -> str:
    """The file's text (`-` is stdin); an unreadable file is an `EnzymePyError`."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise EnzymePyError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise EnzymePyError(f"{path}: not a text file (is it LLVM bitcode? use a .ll file)") \
            from None
    except OSError as exc:
        raise EnzymePyError(f"{path}: cannot read ({exc.strerror})") from None


def read_module(path: str) -> Module:
    """The file parsed and verified: an error in it names `path:line` (ours, before LLVM,
    whose verifier gives no location, ever sees the text)."""
    module = parse(read_text(path), "<stdin>" if path == "-" else path)
    verify(module)
    return module


def write_text(path: str | None, text: str) -> None:
    if path is None or path == "-":
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise EnzymePyError(f"{path}: cannot write ({exc.strerror})") from None


class StageDump:
    """Shows the IR after each stage: on stderr, or as numbered files in a directory."""

    def __init__(self, print_all: bool, dump_dir: str | None) -> None:
        self.print_all = print_all
        self.dir = Path(dump_dir) if dump_dir else None
        self.count = 0
        if self.dir is not None:
            try:
                self.dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise EnzymePyError(f"{dump_dir}: cannot create ({exc.strerror})") from None

    @property
    def active(self) -> bool:
        return self.print_all or self.dir is not None

    def __call__(self, stage: str, module: object) -> None:
        text = str(module)
        if self.print_all:
            sys.stderr.write(f"; *** IR after {stage} ***\n{text}\n")
        if self.dir is not None:
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in stage)
            (self.dir / f"{self.count:02d}-{safe}.ll").write_text(text, encoding="utf-8")
        self.count += 1


def add_dump_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--print-after-all", action="store_true",
                   help="print the IR after every stage to stderr")
    p.add_argument("--dump-dir", metavar="DIR",
                   help="write the IR after every stage to DIR/NN-stage.ll")


def build_parser() -> argparse.ArgumentParser:
    _load_commands()
    parser = argparse.ArgumentParser(
        prog="enzyme-py",
        description="Differentiate LLVM IR (Enzyme-style), optimize it, and run it.")
    parser.add_argument("--traceback", action="store_true",
                        help="show a Python traceback on errors (for bug reports)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, arguments, _) in _COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        arguments(p)
    return parser


def _load_commands() -> None:
    # Importing a command module registers its commands.
    from enzyme_py import cli_ad, cli_commands  # noqa: F401


def _warning_printer(name: str) -> Callable[..., None]:
    """Warnings as one line each, like errors: `enzyme-py CMD: warning: ...`."""

    def show(message: Warning | str, category: type[Warning], *_: object, **__: object) -> None:
        print(f"enzyme-py {name}: warning: {message}", file=sys.stderr)

    return show


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    handler = _COMMANDS[args.command][2]
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _warning_printer(args.command)
            return handler(args)
    except EnzymePyError as exc:
        if args.traceback:
            raise
        print(f"enzyme-py {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: say so plainly, without a traceback
        if args.traceback:
            raise
        print(f"enzyme-py {args.command}: internal error: {type(exc).__name__}: {exc}\n"
              "  (this is a bug in enzyme_py; rerun with --traceback and report it)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
