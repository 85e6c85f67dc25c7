; forward mode: integer arithmetic is never active; sitofp of an integer is a constant factor, so the tangent is x.t times it
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,const}' | filecheck %s

define double @f(double %x, i64 %n) {
entry:
  %k = mul i64 %n, 3
  %c = sitofp i64 %k to double
  %m = fmul double %x, %c
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, i64 %n)
; CHECK-NEXT: entry:
; CHECK-NEXT: %k = mul i64 %n, 3
; CHECK-NEXT: %c = sitofp i64 %k to double
; CHECK-NEXT: %m = fmul double %x, %c
; CHECK-NEXT: %m.t = fmul double %x.t, %c
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
