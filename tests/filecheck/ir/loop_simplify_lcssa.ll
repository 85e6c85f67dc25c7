; loop-simplify gives the loop a preheader and a dedicated exit; lcssa routes the value leaving the loop through an exit phi
; RUN: enzyme-py opt %s -p 'loop-simplify,lcssa' | filecheck %s

define double @f(ptr %p, i64 %n) {
entry:
  %c0 = icmp sgt i64 %n, 0
  br i1 %c0, label %body, label %exit

body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %s = phi double [ 0.000000e+00, %entry ], [ %s.next, %body ]
  %q = getelementptr inbounds double, ptr %p, i64 %i
  %v = load double, ptr %q, align 8
  %s.next = fadd double %s, %v
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp slt i64 %i.next, %n
  br i1 %c, label %body, label %exit

exit:
  %r = phi double [ 0.000000e+00, %entry ], [ %s.next, %body ]
  ret double %r
}

; CHECK: {{^}}body.preheader:
; CHECK: {{^}}exit.loopexit:
; CHECK-NEXT: %s.next.lcssa = phi double [ %s.next, %body ]
