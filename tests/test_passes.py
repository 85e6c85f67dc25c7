"""Named passes and pipelines."""

from __future__ import annotations

import re
import warnings

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


# --- pipelines as text: arguments, printers, the driver's pipelines ---------------------------


def test_pipeline_text_with_arguments_round_trips():
    from enzyme_py.pass_spec import format_item, parse_pipeline

    items = parse_pipeline('sroa, reverse{fn="a,b", acts=dup,out, primal}, O2')
    assert [i.name for i in items] == ["sroa", "reverse", "O2"]
    assert [(a.key, a.value) for a in items[1].arguments] == [
        ("fn", "a,b"), ("acts", "dup"), (None, "out"), (None, "primal")]
    text = format_item("reverse", [("fn", ["a,b"]), ("acts", ["dup", "out"])])
    assert text == 'reverse{fn="a,b",acts=dup,out}'
    assert parse_pipeline(text)[0].arguments[0].value == "a,b"


def test_bare_words_continue_lists_or_set_flags():
    import enzyme_py.ad.driver  # noqa: F401  (registers the AD passes)

    rev = Pipeline.parse("reverse{fn=f,primal,acts=dup,out}").passes[0]
    assert rev.activities == ["dup", "out"] and rev.options.return_primal
    # after a list, a bare word is one more element (write primal=1 there)
    assert Pipeline.parse("reverse{fn=f,acts=dup,out,primal}").passes[0].activities == [
        "dup", "out", "primal"]
    fwd = Pipeline.parse("forward{fn=f,width=4,primal=0}").passes[0]
    assert fwd.options.width == 4 and not fwd.options.return_primal and fwd.activities is None


@pytest.mark.parametrize(("text", "message"), [
    ("reverse{fn=f,mode=x}", "reverse: unknown argument 'mode' (its arguments: fn, acts"),
    ("reverse{acts=out}", "reverse: needs fn="),
    ("forward{fn=f,width=two}", "forward: width= is a number, not 'two'"),
    ("reverse{fn=f,primal=maybe}", "reverse: primal= is 1 or 0"),
    ("reverse{fn=f,fn=g}", "reverse: fn= given twice"),
    ("reverse{fn=f", "column 13: missing '}'"),
    ("sroa{x=1}", "sroa: unknown argument 'x' (its arguments: none)"),
])
def test_bad_arguments_are_pipeline_errors(text, message):
    import enzyme_py.ad.driver  # noqa: F401

    with pytest.raises(PipelineError, match=re.escape(message)):
        Pipeline.parse(text)


def test_printer_reports_are_the_observed_stage():
    import enzyme_py.ad.driver  # noqa: F401

    m = parse("define double @f(double %x) {\nentry:\n  %y = fmul double %x, %x\n"
              "  ret double %y\n}\n")
    seen = []
    pipe = Pipeline.parse("print-activity{fn=f,acts=out},print-types")
    out = pipe.run(m, lambda name, stage: seen.append((name, str(stage))))
    assert out is m and [n for n, _ in seen] == ["print-activity", "print-types"]
    assert seen[0][1].startswith("; activity of @f") and "%y = fmul" in seen[0][1]
    assert pipe.passes[0].reports == [seen[0][1]]


def test_gradient_pipeline_is_the_driver_s_steps():
    from enzyme_py.ad.driver import AD_PIPELINE, gradient_pipeline

    text = gradient_pipeline("f", ["dup", "const"], True, opt_level=2)
    assert text == ("posix-memalign,inline-callees{fn=f}," + AD_PIPELINE +
                    ",hoist-allocations,devirtualize{fn=f},"
                    "reverse{fn=f,acts=dup,const,ret=active},"
                    "dupnoneed{fn=f,acts=dup,const,ret=active},tape-scopes,tape-checks,O2")
    names = [p.name for p in Pipeline.parse(text).passes]
    assert names[0] == "posix-memalign" and \
        names[-5:] == ["reverse", "dupnoneed", "tape-scopes", "tape-checks", "O2"]


