; vector forward mode, width=2: each dup argument is followed by two tangents; the result's tangents are a [2 x double]
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup,width=2}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  %s = fadd double %m, %x
  ret double %s
}

; CHECK-LABEL: define { double, [2 x double] } @fwddiffe_f(double %x, double %x.t0, double %x.t1, double %y, double %y.t0, double %y.t1)
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul double %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t0, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %y.t0, %x
; CHECK-NEXT: %m.t0 = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %x.t1, %y
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %y.t1, %x
; CHECK-NEXT: %m.t1 = fadd double [[V2]], [[V3]]
; CHECK-NEXT: %s = fadd double %m, %x
; CHECK-NEXT: %s.t0 = fadd double %m.t0, %x.t0
; CHECK-NEXT: %s.t1 = fadd double %m.t1, %x.t1
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue [2 x double] zeroinitializer, double %s.t0, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue [2 x double] [[V4]], double %s.t1, 1
; CHECK-NEXT: [[V6:%[0-9]+]] = insertvalue { double, [2 x double] } zeroinitializer, double %s, 0
; CHECK-NEXT: [[V7:%[0-9]+]] = insertvalue { double, [2 x double] } [[V6]], [2 x double] [[V5]], 1
; CHECK-NEXT: ret { double, [2 x double] } [[V7]]
; CHECK-NEXT: }
