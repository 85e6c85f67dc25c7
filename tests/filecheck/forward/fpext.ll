; forward mode, fpext: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(float %x) {
entry:
  %e = fpext float %x to double
  %m = fmul double %e, %e
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(float %x, float %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %e = fpext float %x to double
; CHECK-NEXT: %e.t = fpext float %x.t to double
; CHECK-NEXT: %m = fmul double %e, %e
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %e.t, %e
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %e.t, %e
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
