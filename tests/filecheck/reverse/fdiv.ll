; reverse mode, fdiv: d(x/y) = dx/y - x dy/y^2
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %q = fdiv double %x, %y
  ret double %q
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fneg double %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fdiv double [[V0]], %y
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = fdiv double [[V2]], %y
; CHECK-NEXT: [[V4:%[0-9]+]] = fdiv double %dret, %y
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V4]], 0
; CHECK-NEXT: [[V6:%[0-9]+]] = insertvalue { double, double } [[V5]], double [[V3]], 1
; CHECK-NEXT: ret { double, double } [[V6]]
; CHECK-NEXT: }
