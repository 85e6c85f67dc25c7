; reverse mode, insertvalue: the inserted field's adjoint is that field of the result's adjoint
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %s0 = insertvalue { double, double } undef, double %x, 0
  %s1 = insertvalue { double, double } %s0, double %y, 1
  %a = extractvalue { double, double } %s1, 0
  %b = extractvalue { double, double } %s1, 1
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd reassoc double [[V0]], 0.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, %x
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V2]], 0.000000e+00
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V1]], 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double [[V3]], 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
