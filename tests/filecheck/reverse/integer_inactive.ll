; reverse mode: integer arithmetic is never active; sitofp of an integer is a constant factor
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,const},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, i64 %n) {
entry:
  %k = mul i64 %n, 3
  %c = sitofp i64 %k to double
  %m = fmul double %x, %c
  ret double %m
}

; CHECK-LABEL: define double @diffe_f(double %x, i64 %n, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %k = mul i64 %n, 3
; CHECK-NEXT: %c = sitofp i64 %k to double
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %c
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
