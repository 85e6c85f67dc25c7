; forward mode of a loop-carried phi: x^n by repeated multiplication; the tangent is a phi beside the product's (no tape)
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,const}' | filecheck %s

define double @f(double %x, i64 %n) {
entry:
  br label %head

head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %head ]
  %p = phi double [ 1.000000e+00, %entry ], [ %p.next, %head ]
  %p.next = fmul double %p, %x
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %head, label %exit

exit:
  %r = phi double [ %p.next, %head ]
  ret double %r
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, i64 %n)
; CHECK-NEXT: entry:
; CHECK-NEXT: br label %head
; CHECK-EMPTY:
; CHECK-NEXT: head:
; CHECK-NEXT: %i = phi i64 [ 0, %entry ], [ %i.next, %head ]
; CHECK-NEXT: %p = phi double [ 1.000000e+00, %entry ], [ %p.next, %head ]
; CHECK-NEXT: %p.t = phi double [ 0.000000e+00, %entry ], [ %p.next.t, %head ]
; CHECK-NEXT: %p.next = fmul double %p, %x
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %p.t, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x.t, %p
; CHECK-NEXT: %p.next.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: %i.next = add nuw nsw i64 %i, 1
; CHECK-NEXT: %c = icmp ult i64 %i.next, %n
; CHECK-NEXT: br i1 %c, label %head, label %exit
; CHECK-EMPTY:
; CHECK-NEXT: exit:
; CHECK-NEXT: %r = phi double [ %p.next, %head ]
; CHECK-NEXT: %r.t = phi double [ %p.next.t, %head ]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
