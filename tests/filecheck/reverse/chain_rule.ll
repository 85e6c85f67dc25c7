; reverse mode: adjoints of a value used twice are summed (x*x*y)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %a = fmul double %x, %x
  %b = fmul double %a, %y
  ret double %b
}

; CHECK-LABEL: define { double, double } @diffe_f(double %x, double %y, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double [[V0]], %x
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double [[V0]], %x
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V1]], [[V2]]
; CHECK-NEXT: %a = fmul double %x, %x
; CHECK-NEXT: [[V4:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V3]], 0
; CHECK-NEXT: [[V6:%[0-9]+]] = insertvalue { double, double } [[V5]], double [[V4]], 1
; CHECK-NEXT: ret { double, double } [[V6]]
; CHECK-NEXT: }
