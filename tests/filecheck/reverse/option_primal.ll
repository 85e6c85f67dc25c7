; reverse option primal=1: the gradient also returns f's result first: { result, adjoints... }
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out,primal=1},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  %s = fadd double %m, %x
  ret double %s
}

; CHECK-LABEL: define { double, double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %y
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc double %dret, [[V1]]
; CHECK-NEXT: %m = fmul double %x, %y
; CHECK-NEXT: %s = fadd double %m, %x
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double, double } zeroinitializer, double %s, 0
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double, double } [[V3]], double [[V2]], 1
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double, double } [[V4]], double [[V0]], 2
; CHECK-NEXT: ret { double, double, double } [[V5]]
; CHECK-NEXT: }
