; O2: LLVM's default -O2 pipeline; a reduction of fadd without fast-math flags cannot be reassociated, so it stays a chain of scalar fadds (no vector fadd)
; RUN: enzyme-py opt %s -p 'O2' | filecheck %s

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

; CHECK-LABEL: define double @f(
; CHECK: fadd double
; CHECK-NOT: fadd <
