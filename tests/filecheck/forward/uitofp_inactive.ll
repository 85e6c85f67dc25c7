; forward mode, uitofp: a float made from an integer is inactive: the sum's tangent is x's alone
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,const}' | filecheck %s

define double @f(double %x, i32 %n) {
entry:
  %c = uitofp i32 %n to double
  %m = fadd double %x, %c
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, i32 %n)
; CHECK-NEXT: entry:
; CHECK-NEXT: %c = uitofp i32 %n to double
; CHECK-NEXT: %m = fadd double %x, %c
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %x.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
