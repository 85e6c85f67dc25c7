; forward mode, a function returning a struct of floats: its tangent is a struct of the fields' tangents, returned beside the primal
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define { double, double } @f(double %x, double %y) {
entry:
  %a = fmul double %x, %y
  %b = fadd double %x, %y
  %s0 = insertvalue { double, double } undef, double %a, 0
  %s1 = insertvalue { double, double } %s0, double %b, 1
  ret { double, double } %s1
}

; CHECK-LABEL: define { { double, double }, { double, double } } @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %a = fmul double %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %y.t, %x
; CHECK-NEXT: %a.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: %b = fadd double %x, %y
; CHECK-NEXT: %b.t = fadd double %x.t, %y.t
; CHECK-NEXT: %s0 = insertvalue { double, double } undef, double %a, 0
; CHECK-NEXT: %s0.t = insertvalue { double, double } zeroinitializer, double %a.t, 0
; CHECK-NEXT: %s1 = insertvalue { double, double } %s0, double %b, 1
; CHECK-NEXT: %s1.t = insertvalue { double, double } %s0.t, double %b.t, 1
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { { double, double }, { double, double } } zeroinitializer, { double, double } %s1, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { { double, double }, { double, double } } [[V2]], { double, double } %s1.t, 1
; CHECK-NEXT: ret { { double, double }, { double, double } } [[V3]]
; CHECK-NEXT: }
