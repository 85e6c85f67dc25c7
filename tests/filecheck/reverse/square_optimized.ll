; reverse mode then -O2: the gradient of x*x is arithmetic only (no slots, no calls, no loads)
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=out,ret=active},dupnoneed{fn=f,acts=out,ret=active},O2' | filecheck %s

define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NOT: = alloca
; CHECK-NOT: call
; CHECK-NOT: load
; CHECK: fmul double
; CHECK-NOT: = alloca
; CHECK-NOT: call
; CHECK: ret double
