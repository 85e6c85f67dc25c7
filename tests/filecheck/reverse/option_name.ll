; reverse option name=: the gradient takes the given name instead of diffe_<fn>
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out,name=grad_f}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  %s = fadd double %m, %x
  ret double %s
}

; CHECK-NOT: @diffe_f
; CHECK: define { double, double } @grad_f(double %x, double %y, double %dret)
