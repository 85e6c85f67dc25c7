; reverse mode of an inner loop with two exits (the test in its header, a break in its body) around a value it reads but does not change (%a, kept on the tape per outer iteration): the value is fetched once, in the shared block every way into the reversed inner loop goes through, not on each entering edge; the back edge skips it
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,dup,const,const,const,ret=active},dupnoneed{fn=f,acts=dup,dup,const,const,const,ret=active}' | filecheck %s

define double @f(ptr noalias %x, ptr noalias %y, i64 %n, i64 %m, double %lim) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi double [ 0.0, %entry ], [ %s.inner, %outer.latch ]
  %pa = getelementptr double, ptr %x, i64 %i
  %a = load double, ptr %pa
  br label %head
head:
  %j = phi i64 [ 0, %outer ], [ %j.next, %latch ]
  %t = phi double [ %s, %outer ], [ %t2, %latch ]
  %c = icmp slt i64 %j, %m
  br i1 %c, label %body, label %inner.exit
body:
  %py = getelementptr double, ptr %y, i64 %j
  %v = load double, ptr %py
  %big = fcmp ogt double %v, %lim
  br i1 %big, label %inner.exit, label %latch
latch:
  %p = fmul double %a, %v
  %t2 = fadd double %t, %p
  %j.next = add nsw i64 %j, 1
  br label %head
inner.exit:
  %s.inner = phi double [ %t, %head ], [ %t, %body ]
  br label %outer.latch
outer.latch:
  store double %s.inner, ptr %pa
  %i.next = add nsw i64 %i, 1
  %oc = icmp slt i64 %i.next, %n
  br i1 %oc, label %outer, label %exit
exit:
  ret double %s.inner
}

; CHECK-LABEL: define void @diffe_f(
; CHECK: %a.fetched = alloca double
; CHECK-NOT: store double {{.*}}, ptr %a.fetched
; CHECK: rev.head.ways:
; CHECK: rev.head.enter:
; CHECK: store double %{{.*}}, ptr %a.fetched
; CHECK-NEXT: br label %rev.head.ways
; CHECK-NOT: store double {{.*}}, ptr %a.fetched
; CHECK: rev.outer.latch.to.head:
; CHECK: br label %rev.head.enter
; CHECK: rev.outer.latch.to.body:
; CHECK: br label %rev.head.enter
; CHECK: rev.head.to.latch:
; CHECK: store i32 0, ptr %way
; CHECK-NEXT: br label %rev.head.ways
; CHECK-NOT: store double {{.*}}, ptr %a.fetched
