"""Bad input: every failure is a ParseError that says where and what was expected."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enzyme_py.ir import ParseError, parse
from tests.conftest import fixture_files

GOOD = """define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}
"""


@pytest.mark.parametrize(
    ("text", "line", "col", "needle"),
    [
        (GOOD.replace("fmul double", "fmul"), 3, 13, "expected a type"),
        (GOOD.replace("%y = fmul", "%y = fmulx"), 3, 8, "unknown or unsupported instruction"),
        (GOOD.replace("ret double %y", "ret double %z"), 4, 14, "undefined value '%z'"),
        (GOOD.replace("ret double %y", "ret float %y"), 4, 13, "has type double"),
        (GOOD.replace("}\n", ""), 4, 16, "expected '}'"),
        (GOOD.replace("double %x, %x", "double %x %x"), 3, 23, "expected ','"),
        ("define ptr* @f() {\n  ret ptr null\n}\n", 1, 11, "typed pointers"),
        ("@g = global i32 @missing\n", 1, 17, "undefined global @missing"),
        (GOOD + "\nfoo bar\n", 7, 1, "expected a top-level entity"),
        (GOOD.replace("entry:\n", "entry:\n  br label %nowhere\nx:\n"), 3, 12,
         "undefined block '%nowhere'"),
        (GOOD.replace("%y = fmul", "%5 = fmul").replace("ret double %y", "ret double %5"),
         3, 3, "numbered '%0'"),
    ],
)
def test_error_positions(text, line, col, needle):
    with pytest.raises(ParseError) as info:
        parse(text, "input.ll")
    err = info.value
    assert needle in err.message, err
    assert (err.line, err.col) == (line, col), str(err)
    assert err.source_line == text.splitlines()[line - 1]
    rendered = str(err)
    assert rendered.startswith(f"input.ll:{line}:{col}: error: ")
    assert "^" in rendered.splitlines()[-1]


def test_expected_is_recorded():
    with pytest.raises(ParseError) as info:
        parse(GOOD.replace("double %x, %x", "double %x %x"))
    assert info.value.expected == ","


def _mutations(text: str, rng: random.Random, n: int) -> str:
    chars = list(text)
    for _ in range(n):
        op = rng.randrange(4)
        pos = rng.randrange(len(chars)) if chars else 0
        if op == 0 and chars:
            del chars[pos]
        elif op == 1:
            chars.insert(pos, rng.choice('%@!#,()[]{}<>="x0123456789 \n;-.:'))
        elif op == 2 and chars:
            j = rng.randrange(len(chars))
            chars[pos], chars[j] = chars[j], chars[pos]
        elif chars:
            # drop a whole token-ish run
            end = min(len(chars), pos + rng.randrange(1, 12))
            del chars[pos:end]
    return "".join(chars)


_SMALL = [p for p in fixture_files() if p.stat().st_size < 40_000]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(_SMALL) - 1), st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_fuzz_only_parse_errors(index, seed, n):
    """Mutated corpus text either parses or raises ParseError: never anything else."""
    text = _SMALL[index].read_text()
    mutated = _mutations(text, random.Random(seed), n)
    try:
        module = parse(mutated, "fuzz.ll")
    except ParseError as err:
        assert err.line >= 1 and err.col >= 1
        return
    str(module)  # whatever parsed must also print
