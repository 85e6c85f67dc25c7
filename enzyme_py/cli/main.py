"""`main`: run one subcommand; errors and warnings as one line each, never a traceback."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable

from enzyme_py.cli import ad, opt  # noqa: F401  (importing a command module registers it)
from enzyme_py.cli.registry import COMMANDS, build_parser
from enzyme_py.errors import EnzymePyError


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
    handler = COMMANDS[args.command][2]
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
