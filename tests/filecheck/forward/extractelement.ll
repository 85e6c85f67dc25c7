; forward mode, extractelement: the tangent is the same lane of the vector's tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(<2 x double> %v) {
entry:
  %a = extractelement <2 x double> %v, i64 1
  %m = fmul double %a, %a
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(<2 x double> %v, <2 x double> %v.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %a = extractelement <2 x double> %v, i64 1
; CHECK-NEXT: %a.t = extractelement <2 x double> %v.t, i64 1
; CHECK-NEXT: %m = fmul double %a, %a
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %a.t, %a
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %a.t, %a
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
