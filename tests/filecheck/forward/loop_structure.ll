; forward mode of a loop: the tangent of the loop-carried product is a phi beside the product's (no tape)
; RUN: enzyme-py opt %s -p 'prepare{fn=prod},forward{fn=prod,acts=dup,const}' | filecheck %s

define double @prod(ptr %x, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %p = phi double [ 1.0, %entry ], [ %p.next, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %px
  %p.next = fmul double %p, %v
  %i.next = add nsw i64 %i, 1
  br label %head
exit:
  ret double %p
}

; CHECK-LABEL: define { double, double } @fwddiffe_prod(ptr %x, ptr %x.shadow, i64 %n) {
; CHECK: head:
; CHECK: %p = phi double [ 1.000000e+00, %entry ], [ %p.next, %body ]
; the constant 1.0 has a zero tangent; the back edge brings the next tangent
; CHECK-NEXT: %p.t = phi double [ 0.000000e+00, %entry ], [ %p.next.t, %body ]
; CHECK: body:
; CHECK: %px.shadow = getelementptr double, ptr %x.shadow, i64 %i
; CHECK: %v.t = load double, ptr %px.shadow
; CHECK: %p.next.t = fadd double
; CHECK-NOT: malloc
; CHECK: ret { double, double }
