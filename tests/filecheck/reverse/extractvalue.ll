; reverse mode, extractvalue: the adjoint goes into the extracted field of the aggregate's adjoint
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f({ double, double } %s) {
entry:
  %a = extractvalue { double, double } %s, 0
  %b = extractvalue { double, double } %s, 1
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define { double, double } @diffe_f({ double, double } %s, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %a = extractvalue { double, double } %s, 0
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd reassoc double [[V0]], 0.000000e+00
; CHECK-NEXT: %b = extractvalue { double, double } %s, 1
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, %b
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V2]], 0.000000e+00
; CHECK-NEXT: %s.d.1.fca.0.insert = insertvalue { double, double } poison, double [[V3]], 0
; CHECK-NEXT: %s.d.1.fca.1.insert = insertvalue { double, double } %s.d.1.fca.0.insert, double [[V1]], 1
; CHECK-NEXT: ret { double, double } %s.d.1.fca.1.insert
; CHECK-NEXT: }
