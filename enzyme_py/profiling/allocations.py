"""Heap allocations of one run of compiled code, counted per call site (for `profile`).

`count_allocations(module)` rewrites every call of `malloc`, `calloc` and `realloc` in the
module's definitions into the same call preceded by two counter updates — the bytes asked for
and one more call — in slots of two global arrays (`@enzyme_py.alloc.bytes`,
`@enzyme_py.alloc.calls`), one slot per call site; it returns the sites, named by the value
the call defines (`%tape`, `%tape.segment`, `%buf` ...: the tape, its segments, front-end
temporaries and their shadows). `read_counts` reads the slots after a run.

Invariants: only counters are added (the calls, their arguments and results are unchanged, so
the counted run computes what the uncounted one does); bytes are what was asked for (calloc:
count x size; realloc: the new size, as a growing tape asks); the counters are not atomic (a
profile runs one call at a time).
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from enzyme_py.ir import instructions as I
from enzyme_py.ir import types as T
from enzyme_py.ir.builder import Builder
from enzyme_py.ir.module import GlobalVariable, Module
from enzyme_py.ir.values import ConstantInt, Value, zero

BYTES = "enzyme_py.alloc.bytes"
CALLS = "enzyme_py.alloc.calls"
_ALLOCATORS = ("malloc", "calloc", "realloc")


@dataclass(frozen=True)
class Site:
    function: str  # the function the call is in
    name: str  # the value the call defines ("" when unnamed)
    allocator: str  # malloc, calloc or realloc


@dataclass(frozen=True)
class SiteCount:
    site: Site
    calls: int
    bytes: int


def count_allocations(module: Module) -> list[Site]:
    """Add the counters (see the module docstring); the sites in slot order."""
    calls = [(fn, inst) for fn in module.functions if not fn.is_declaration
             for inst in fn.instructions()
             if isinstance(inst, I.Call) and inst.callee_name in _ALLOCATORS]
    if not calls:
        return []
    slots = T.ArrayType(len(calls), T.I64)
    nbytes = module.add_global(GlobalVariable(BYTES, slots, zero(slots)))
    ncalls = module.add_global(GlobalVariable(CALLS, slots, zero(slots)))
    sites = []
    for k, (fn, call) in enumerate(calls):
        b = Builder().position_before(call)
        _bump(b, nbytes, k, _requested(b, call))
        _bump(b, ncalls, k, ConstantInt(T.I64, 1))
        sites.append(Site(fn.name or "", call.name or "", call.callee_name or ""))
    return sites


def _requested(b: Builder, call: I.Call) -> Value:
    args = call.args
    if call.callee_name == "calloc":
        size = b.mul(_i64(b, args[0]), _i64(b, args[1]), name="alloc.size")
    else:
        size = _i64(b, args[-1])  # malloc(size), realloc(ptr, size)
    return size


def _i64(b: Builder, v: Value) -> Value:
    return v if v.type == T.I64 else b.zext(v, T.I64, name="alloc.size")


def _bump(b: Builder, table: GlobalVariable, k: int, by: Value) -> None:
    slot = b.getelementptr(table.value_type, table,
                           [ConstantInt(T.I64, 0), ConstantInt(T.I64, k)], name="alloc.slot")
    old = b.load(T.I64, slot, 8, name="alloc.old")
    b.store(b.add(old, by, name="alloc.new"), slot, 8)


def read_counts(address_of, sites: list[Site]) -> list[SiteCount]:
    """The counters after a run; `address_of(name)` gives a global's address."""
    if not sites:
        return []
    n = len(sites)
    nbytes = (ctypes.c_int64 * n).from_address(address_of(BYTES))
    ncalls = (ctypes.c_int64 * n).from_address(address_of(CALLS))
    return [SiteCount(s, int(ncalls[k]), int(nbytes[k])) for k, s in enumerate(sites)]


def reset_counts(address_of, sites: list[Site]) -> None:
    """Zero the counters (before the counted run)."""
    if sites:
        n = len(sites)
        for name in (BYTES, CALLS):
            ctypes.memset(address_of(name), 0, 8 * n)
