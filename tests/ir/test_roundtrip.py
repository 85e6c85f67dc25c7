"""Round trip: parse then print gives a module that LLVM reads as the same module."""

from __future__ import annotations

import pytest

from enzyme_py import backend as jit
from enzyme_py.ir import parse, verify
from tests.conftest import fixture_files, load_regen

FILES = fixture_files()


def test_corpus_is_large_enough():
    sources = load_regen().corpus_sources()
    assert len(sources) >= 25
    assert len(FILES) >= 50


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_fixture_round_trip(path):
    text = path.read_text()
    module = parse(text, path.name)
    printed = str(module)
    assert jit.normalize(printed) == jit.normalize(text)
    # Printing is deterministic and a fixed point after one round.
    assert str(parse(printed, path.name)) == printed
    verify(module)


@pytest.mark.clang
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_clang_corpus_round_trip(clang, opt, tmp_path):
    """Every corpus source, compiled now by clang-22, survives parse -> print."""
    regen = load_regen()
    failures = []
    for src in regen.corpus_sources():
        out = tmp_path / f"{src.stem}{opt}.ll"
        regen.compile_source(src, opt[1:], out)
        text = out.read_text()
        try:
            printed = str(parse(text, out.name))
            if jit.normalize(printed) != jit.normalize(text):
                failures.append(f"{src.name} {opt}: normalized text differs")
        except Exception as exc:  # collect every failure, report all at once
            failures.append(f"{src.name} {opt}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures)


def test_big_module_round_trip():
    from tests.conftest import ROOT

    text = (ROOT / "benchmarks" / "data" / "big.O2.ll").read_text()
    printed = str(parse(text))
    assert jit.normalize(printed) == jit.normalize(text)
