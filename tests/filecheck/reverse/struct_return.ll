; reverse mode, a function returning a struct of floats: the seed is a struct, each field's adjoint flows to its operand
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define { double, double } @f(double %x, double %y) {
entry:
  %a = fmul double %x, %y
  %b = fadd double %x, %y
  %s0 = insertvalue { double, double } undef, double %a, 0
  %s1 = insertvalue { double, double } %s0, double %b, 1
  ret { double, double } %s1
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, { double, double } %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = extractvalue { double, double } %dret, 1
; CHECK-NEXT: [[V1:%[0-9]+]] = extractvalue { double, double } %dret, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double [[V1]], %x
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V0]], [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = fmul double [[V1]], %y
; CHECK-NEXT: [[V5:%[0-9]+]] = fadd reassoc double [[V0]], [[V4]]
; CHECK-NEXT: [[V6:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V5]], 0
; CHECK-NEXT: [[V7:%[0-9]+]] = insertvalue { double, double } [[V6]], double [[V3]], 1
; CHECK-NEXT: ret { double, double } [[V7]]
; CHECK-NEXT: }
