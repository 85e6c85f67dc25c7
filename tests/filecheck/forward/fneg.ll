; forward mode, fneg: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(double %x) {
entry:
  %n = fneg double %x
  ret double %n
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %n = fneg double %x
; CHECK-NEXT: %n.t = fneg double %x.t
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %n, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %n.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
