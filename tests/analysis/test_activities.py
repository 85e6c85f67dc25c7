"""The `Activity` enum: Enzyme's four activities, equal to their words."""

from __future__ import annotations

import pytest

from enzyme_py.analysis.activities import MARKERS, WORDS, Activity, parse_activities


def test_members_are_their_words() -> None:
    assert WORDS == ("const", "dup", "dupnoneed", "out")
    assert Activity.DUP == "dup" and f"{Activity.DUPNONEED}" == "dupnoneed"
    assert {"out": 1}[Activity.OUT] == 1  # hashes as its word (cache keys mix both)
    assert [a for a in Activity if a.shadowed] == [Activity.DUP, Activity.DUPNONEED]


def test_markers_are_enzymes_globals() -> None:
    assert MARKERS == {"enzyme_const": Activity.CONST, "enzyme_dup": Activity.DUP,
                       "enzyme_dupnoneed": Activity.DUPNONEED, "enzyme_out": Activity.OUT}


def test_parse_names_the_unknown_word() -> None:
    assert parse_activities(["dup", Activity.OUT]) == (Activity.DUP, Activity.OUT)
    with pytest.raises(ValueError, match=r"unknown activity 'active' \(one of const, dup, "
                                         r"dupnoneed, out\)"):
        parse_activities(["dup", "active"])
