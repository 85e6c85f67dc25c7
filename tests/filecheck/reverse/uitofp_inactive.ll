; reverse mode, uitofp: a float made from an integer is inactive
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,const},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, i32 %n) {
entry:
  %c = uitofp i32 %n to double
  %m = fadd double %x, %c
  ret double %m
}

; CHECK-LABEL: define double @diffe_f(double %x, i32 %n, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: ret double %dret
; CHECK-NEXT: }
