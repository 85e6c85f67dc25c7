"""`enzyme-py`: the command-line front door.

Invariants: every command returns an exit status; an `EnzymePyError` (bad input, unsupported
construct) or an unreadable file prints one clear message to stderr and exits 1, never a
traceback (`--traceback` shows one for bug reports); a warning prints one line to stderr.
Input files are parsed and verified (`read_module`), so an error in one names its line.
Commands register themselves with `@command`, so adding one never edits a central list.
"""

from __future__ import annotations

from enzyme_py.cli.files import StageDump, add_dump_options, read_module, read_text, write_text
from enzyme_py.cli.main import main
from enzyme_py.cli.registry import command

__all__ = ["StageDump", "add_dump_options", "command", "main", "read_module", "read_text",
           "write_text"]
