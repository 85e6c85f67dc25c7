; reverse mode keeps the primal's fast-math flags on the derivative's arithmetic
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul fast double %x, %y
  ret double %m
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: br label %entry
; CHECK-EMPTY:
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul fast double %x, %y
; CHECK-NEXT: br label %rev.entry
; CHECK-EMPTY:
; CHECK-NEXT: rev.entry:
; CHECK-NEXT: [[V0:%[0-9]+]] = fadd reassoc double -0.000000e+00, %dret
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double [[V0]], %y
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc double -0.000000e+00, [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double [[V0]], %x
; CHECK-NEXT: [[V4:%[0-9]+]] = fadd reassoc double -0.000000e+00, [[V3]]
; CHECK-NEXT: br label %rev.return
; CHECK-EMPTY:
; CHECK-NEXT: rev.return:
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V2]], 0
; CHECK-NEXT: [[V6:%[0-9]+]] = insertvalue { double, double } [[V5]], double [[V4]], 1
; CHECK-NEXT: ret { double, double } [[V6]]
; CHECK-NEXT: }
