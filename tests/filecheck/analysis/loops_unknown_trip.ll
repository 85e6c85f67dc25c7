; print-loops: a loop that ends on loaded data has no trip count known at entry
; RUN: enzyme-py opt %s -p 'print-loops{fn=f}' --disable-output | filecheck %s

define double @f(double %x) {
entry:
  br label %head
head:
  %y = phi double [ %x, %entry ], [ %y.half, %head ]
  %y.half = fmul double %y, 0.5
  %big = fcmp ogt double %y.half, 1.0
  br i1 %big, label %head, label %exit
exit:
  ret double %y.half
}

; CHECK: loops of @f:
; CHECK-NEXT: loop at %head depth 1: blocks %head; preheader %entry; exits %exit
; CHECK-NEXT: trip count: unknown at loop entry
