; forward option primal=0: the derivative returns the tangent alone (Enzyme's __enzyme_fwddiff)
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup,primal=0}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  %s = fadd double %m, %x
  ret double %s
}

; CHECK-LABEL: define double @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul double %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %y.t, %x
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: %s = fadd double %m, %x
; CHECK-NEXT: %s.t = fadd double %m.t, %x.t
; CHECK-NEXT: ret double %s.t
; CHECK-NEXT: }
