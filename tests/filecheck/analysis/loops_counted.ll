; print-loops: a counted loop (i = 0; i < n; i++) in loop-simplify form: its induction variable and a trip count known at entry
; RUN: enzyme-py opt %s -p 'print-loops{fn=f}' --disable-output | filecheck %s

define void @f(ptr %p, i64 %n) {
entry:
  br label %head

head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %head ]
  %q = getelementptr double, ptr %p, i64 %i
  store double 0.000000e+00, ptr %q, align 8
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %head, label %exit

exit:
  ret void
}

; CHECK: loops of @f:
; CHECK-NEXT: loop at %head depth 1: blocks %head; preheader %entry; exits %exit
; CHECK-NEXT: induction variable %i: start 0, step 1
; CHECK-NEXT: trip count: 1 + leading true tests of %i.next slt %n
