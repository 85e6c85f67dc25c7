; forward mode with a function declared inactive: its result is a constant factor
; RUN: enzyme-py opt %s -p 'prepare{fn=f},forward{fn=f,acts=dup}' | filecheck %s

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

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %n = call double @noise(double %x)
; CHECK-NEXT: %r = fmul double %x, %n
; CHECK-NEXT: %r.t = fmul double %x.t, %n
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
