; forward mode of a switch: each case computes its tangent in its own block; a phi of tangents follows the phi of values
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,const}' | filecheck %s

define double @f(double %x, i32 %k) {
entry:
  switch i32 %k, label %other [
    i32 0, label %zero
    i32 1, label %one
  ]

zero:
  %a = fmul double %x, %x
  br label %join

one:
  %b = fmul double %x, 3.000000e+00
  br label %join

other:
  br label %join

join:
  %r = phi double [ %a, %zero ], [ %b, %one ], [ %x, %other ]
  ret double %r
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, i32 %k)
; CHECK-NEXT: entry:
; CHECK-NEXT: switch i32 %k, label %other [
; CHECK-NEXT: i32 0, label %zero
; CHECK-NEXT: i32 1, label %one
; CHECK-NEXT: ]
; CHECK-EMPTY:
; CHECK-NEXT: zero:
; CHECK-NEXT: %a = fmul double %x, %x
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x.t, %x
; CHECK-NEXT: %a.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: br label %join
; CHECK-EMPTY:
; CHECK-NEXT: one:
; CHECK-NEXT: %b = fmul double %x, 3.000000e+00
; CHECK-NEXT: %b.t = fmul double %x.t, 3.000000e+00
; CHECK-NEXT: br label %join
; CHECK-EMPTY:
; CHECK-NEXT: other:
; CHECK-NEXT: br label %join
; CHECK-EMPTY:
; CHECK-NEXT: join:
; CHECK-NEXT: %r = phi double [ %a, %zero ], [ %b, %one ], [ %x, %other ]
; CHECK-NEXT: %r.t = phi double [ %a.t, %zero ], [ %b.t, %one ], [ %x.t, %other ]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
