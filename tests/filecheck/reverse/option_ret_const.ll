; reverse option ret=const: the result is inactive, so there is no seed parameter and every adjoint is zero
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out,ret=const},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  %s = fadd double %m, %x
  ret double %s
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y)
; CHECK-NEXT: alloca:
; CHECK-NEXT: ret { double, double } zeroinitializer
; CHECK-NEXT: }
