; O2-ad (the -O2 run before differentiating) keeps a loop whose body O2 would unroll as one loop: no unrolled copies
; RUN: enzyme-py opt %s -p 'O2-ad' | filecheck %s

define void @f(ptr %p) {
entry:
  br label %body

body:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %q = getelementptr inbounds double, ptr %p, i64 %i
  %v = load double, ptr %q, align 8
  %w = fmul double %v, %v
  store double %w, ptr %q, align 8
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, 4
  br i1 %c, label %body, label %exit

exit:
  ret void
}

; CHECK: phi i64
; CHECK: fmul double
; CHECK-NOT: fmul
