; reverse mode, fmul: each operand's adjoint is the seed times the other operand
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %y
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V1]], 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double [[V0]], 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
