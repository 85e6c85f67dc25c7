; forward mode of a call after prepare{fn=f}: the callee is inlined first
; RUN: enzyme-py opt %s -p 'prepare{fn=f},forward{fn=f,acts=dup}' | filecheck %s

define double @sq(double %a) {
entry:
  %m = fmul double %a, %a
  ret double %m
}

define double @f(double %x) {
entry:
  %s = call double @sq(double %x)
  %r = fmul double %s, %x
  ret double %r
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %m.i = fmul double %x, %x
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x.t, %x
; CHECK-NEXT: %m.i.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: %r = fmul double %m.i, %x
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %m.i.t, %x
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %x.t, %m.i
; CHECK-NEXT: %r.t = fadd double [[V2]], [[V3]]
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
