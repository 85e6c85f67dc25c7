; reverse mode: a const argument gets no adjoint and is not in the result
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,const},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

; CHECK-LABEL: define double @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %y
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
