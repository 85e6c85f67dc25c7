; forward mode with a registered derivative: the call of g becomes a call of g_fwd (tangent 10 x.t, not g's own 2x x.t)
; RUN: enzyme-py opt %s -p 'prepare{fn=f},forward{fn=f,acts=dup},sroa,instcombine,simplifycfg' | filecheck %s

; a registered forward derivative of @g (Enzyme's __enzyme_register_derivative): the
; derivative calls g_fwd, which returns {primal, tangent}, instead of differentiating g's body
@__enzyme_register_derivative_g = global [2 x ptr] [ptr @g, ptr @g_fwd]

define double @g(double %a) noinline {
entry:
  %m = fmul double %a, %a
  ret double %m
}

define { double, double } @g_fwd(double %a, double %a.t) {
entry:
  %m = fmul double %a, %a
  %t = fmul double %a.t, 1.000000e+01
  %r0 = insertvalue { double, double } undef, double %m, 0
  %r1 = insertvalue { double, double } %r0, double %t, 1
  ret { double, double } %r1
}

define double @f(double %x) {
entry:
  %s = call double @g(double %x)
  %r = fadd double %s, %x
  ret double %r
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: [[V0:%[0-9]+]] = call { double, double } @g_fwd(double %x, double %x.t)
; CHECK-NEXT: %s = extractvalue { double, double } [[V0]], 0
; CHECK-NEXT: %s.t = extractvalue { double, double } [[V0]], 1
; CHECK-NEXT: %r = fadd double %s, %x
; CHECK-NEXT: %r.t = fadd double %s.t, %x.t
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
