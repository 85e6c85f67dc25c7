; reverse mode, fadd: the adjoint of the sum flows unchanged to both operands
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %s = fadd double %x, %y
  ret double %s
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %dret, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %dret, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
