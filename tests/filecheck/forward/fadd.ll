; forward mode, fadd: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %s = fadd double %x, %y
  ret double %s
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %s = fadd double %x, %y
; CHECK-NEXT: %s.t = fadd double %x.t, %y.t
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %s, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %s.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
