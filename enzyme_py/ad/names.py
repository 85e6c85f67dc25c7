"""Names of everything the transforms generate (one place, so output is predictable).

Invariant: the same input gives the same names; names are hints the printer uniquifies.
"""

from __future__ import annotations

from enzyme_py.ir.values import Value


def reverse_function(name: str) -> str:
    return f"diffe_{name}"


def forward_function(name: str) -> str:
    return f"fwddiffe_{name}"


def augmented_function(name: str) -> str:
    return f"augmented_{name}"


def _base(v: Value) -> str:
    return v.name if v.name and not v.name.isdigit() else "v"


def adjoint(v: Value) -> str:
    return f"{_base(v)}.d"


def tangent(v: Value) -> str:
    return f"{_base(v)}.t"


def shadow(v: Value) -> str:
    return f"{_base(v)}.shadow"


def cache(v: Value) -> str:
    return f"{_base(v)}.cache"


def reverse_block(name: str | None) -> str:
    return f"rev.{name}" if name else "rev"


def reverse_edge(src: str | None, dst: str | None) -> str:
    return f"rev.{src or 'bb'}.to.{dst or 'bb'}"


def tape_slot(callee: str) -> str:
    """Where an augmented call leaves its callee's tape."""
    return f"{callee}.tape.slot"
