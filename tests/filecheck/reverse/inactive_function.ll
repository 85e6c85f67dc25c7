; reverse mode with a function declared inactive: its result is a constant factor; it is called, not differentiated
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

; __enzyme_inactivefn: calls of @noise carry no derivative (it is not differentiated)
@__enzyme_inactivefn = global [1 x ptr] [ptr @noise]

define double @noise(double %a) noinline {
entry:
  %m = fmul double %a, 1.000000e-03
  ret double %m
}

define double @f(double %x) {
entry:
  %n = call double @noise(double %x)
  %r = fmul double %x, %n
  ret double %r
}

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %n = call double @noise(double %x)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %n
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
