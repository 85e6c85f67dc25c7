; forward mode, frem: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %r = frem double %x, %y
  ret double %r
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = frem double %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = fdiv double %x, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = call double @llvm.trunc.f64(double [[V0]])
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %y.t, [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = fneg double [[V2]]
; CHECK-NEXT: %r.t = fadd double %x.t, [[V3]]
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
