; forward mode, insertelement: the result's tangent is the vector's tangent with the scalar's tangent inserted in the same lane
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(<2 x double> %v, double %x) {
entry:
  %w = insertelement <2 x double> %v, double %x, i64 0
  %a = extractelement <2 x double> %w, i64 0
  %b = extractelement <2 x double> %w, i64 1
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(<2 x double> %v, <2 x double> %v.t, double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %w = insertelement <2 x double> %v, double %x, i64 0
; CHECK-NEXT: %w.t = insertelement <2 x double> %v.t, double %x.t, i64 0
; CHECK-NEXT: %a = extractelement <2 x double> %w, i64 0
; CHECK-NEXT: %a.t = extractelement <2 x double> %w.t, i64 0
; CHECK-NEXT: %b = extractelement <2 x double> %w, i64 1
; CHECK-NEXT: %b.t = extractelement <2 x double> %w.t, i64 1
; CHECK-NEXT: %m = fmul double %a, %b
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %a.t, %b
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %b.t, %a
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
