"""The subcommands of `enzyme-py`: each registers itself with `@command` (adding one never
edits a central list); `build_parser` builds the parser of those registered."""

from __future__ import annotations

import argparse
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Handler]] = {}


def command(name: str, help: str,
            arguments: Callable[[argparse.ArgumentParser], None]) -> Callable[[Handler], Handler]:
    """Register a subcommand: `arguments` adds its options, the decorated function runs it."""

    def deco(fn: Handler) -> Handler:
        COMMANDS[name] = (help, arguments, fn)
        return fn

    return deco


def build_parser() -> argparse.ArgumentParser:
    """The parser of every registered command (`main` imports the command modules first)."""
    parser = argparse.ArgumentParser(
        prog="enzyme-py",
        description="Differentiate LLVM IR (Enzyme-style), optimize it, and run it.")
    parser.add_argument("--traceback", action="store_true",
                        help="show a Python traceback on errors (for bug reports)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (help_text, arguments, _) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        arguments(p)
    return parser

