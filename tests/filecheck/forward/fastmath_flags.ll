; forward mode keeps the primal's fast-math flags on the tangent's arithmetic
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul fast double %x, %y
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul fast double %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %y.t, %x
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
