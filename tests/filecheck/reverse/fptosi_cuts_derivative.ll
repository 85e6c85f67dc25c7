; reverse mode, fptosi: an integer result carries no derivative (only the direct use of x counts)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x) {
entry:
  %i = fptosi double %x to i64
  %c = sitofp i64 %i to double
  %m = fmul double %x, %c
  ret double %m
}

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %i = fptosi double %x to i64
; CHECK-NEXT: %c = sitofp i64 %i to double
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %c
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
