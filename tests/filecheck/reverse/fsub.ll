; reverse mode, fsub: the subtrahend gets the negated adjoint
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %s = fsub double %x, %y
  ret double %s
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fneg double %dret
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %dret, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double [[V0]], 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
