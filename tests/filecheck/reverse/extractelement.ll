; reverse mode, extractelement: the adjoint goes into the extracted lane of the vector's adjoint
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(<2 x double> %v) {
entry:
  %a = extractelement <2 x double> %v, i64 1
  %m = fmul double %a, %a
  ret double %m
}

; CHECK-LABEL: define <2 x double> @diffe_f(<2 x double> %v, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %a = extractelement <2 x double> %v, i64 1
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc double [[V0]], [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = insertelement <2 x double> <double 0.000000e+00, double poison>, double [[V2]], i64 1
; CHECK-NEXT: ret <2 x double> [[V3]]
; CHECK-NEXT: }
