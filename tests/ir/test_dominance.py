"""Dominators and post-dominators on a diamond inside a loop."""

from __future__ import annotations

from enzyme_py.ir import parse
from enzyme_py.ir.dominance import dominators, post_dominators, predecessors

TEXT = """define void @f(i1 %c, i1 %d) {
entry:
  br label %head
head:
  br i1 %c, label %left, label %right
left:
  br label %join
right:
  br label %join
join:
  br i1 %d, label %head, label %exit
exit:
  ret void
dead:
  br label %exit
}
"""


def blocks():
    fn = parse(TEXT).get_function("f")
    return fn, {b.name: b for b in fn.blocks}


def test_dominators():
    fn, b = blocks()
    dom = dominators(fn)
    assert dom.idom[b["entry"]] is None
    assert dom.idom[b["head"]] is b["entry"]
    assert dom.idom[b["join"]] is b["head"]
    assert dom.idom[b["exit"]] is b["join"]
    assert dom.dominates(b["head"], b["exit"])
    assert not dom.dominates(b["left"], b["join"])
    assert not dom.is_reachable(b["dead"])
    assert [x.name for x in dom.rpo][:2] == ["entry", "head"]


def test_post_dominators_and_preds():
    fn, b = blocks()
    pdom = post_dominators(fn)
    assert pdom.idom[b["exit"]] is None
    assert pdom.idom[b["left"]] is b["join"]
    assert pdom.dominates(b["join"], b["head"])
    preds = predecessors(fn)
    assert set(preds[b["join"]]) == {b["left"], b["right"]}
    assert set(preds[b["exit"]]) == {b["join"], b["dead"]}
