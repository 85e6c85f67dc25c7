; reverse mode with a registered gradient: the reverse sweep calls g_rev with the argument and the seed (10, not g's own 2a)
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

; a registered gradient of @g (Enzyme's __enzyme_register_gradient): calls of g stay calls
; and the reverse sweep calls g_rev instead of differentiating g's body
@__enzyme_register_gradient_g = global [3 x ptr] [ptr @g, ptr null, ptr @g_rev]

define double @g(double %a) noinline {
entry:
  %m = fmul double %a, %a
  ret double %m
}

define double @g_rev(double %a, double %seed) {
entry:
  %d = fmul double %seed, 1.000000e+01
  ret double %d
}

define double @f(double %x) {
entry:
  %s = call double @g(double %x)
  %r = fadd double %s, %x
  ret double %r
}

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %s = call double @g(double %x)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @g_rev(double %x, double %dret)
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd reassoc double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
