; forward mode: a constant operand has no tangent; the tangent is x.t times the constant
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(double %x) {
entry:
  %m = fmul double %x, 3.000000e+00
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul double %x, 3.000000e+00
; CHECK-NEXT: %m.t = fmul double %x.t, 3.000000e+00
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
