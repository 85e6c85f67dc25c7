"""Reading and writing the files of a command: parsed and verified input (an error names its line),
output to a file or stdout, and the stage dumps (`--print-after-all`, `--dump-dir`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from enzyme_py.errors import EnzymePyError
from enzyme_py.ir import Module, parse, verify


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
