; instcombine: x + 0.0 is not x (x may be -0.0), but x * 1.0 is
; RUN: enzyme-py opt %s -p 'instcombine' | filecheck %s

define double @f(double %x) {
entry:
  %a = fmul double %x, 1.000000e+00
  %b = fadd double %a, 0.000000e+00
  ret double %b
}

; CHECK: %b = fadd double %x, 0.000000e+00
; CHECK-NEXT: ret double %b
