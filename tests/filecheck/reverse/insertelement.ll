; reverse mode, insertelement: the inserted scalar's adjoint is that lane of the result's adjoint; the vector's adjoint has the lane zeroed
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(<2 x double> %v, double %x) {
entry:
  %w = insertelement <2 x double> %v, double %x, i64 0
  %a = extractelement <2 x double> %w, i64 0
  %b = extractelement <2 x double> %w, i64 1
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define { <2 x double>, double } @diffe_f(<2 x double> %v, double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = insertelement <2 x double> <double 0.000000e+00, double poison>, double [[V0]], i64 1
; CHECK-NEXT: %b = extractelement <2 x double> %v, i64 1
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, %b
; CHECK-NEXT: [[V3:%[0-9]+]] = insertelement <2 x double> <double poison, double 0.000000e+00>, double [[V2]], i64 0
; CHECK-NEXT: [[V4:%[0-9]+]] = fadd reassoc <2 x double> [[V1]], [[V3]]
; CHECK-NEXT: [[V5:%[0-9]+]] = extractelement <2 x double> [[V4]], i64 0
; CHECK-NEXT: [[V6:%[0-9]+]] = insertelement <2 x double> [[V4]], double 0.000000e+00, i64 0
; CHECK-NEXT: [[V7:%[0-9]+]] = insertvalue { <2 x double>, double } zeroinitializer, <2 x double> [[V6]], 0
; CHECK-NEXT: [[V8:%[0-9]+]] = insertvalue { <2 x double>, double } [[V7]], double [[V5]], 1
; CHECK-NEXT: ret { <2 x double>, double } [[V8]]
; CHECK-NEXT: }
