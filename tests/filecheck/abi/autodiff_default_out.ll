; __enzyme_autodiff with an unmarked double: Enzyme's default for a float is enzyme_out; the call becomes a call of @diffe_square with the seed 1.0
; RUN: enzyme-py opt %s -p 'lower-enzyme' | filecheck %s

define double @square(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

declare double @__enzyme_autodiff(ptr, ...)

define double @dsquare(double %x) {
entry:
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  ret double %d
}

; CHECK-LABEL: define double @dsquare(double %x)
; CHECK-NEXT: entry:
; CHECK-NEXT: [[D:%[0-9]+]] = call double @diffe_square(double %x, double 1.000000e+00)
; CHECK-NEXT: ret double [[D]]
; CHECK-LABEL: define double @diffe_square(double %x, double %dret)
