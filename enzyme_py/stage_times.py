"""Wall time of each compilation stage, collected while `enzyme_py.profile` asks for it.

    with collecting() as times:       # times: list of StageTime, in the order stages end
        ...compile something...
    with stage("front end"):          # anywhere in the package: timed when collecting
        ...

Invariants: outside `collecting()` a `stage` costs one thread-local lookup and records
nothing; collection is per thread (two threads compiling never mix their records); a stage
inside another is recorded with its depth (the outer one ends later, so it comes after its
parts); a leaf module: it imports nothing from the package, so every layer may time itself.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class StageTime:
    name: str
    seconds: float
    depth: int  # 0 for a stage inside no other


_state = threading.local()


@contextmanager
def collecting() -> Iterator[list[StageTime]]:
    """Record the stages run by this thread until the block ends (nested: the inner block
    sees its own stages, the outer one sees them too)."""
    outer = getattr(_state, "sink", None)
    sink: list[StageTime] = []
    _state.sink, depth = sink, getattr(_state, "depth", 0)
    try:
        yield sink
    finally:
        _state.sink, _state.depth = outer, depth
        if outer is not None:
            outer.extend(sink)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time the block as stage `name` when collecting (see the module docstring)."""
    sink = getattr(_state, "sink", None)
    if sink is None:
        yield
        return
    depth = getattr(_state, "depth", 0)
    _state.depth = depth + 1
    start = time.perf_counter()
    try:
        yield
    finally:
        _state.depth = depth
        sink.append(StageTime(name, time.perf_counter() - start, depth))
