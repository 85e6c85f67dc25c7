; forward mode, bitcast between float types of one size: the tangent is cast the same way
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(<2 x float> %v) {
entry:
  %b = bitcast <2 x float> %v to double
  ret double %b
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(<2 x float> %v, <2 x float> %v.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %b = bitcast <2 x float> %v to double
; CHECK-NEXT: %b.t = bitcast <2 x float> %v.t to double
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %b, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %b.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
