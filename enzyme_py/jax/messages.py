"""The messages of a compiled module's error sites, as printf formats baked into its handler.

`ez.jit` turns a failed check into a Python exception (`calling.ErrorRecord`, from the table
`calling.failure_of`); inside XLA the handler formats the same text itself, so a failure under
`jax.jit` reads like the one `ez.jit` raises: the exception's name, its message, and the source
line, e.g. ``IndexError: index 5 is out of bounds for axis 0 with size 3\\n  at f.py:4: x[i]``.

Invariants: one `Message` per site, in site order (site ids count from 1); the only conversions
in a format are two `%lld` (the record's index, then its extent), every other `%` is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from enzyme_py.calling import failure_of
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
    i_at, e_at = _field(text, "i"), _field(text, "e")
    if e_at is not None and (i_at is None or e_at < i_at):
        text = _FIELD["e"].sub("?", text)  # the index is always passed first
    text = _FIELD["e"].sub("%lld", _FIELD["i"].sub("%lld", text))
    text = text.format(axis=site.axis, axis1=site.axis + 1, what=site.what)
    where = f"{site.filename}:{site.line}: {site.source}".replace("%", "%%")
    return f"{kind.__name__}: {text}\n  at {where}"


# a `{i}` / `{e}` field of a template, not an escaped `{{i}}` (a raised message's braces)
_FIELD = {k: re.compile(rf"(?<!{{){{{k}}}(?!}})") for k in "ie"}


def _field(text: str, k: str) -> int | None:
    m = _FIELD[k].search(text)
    return m.start() if m else None


def site_messages(sites: Sequence[ErrorSite]) -> tuple[Message, ...]:
    """The message of each site (`ErrorRecord.check`'s text for the same failure)."""
    out = []
    for site in sites:
        kind, template = failure_of(site.what)
        text = _format(kind, template, site)
        alt = None
        if site.what == "array size":  # a size that is not negative is one too large
            alt = _format(MemoryError, "array of {i} elements is too large", site)
        out.append(Message(text, alt, _CODES.get(kind, ERR_INVALID_ARGUMENT)))
    return tuple(out)
