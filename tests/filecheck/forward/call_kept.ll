; forward mode of a call that stays a call (prepare{fn=f,inline=0}): the callee gets a derivative of its own, returning {primal, tangent}
; RUN: enzyme-py opt %s -p 'prepare{fn=f,inline=0},forward{fn=f,acts=dup}' | filecheck %s

define double @sq(double %a) {
entry:
  %m = fmul double %a, %a
  ret double %m
}

define double @f(double %x) {
entry:
  %s = call double @sq(double %x)
  %r = fmul double %s, %x
  ret double %r
}

; CHECK-LABEL: define { double, double } @fwddiffe_sq(double %a, double %a.t)
; CHECK: %m.t = fadd double
; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: [[C:%[0-9]+]] = call { double, double } @fwddiffe_sq(double %x, double %x.t)
; CHECK-NEXT: %s = extractvalue { double, double } [[C]], 0
; CHECK-NEXT: %s.t = extractvalue { double, double } [[C]], 1
