; forward mode: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %a = fmul double %x, %x
  %b = fmul double %a, %y
  ret double %b
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %a = fmul double %x, %x
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x.t, %x
; CHECK-NEXT: %a.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: %b = fmul double %a, %y
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %a.t, %y
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %y.t, %a
; CHECK-NEXT: %b.t = fadd double [[V2]], [[V3]]
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %b, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double %b.t, 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
