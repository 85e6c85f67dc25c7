; forward mode, the shape of a derivative: each tangent right after its primal value, {primal, tangent} returned
; RUN: enzyme-py opt %s -p 'prepare{fn=f},forward{fn=f,acts=dup}' | filecheck %s

define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t) {
; CHECK-NEXT: entry:
; CHECK-NEXT:   %y = fmul double %x, %x
; tangent right after the primal: one product per operand, summed
; CHECK-NEXT:   [[A:%.*]] = fmul double %x.t, %x
; CHECK-NEXT:   [[B:%.*]] = fmul double %x.t, %x
; CHECK-NEXT:   %y.t = fadd double [[A]], [[B]]
; CHECK:   insertvalue { double, double } {{.*}}, double %y, 0
; CHECK:   insertvalue { double, double } {{.*}}, double %y.t, 1
; CHECK:   ret { double, double }
