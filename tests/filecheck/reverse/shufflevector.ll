; reverse mode, shufflevector: adjoints move back through the mask (a lane used twice adds up)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(<2 x double> %v) {
entry:
  %s = shufflevector <2 x double> %v, <2 x double> poison, <2 x i32> <i32 1, i32 1>
  %a = extractelement <2 x double> %s, i64 0
  %b = extractelement <2 x double> %s, i64 1
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define <2 x double> @diffe_f(<2 x double> %v, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %a = extractelement <2 x double> %v, i64 1
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V1:%[0-9]+]] = insertelement <2 x double> <double 0.000000e+00, double poison>, double [[V0]], i64 1
; CHECK-NEXT: %b = extractelement <2 x double> %v, i64 1
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, %b
; CHECK-NEXT: [[V3:%[0-9]+]] = insertelement <2 x double> <double poison, double 0.000000e+00>, double [[V2]], i64 0
; CHECK-NEXT: [[V4:%[0-9]+]] = fadd reassoc <2 x double> [[V1]], [[V3]]
; CHECK-NEXT: [[V5:%[0-9]+]] = extractelement <2 x double> [[V4]], i64 0
; CHECK-NEXT: [[V6:%[0-9]+]] = extractelement <2 x double> [[V4]], i64 1
; CHECK-NEXT: [[V7:%[0-9]+]] = fadd double [[V5]], [[V6]]
; CHECK-NEXT: [[V8:%[0-9]+]] = insertelement <2 x double> <double 0.000000e+00, double poison>, double [[V7]], i64 1
; CHECK-NEXT: ret <2 x double> [[V8]]
; CHECK-NEXT: }
