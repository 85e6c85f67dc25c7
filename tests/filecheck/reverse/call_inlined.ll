; reverse mode of a call after prepare{fn=f}: the callee is inlined first (inline-callees, always-inline), so the gradient has no call left
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

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

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %m.i = fmul double %x, %x
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %m.i
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %x
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double [[V1]], %x
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V0]], [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = fmul double [[V1]], %x
; CHECK-NEXT: [[V5:%[0-9]+]] = fadd reassoc double [[V3]], [[V4]]
; CHECK-NEXT: ret double [[V5]]
; CHECK-NEXT: }
