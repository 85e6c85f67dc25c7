; reverse mode: a constant operand has no adjoint; the other one gets seed*constant
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x) {
entry:
  %m = fmul double %x, 3.000000e+00
  ret double %m
}

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, 3.000000e+00
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
