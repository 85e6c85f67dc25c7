"""`null_frees.drop_null_frees`: a `free` whose pointer can only be null is removed, and
only such a free."""

from __future__ import annotations

from enzyme_py.ad.null_frees import drop_null_frees
from enzyme_py.ir import parse

TEXT = """
declare ptr @malloc(i64)
declare void @free(ptr)

define void @f(i1 %c, i64 %n, ptr %other) {
entry:
  %a = call ptr @malloc(i64 %n)
  %b = call ptr @malloc(i64 %n)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %p = select i1 %c, ptr %a, ptr %b
  %is.a = icmp eq ptr %p, %a
  %q = select i1 %is.a, ptr null, ptr %p
  %is.b = icmp eq ptr %q, %b
  %r = select i1 %is.b, ptr null, ptr %q
  call void @free(ptr %r)
  %s = select i1 %c, ptr %a, ptr %other
  %is.a2 = icmp eq ptr %s, %a
  %t = select i1 %is.a2, ptr null, ptr %s
  call void @free(ptr %t)
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  call void @free(ptr %a)
  call void @free(ptr %b)
  ret void
}
"""


def test_a_free_of_what_can_only_be_null_is_removed_and_no_other():
    module = parse(TEXT)
    fn = next(f for f in module.functions if f.name == "f")
    assert drop_null_frees(fn) == 1
    frees = [str(i).strip() for i in fn.instructions() if "@free(" in str(i)]
    # (the free of %t may be given %other; the frees of %a and %b at the exit stay)
    assert frees == ["call void @free(ptr %t)", "call void @free(ptr %a)",
                     "call void @free(ptr %b)"]
