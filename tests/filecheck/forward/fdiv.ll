; forward mode, fdiv: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %q = fdiv double %x, %y
  ret double %q
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %q = fdiv double %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = fdiv double %x.t, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %y.t, %q
; CHECK-NEXT: [[V2:%[0-9]+]] = fdiv double [[V1]], %y
; CHECK-NEXT: [[V3:%[0-9]+]] = fneg double [[V2]]
; CHECK-NEXT: %q.t = fadd double [[V0]], [[V3]]
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %q, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double %q.t, 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
