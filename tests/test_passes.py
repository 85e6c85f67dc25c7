"""Named passes and pipelines."""

from __future__ import annotations

import re

import pytest

from enzyme_py.ir import parse
from enzyme_py.passes import PASSES, PREPROCESS_PIPELINE, OptLevel, Pipeline, PipelineError
from tests.conftest import FIXTURES


def o0_module():
    return parse((FIXTURES / "c_dot.O0.ll").read_text(), "c_dot.O0.ll")


def size(module):
    return sum(1 for f in module.functions for _ in f.instructions())


def count(module, opcode):
    return sum(1 for f in module.functions for i in f.instructions() if i.opcode == opcode)


def test_pipeline_parse_and_fuse():
    pipe = Pipeline.parse(PREPROCESS_PIPELINE + ",verify,instcombine")
    assert [p.name for p in pipe.passes] == [*PREPROCESS_PIPELINE.split(","), "verify",
                                             "instcombine"]
    fused = PREPROCESS_PIPELINE.removeprefix("strip-optnone,")
    assert [p.name for p in pipe.fused()] == ["strip-optnone", fused, "verify", "instcombine"]


def test_unknown_pass_lists_known_ones():
    with pytest.raises(PipelineError, match="unknown pass 'mem3reg'; known passes: .*sroa"):
        Pipeline.parse("sroa,mem3reg")
    with pytest.raises(PipelineError, match="empty pipeline"):
        Pipeline.parse(" , ")


def test_sroa_removes_allocas_and_stages_are_seen():
    m = o0_module()
    assert count(m, "alloca") > 0
    seen = []
    out = Pipeline.parse(PREPROCESS_PIPELINE).run(m, lambda name, mod: seen.append(name))
    assert seen == PREPROCESS_PIPELINE.split(",")
    assert count(out, "alloca") == 0
    assert count(out, "phi") > 0


def test_optnone_blocks_llvm_until_stripped():
    kept = Pipeline.parse("sroa").run(o0_module())
    assert count(kept, "alloca") > 0  # optnone functions are left alone, as in LLVM
    assert "optnone" in str(kept)
    stripped = Pipeline.parse("strip-optnone").run(o0_module())
    assert "optnone" not in str(stripped)


def test_levels_and_registry():
    assert {"O0", "O1", "O2", "O3", "verify", "sroa", "instcombine", "simplifycfg",
            "loop-simplify", "lcssa"} <= set(PASSES)
    out = Pipeline.parse("strip-optnone,O2").run(o0_module())
    assert count(out, "alloca") == 0


def test_o2_for_differentiation_keeps_loops_scalar():
    """`O2-ad` (what `grad` runs before differentiating): -O2 without loop unrolling and
    vectorizers, so that each loop is differentiated once, as written."""
    assert OptLevel(2, for_ad=True).name == "O2-ad" and "O2-ad" in PASSES
    full = Pipeline.parse("strip-optnone,O2").run(o0_module())
    for_ad = Pipeline.parse("strip-optnone,O2-ad").run(o0_module())
    assert re.search(r"<\d+ x ", str(full))
    assert not re.search(r"<\d+ x ", str(for_ad))
    assert count(for_ad, "alloca") == 0
    assert count(for_ad, "phi") < count(full, "phi")
    assert 2 * size(for_ad) < size(full)
