; __enzyme_fwddiff: an unmarked double is dup in forward mode (value, then tangent); the call returns the tangent alone
; RUN: enzyme-py opt %s -p 'lower-enzyme' | filecheck %s

define double @square(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

declare double @__enzyme_fwddiff(ptr, ...)

define double @tsquare(double %x, double %dx) {
entry:
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @square, double %x, double %dx)
  ret double %t
}

; CHECK-LABEL: define double @tsquare(double %x, double %dx)
; CHECK-NEXT: entry:
; CHECK-NEXT: [[T:%[0-9]+]] = call double @fwddiffe_square(double %x, double %dx)
; CHECK-NEXT: ret double [[T]]
; CHECK-LABEL: define double @fwddiffe_square(double %x, double %x.t)
