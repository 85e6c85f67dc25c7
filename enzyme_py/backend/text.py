"""LLVM text <-> llvmlite module: parse and verify, normalize, scratch contexts.

Invariants:

- `parse_llvm`, whose module outlives the call, uses llvmlite's global context, which is never
  disposed: no garbage-collection order can free a context before its module.
- Text-to-text work parses with `_scratch` into a fresh LLVM context disposed right after
  (module first), so a named struct type is never renamed because of another module.
- A parse or verifier failure raises `BackendError` naming the module, with LLVM's diagnostic
  and the offending source line; LLVM never aborts the process.
- Every text goes through `target_check.checked_text` first: target attributes that LLVM
  would ignore are dropped (with a warning), those it would abort on refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import llvmlite.binding as llvm

from enzyme_py.backend.target import PRINTED_NAME, _host
from enzyme_py.backend.target_check import checked_text
from enzyme_py.errors import BackendError

_LOCATION = re.compile(r"<string>:(\d+):(\d+): ")


def _parse_error(message: str, text: str, name: str) -> BackendError:
    message = message.removeprefix("LLVM IR parsing error\n").rstrip()
    match = _LOCATION.search(message)
    if match is not None:
        lineno = int(match.group(1))
        lines = text.splitlines()
        if 1 <= lineno <= len(lines) and lines[lineno - 1].strip() not in message:
            message += f"\n  {lines[lineno - 1]}"
    message = message.replace("<string>:", f"{name}:")
    return BackendError(f"LLVM rejected module '{name}':\n{message}")


def _parse_into(text: str, name: str, context: llvm.ContextRef) -> llvm.ModuleRef:
    _host()
    text = checked_text(text, name)
    try:
        module = llvm.parse_assembly(text, context)
    except RuntimeError as err:
        raise _parse_error(str(err), text, name) from None
    try:
        module.verify()
    except RuntimeError as err:
        module.close()
        raise BackendError(f"LLVM verifier rejected module '{name}':\n{str(err).rstrip()}") \
            from None
    module.name = name
    return module


def parse_llvm(text: str, name: str = PRINTED_NAME) -> llvm.ModuleRef:
    """Parse and verify LLVM text with llvmlite.

    The module lives in llvmlite's global context, which is never disposed (as in Numba), so
    the module is safe to keep in any object graph; a named struct type whose name another
    module already used is printed with a suffix. Raises `BackendError` carrying LLVM's
    diagnostic and the offending source line.

    Example::

        >>> m = parse_llvm("define i32 @one() {\\n  ret i32 1\\n}\\n")
        >>> [f.name for f in m.functions]
        ['one']
    """
    return _parse_into(text, name, llvm.get_global_context())


@contextmanager
def _scratch(text: str, name: str = PRINTED_NAME) -> Iterator[llvm.ModuleRef]:
    """A parsed module in a fresh context; both are disposed, module first, on exit.

    Text-to-text work happens here so that no struct type is renamed because of another
    module, and so that disposal never depends on the garbage collector's order.
    """
    context = llvm.create_context()
    try:
        module = _parse_into(text, name, context)
        try:
            yield module
        finally:
            module.close()
    finally:
        context.close()


def normalize(text: str) -> str:
    """LLVM's canonical printing of `text` (parse, verify, print); idempotent.

    Example::

        >>> normalize("define i32 @f(i32 %a) {\\n  ret i32 %a\\n}")  # doctest: +ELLIPSIS
        '; ModuleID = ...define i32 @f(i32 %a) {\\n  ret i32 %a\\n}\\n'
    """
    with _scratch(text) as module:
        return str(module)

