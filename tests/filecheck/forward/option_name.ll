; forward option name=: the derivative takes the given name
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup,name=tangent_f}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  %s = fadd double %m, %x
  ret double %s
}

; CHECK-NOT: @fwddiffe_f
; CHECK: define { double, double } @tangent_f(double %x, double %x.t, double %y, double %y.t)
