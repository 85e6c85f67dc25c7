; print-loops: a loop counting down by 2 from n: a negative step
; RUN: enzyme-py opt %s -p 'print-loops{fn=f}' --disable-output | filecheck %s

define void @f(ptr %p, i64 %n) {
entry:
  br label %head

head:
  %i = phi i64 [ %n, %entry ], [ %i.next, %head ]
  %q = getelementptr double, ptr %p, i64 %i
  store double 0.000000e+00, ptr %q, align 8
  %i.next = add nsw i64 %i, -2
  %c = icmp sgt i64 %i.next, 0
  br i1 %c, label %head, label %exit

exit:
  ret void
}

; CHECK: loop at %head depth 1
; CHECK-NEXT: induction variable %i: start %n, step -2
; CHECK-NEXT: trip count: 1 + leading true tests of %i.next sgt 0
