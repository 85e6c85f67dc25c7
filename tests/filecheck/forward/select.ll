; forward mode, select: the tangent is a select of the operands' tangents on the same condition
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %c = fcmp ogt double %x, %y
  %s = select i1 %c, double %x, double %y
  ret double %s
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %c = fcmp ogt double %x, %y
; CHECK-NEXT: %s = select i1 %c, double %x, double %y
; CHECK-NEXT: %s.t = select i1 %c, double %x.t, double %y.t
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %s, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %s.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
