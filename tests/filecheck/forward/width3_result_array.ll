; vector forward mode, width=3: the tangents of the result are returned as a [3 x double] array
; RUN: enzyme-py opt %s -p 'prepare{fn=f},forward{fn=f,acts=dup,width=3}' | filecheck %s

define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}

; CHECK-LABEL: define { double, [3 x double] } @fwddiffe_f(double %x, double %x.t0, double %x.t1, double %x.t2)
; CHECK: %y.t0 = fadd double
; CHECK: %y.t1 = fadd double
; CHECK: %y.t2 = fadd double
; CHECK: insertvalue [3 x double] {{.*}}, double %y.t2, 2
