"""The module's cache of derived functions, typed: one key class per kind of derivative.

Every transform on a module shares the cache (it lives in `Module.derived`), so a derivative
asked for twice is built once, and a derivative registers itself *before* its body is built:
a recursive call inside the function finds the derivative under construction and calls it.

Invariants: a key says everything that makes two derivatives differ (hints that only help
build one, such as the float types of a callee's memory, are not part of it); an entry is
removed again only when building it failed.

Example::

    cache = DerivedFunctions(module)
    got = cache.get(GradientKey("f", ("dup", "const"), True, False))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from enzyme_py.ir import types as T
from enzyme_py.ir.module import Function, GlobalVariable, Module

E = TypeVar("E")


@dataclass(frozen=True)
class Derived:
    """A derivative and its final type (known before its body is built)."""

    function: Function
    type: T.FunctionType


@dataclass
class SplitPair:
    """The two functions a call site of a split callee uses (`split.py`)."""

    augmented: Function
    reverse: Function
    shadow_return: bool  # `augmented` takes `ptr %shadow.out` last


class CacheKey(Generic[E]):
    """A key of the cache whose entries are `E`s."""


@dataclass(frozen=True)
class GradientKey(CacheKey[Derived]):
    """`@diffe_f`, one whole gradient (reverse mode)."""

    function: str | None
    activities: tuple[str, ...]
    return_active: bool
    return_primal: bool


@dataclass(frozen=True)
class SplitKey(CacheKey[SplitPair]):
    """`@augmented_f` and its reverse function, for calls that stay calls."""

    function: str | None
    activities: tuple[str, ...]
    return_active: bool
    return_shadow: bool
    shared_globals: tuple[str, ...]


@dataclass(frozen=True)
class ForwardKey(CacheKey[Derived]):
    """`@fwddiffe_f` (forward mode)."""

    function: str | None
    activities: tuple[str, ...]
    width: int
    return_primal: bool
    return_shadow: bool
    shared_globals: tuple[str, ...]


@dataclass(frozen=True)
class GlobalShadowKey(CacheKey[GlobalVariable]):
    """`@g.shadow`, the shadow of a global (one per direction)."""

    name: str | None
    lane: int


class DerivedFunctions:
    """A typed view of `module.derived`."""

    def __init__(self, module: Module) -> None:
        self._entries: dict = module.derived

    def get(self, key: CacheKey[E]) -> E | None:
        return self._entries.get(key)

    def add(self, key: CacheKey[E], entry: E) -> E:
        self._entries[key] = entry
        return entry

    def discard(self, key: CacheKey[E]) -> None:
        self._entries.pop(key, None)
