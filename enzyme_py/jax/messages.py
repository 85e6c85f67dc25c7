"""The messages of a compiled module's error sites, as printf formats baked into its handler.

`ez.jit` turns a failed check into a Python exception (`calling.ErrorRecord`, from the table
`calling._FAILURES`); inside XLA the handler formats the same text itself, so a failure under
`jax.jit` reads like the one `ez.jit` raises: the exception's name, its message, and the source
line, e.g. ``IndexError: index 5 is out of bounds for axis 0 with size 3\\n  at f.py:4: x[i]``.

Invariants: one `Message` per site, in site order (site ids count from 1); the only conversions
in a format are two `%lld` (the record's index, then its extent), every other `%` is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from enzyme_py.calling import _FAILURES
from enzyme_py.frontend import ErrorSite
from enzyme_py.jax.ffi_handler import (
    ERR_INVALID_ARGUMENT,
    ERR_OUT_OF_RANGE,
    ERR_RESOURCE_EXHAUSTED,
    Message,
)

__all__ = ["site_messages"]

_CODES = {IndexError: ERR_OUT_OF_RANGE, MemoryError: ERR_RESOURCE_EXHAUSTED}


def _format(kind: type[Exception], template: str, site: ErrorSite) -> str:
    text = template.replace("%", "%%")
    if "{e}" in text and ("{i}" not in text or text.index("{e}") < text.index("{i}")):
        text = text.replace("{e}", "?")  # the index is always passed first
    text = text.replace("{i}", "%lld").replace("{e}", "%lld")
    text = text.format(axis=site.axis, axis1=site.axis + 1, what=site.what)
    where = f"{site.filename}:{site.line}: {site.source}".replace("%", "%%")
    return f"{kind.__name__}: {text}\n  at {where}"


def site_messages(sites: Sequence[ErrorSite]) -> tuple[Message, ...]:
    """The message of each site (`ErrorRecord.check`'s text for the same failure)."""
    out = []
    for site in sites:
        kind, template = _FAILURES.get(site.what, (RuntimeError, "{what} failed ({i}, {e})"))
        text = _format(kind, template, site)
        alt = None
        if site.what == "array size":  # a size that is not negative is one too large
            alt = _format(MemoryError, "array of {i} elements is too large", site)
        out.append(Message(text, alt, _CODES.get(kind, ERR_INVALID_ARGUMENT)))
    return tuple(out)