def test_opt_with_the_printed_pipeline_gives_the_gradient_module():
    """`gradient_module` runs its pipeline: the same text run by hand gives the same module."""
    from enzyme_py.ad.driver import gradient_module, gradient_pipeline, run_pipeline

    m = o0_module()
    name = next(f.name for f in m.functions if not f.is_declaration)
    acts = ["dup" if a.type.is_pointer else "const" for a in m.get_function(name).args]
    out, grad = gradient_module(m, name, acts, True)
    by_hand = run_pipeline(m, gradient_pipeline(name, acts, True))
    assert grad == f"diffe_{name}" and str(by_hand) == str(out)


_CALLER_AND_CALLEE = """
define internal double @sq(double %x) {
  %p = alloca double
  store double %x, ptr %p
  %v = load double, ptr %p
  %y = fmul double %v, %v
  ret double %y
}

define double @f(ptr %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s1, %loop ]
  %q = getelementptr double, ptr %a, i64 %i
  %x = load double, ptr %q
  %y = call double @sq(double %x)
  %s1 = fadd double %s, %y
  %i1 = add i64 %i, 1
  %c = icmp slt i64 %i1, %n
  br i1 %c, label %loop, label %done
done:
  %neg = fcmp olt double %s1, 0.0
  br i1 %neg, label %zero, label %out
zero:
  ret double 0.0
out:
  ret double %s1
}
"""


def test_prepared_gradient_pipeline_leaves_out_the_first_steps():
    from enzyme_py.ad.driver import gradient_pipeline

    text = gradient_pipeline("f", ["dup", "const"], True, opt_level=2, prepared=True)
    assert text.startswith("hoist-allocations,devirtualize{fn=f},reverse{")


def test_canonicalizing_with_the_optimizer_gives_the_same_gradient():
    """`canonical_after_optimizing`: the callee is marked before -O2, the canonical passes
    run in -O2's call, and the gradient is the one of the separate steps."""
    from enzyme_py.ad.driver import gradient_module
    from enzyme_py.ad.prepare_passes import CANONICAL_PASSES, canonical_after_optimizing
    from enzyme_py.api.compile import optimize_before_ad

    m = parse(_CALLER_AND_CALLEE)
    then = canonical_after_optimizing(m, ["f"])
    assert then == CANONICAL_PASSES and "alwaysinline" in m.get_function("sq").suffix
    with warnings.catch_warnings():  # (the system's LLVM takes the passes' textual names)
        warnings.simplefilter("error")
        merged = optimize_before_ad(m, 2, then)
    assert [f.name for f in merged.functions if not f.is_declaration] == ["f"]
    assert sum(i.opcode == "ret" for i in merged.get_function("f").instructions()) == 1
    apart = optimize_before_ad(parse(_CALLER_AND_CALLEE), 2)
    one, name = gradient_module(merged, "f", ["dup", "const"], True, opt_level=0,
                                prepared=True)
    two, _ = gradient_module(apart, "f", ["dup", "const"], True, opt_level=0)
    assert str(one.get_function(name)) == str(two.get_function(name))


@pytest.mark.parametrize("change", [
    lambda text: text.replace("define internal double @sq(double %x) {",
                              "define internal double @sq(double %x) noinline {"),
    lambda text: text + "\ndeclare i32 @posix_memalign(ptr, i64, i64)\n",
])
def test_the_steps_run_apart_where_they_have_work_after_the_optimizer(change):
    """A function whose calls stay calls (`noinline`: optnone during -O2) or a
    `posix_memalign` to rewrite: nothing is marked, the prepare steps run themselves."""
    from enzyme_py.ad.prepare_passes import canonical_after_optimizing

    m = parse(change(_CALLER_AND_CALLEE))
    assert canonical_after_optimizing(m, ["f"]) == ()
    assert "alwaysinline" not in m.get_function("sq").suffix
