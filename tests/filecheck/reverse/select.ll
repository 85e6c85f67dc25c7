; reverse mode, select: the adjoint goes to the chosen operand only (a select of the adjoint and zero)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %c = fcmp ogt double %x, %y
  %s = select i1 %c, double %x, double %y
  ret double %s
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %c = fcmp ogt double %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = select i1 %c, double 0.000000e+00, double %dret
; CHECK-NEXT: [[V1:%[0-9]+]] = select i1 %c, double %dret, double 0.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V1]], 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double [[V0]], 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
