"""Python's cyclic garbage collector, paused while a function compiles.

A compile builds and drops several copies of a module's IR (Python objects, about 10^5 per
copy for a NumPy-form gradient). Each young collection in between walks every object still
alive, so with a large program around (JAX imported: 1.5 * 10^5 objects) the collector took
60-70 ms of a 0.5-0.9 s gradient compile (GMM and LSTM in NumPy form). The IR is freed by
reference counting when a copy is dropped; what cycles it leaves are collected after.

    @while_compiling
    def compile_something(...): ...

Invariants: the collector is paused from the first compile that starts to the last that
ends (compiles may nest, and may run in several threads at once); it is enabled again only
if it was enabled when the first one started (a program that turned it off keeps it off);
a leaf module (it imports nothing from the package).
"""

from __future__ import annotations

import functools
import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_compiling = 0  # compiles running now, in every thread
_was_enabled = False  # the collector's state when the first of them started


@contextmanager
def paused() -> Iterator[None]:
    """The collector paused for the block (see the module docstring)."""
    global _compiling, _was_enabled
    with _lock:
        if _compiling == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _compiling += 1
    try:
        yield
    finally:
        with _lock:
            _compiling -= 1
            if _compiling == 0 and _was_enabled:
                gc.enable()


def while_compiling(fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` run with the collector paused."""
    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with paused():
            return fn(*args, **kwargs)
    return run
