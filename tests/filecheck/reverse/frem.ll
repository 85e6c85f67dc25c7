; reverse mode, frem: x - y*trunc(x/y), so dx = seed and dy = -seed*trunc(x/y)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %r = frem double %x, %y
  ret double %r
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fdiv double %x, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = call double @llvm.trunc.f64(double [[V0]])
; CHECK-NEXT: [[V2:%[0-9]+]] = fneg double [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %dret, [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %dret, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double [[V3]], 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
