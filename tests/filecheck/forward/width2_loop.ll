; vector forward mode through a loop: a tangent phi per lane
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,const,width=2}' | filecheck %s

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

; CHECK-LABEL: define { double, [2 x double] } @fwddiffe_f(double %x, double %x.t0, double %x.t1, i64 %n)
; CHECK: %p.t0 = phi double [ 0.000000e+00, %entry ], [ %p.next.t0, %head ]
; CHECK-NEXT: %p.t1 = phi double [ 0.000000e+00, %entry ], [ %p.next.t1, %head ]
; CHECK: %p.next.t0 = fadd double
; CHECK: %p.next.t1 = fadd double
; CHECK: insertvalue [2 x double] {{.*}}, double %r.t0, 0
; CHECK: insertvalue [2 x double] {{.*}}, double %r.t1, 1
