; forward mode, vector arithmetic: the rule of fmul applies lane-wise to <2 x double>
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define <2 x double> @f(<2 x double> %x, <2 x double> %y) {
entry:
  %m = fmul <2 x double> %x, %y
  ret <2 x double> %m
}

; CHECK-LABEL: define { <2 x double>, <2 x double> } @fwddiffe_f(<2 x double> %x, <2 x double> %x.t, <2 x double> %y, <2 x double> %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul <2 x double> %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul <2 x double> %x.t, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul <2 x double> %y.t, %x
; CHECK-NEXT: %m.t = fadd <2 x double> [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { <2 x double>, <2 x double> } zeroinitializer, <2 x double> %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { <2 x double>, <2 x double> } [[V2]], <2 x double> %m.t, 1
; CHECK-NEXT: ret { <2 x double>, <2 x double> } [[V3]]
; CHECK-NEXT: }
