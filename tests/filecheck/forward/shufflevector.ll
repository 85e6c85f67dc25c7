; forward mode, shufflevector: the tangents are shuffled with the same mask
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(<2 x double> %v) {
entry:
  %s = shufflevector <2 x double> %v, <2 x double> poison, <2 x i32> <i32 1, i32 1>
  %a = extractelement <2 x double> %s, i64 0
  %b = extractelement <2 x double> %s, i64 1
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(<2 x double> %v, <2 x double> %v.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %s = shufflevector <2 x double> %v, <2 x double> poison, <2 x i32> <i32 1, i32 1>
; CHECK-NEXT: %s.t = shufflevector <2 x double> %v.t, <2 x double> zeroinitializer, <2 x i32> <i32 1, i32 1>
; CHECK-NEXT: %a = extractelement <2 x double> %s, i64 0
; CHECK-NEXT: %a.t = extractelement <2 x double> %s.t, i64 0
; CHECK-NEXT: %b = extractelement <2 x double> %s, i64 1
; CHECK-NEXT: %b.t = extractelement <2 x double> %s.t, i64 1
; CHECK-NEXT: %m = fmul double %a, %b
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %a.t, %b
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %b.t, %a
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
