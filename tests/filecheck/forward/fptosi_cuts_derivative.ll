; forward mode, fptosi: an integer result carries no tangent (only the direct use of x counts)
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(double %x) {
entry:
  %i = fptosi double %x to i64
  %c = sitofp i64 %i to double
  %m = fmul double %x, %c
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %i = fptosi double %x to i64
; CHECK-NEXT: %c = sitofp i64 %i to double
; CHECK-NEXT: %m = fmul double %x, %c
; CHECK-NEXT: %m.t = fmul double %x.t, %c
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
