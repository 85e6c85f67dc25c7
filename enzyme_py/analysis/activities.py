"""The activity of an argument: how it takes part in a derivative (a leaf module).

    const       no derivative flows through it
    dup         a pointer with a shadow: the derivative of the memory behind it
    dupnoneed   dup, and the primal values written there are not needed
    out         a float (or aggregate of floats) whose adjoint the gradient returns

These are Enzyme's `enzyme_const`, `enzyme_dup`, `enzyme_dupnoneed` and `enzyme_out`, and the
words of `acts=` in a pipeline (`reverse{fn=f,acts=dup,out}`). A return is active or not: a
bool, written `ret=active` (or `out`) / `ret=const`.

Invariants: `Activity` is a `StrEnum`, so a member equals its word (`Activity.DUP == "dup"`)
and prints as it (`f"{Activity.DUP}"` is `dup`), and pass text round-trips; this module imports
nothing from the package, so every layer can use it.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Activity(StrEnum):
    """One argument's activity (see the module docstring)."""

    CONST = "const"
    DUP = "dup"
    DUPNONEED = "dupnoneed"
    OUT = "out"

    @property
    def shadowed(self) -> bool:
        """The argument comes with a shadow pointer (`dup`, `dupnoneed`)."""
        return self in (Activity.DUP, Activity.DUPNONEED)

    @classmethod
    def parse(cls, word: str | Activity) -> Activity:
        """The activity a word names; `ValueError` listing the words for any other."""
        try:
            return cls(word)
        except ValueError:
            raise ValueError(f"unknown activity {word!r} (one of {', '.join(WORDS)})") \
                from None


WORDS: tuple[str, ...] = tuple(a.value for a in Activity)

# Enzyme's C ABI markers (`int enzyme_dup;` globals passed before an argument)
MARKERS: dict[str, Activity] = {f"enzyme_{a.value}": a for a in Activity}

# the activities forward mode takes (a float is `dup`: its tangent follows it)
FORWARD: tuple[Activity, ...] = (Activity.CONST, Activity.DUP, Activity.DUPNONEED)

RETURN_WORDS: dict[str, bool] = {"active": True, "out": True, "const": False}


def parse_activities(words: Iterable[str | Activity]) -> tuple[Activity, ...]:
    """`words` as activities (`ValueError` naming the first unknown word)."""
    return tuple(Activity.parse(w) for w in words)
