; __enzyme_autodiff of a float function: C passes the float as a double (default promotion) and receives a double; the call converts both ways
; RUN: enzyme-py opt %s -p 'lower-enzyme' | filecheck %s

define float @cube(float %x) {
entry:
  %s = fmul float %x, %x
  %c = fmul float %s, %x
  ret float %c
}

declare double @__enzyme_autodiff(ptr, ...)

define double @dcube(double %x) {
entry:
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @cube, double %x)
  ret double %d
}

; CHECK-LABEL: define double @dcube(double %x)
; CHECK: [[F:%[0-9]+]] = fptrunc double %x to float
; CHECK: [[G:%[0-9]+]] = call float @diffe_cube(float [[F]], float 1.000000e+00)
; CHECK: fpext float [[G]] to double
