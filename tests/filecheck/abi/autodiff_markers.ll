; __enzyme_autodiff with enzyme_out and enzyme_const markers (loads of the marker globals): the const argument gets no adjoint; the markers are defined so the output links
; RUN: enzyme-py opt %s -p 'lower-enzyme' | filecheck %s

@enzyme_dup = external global i32
@enzyme_const = external global i32
@enzyme_out = external global i32
@enzyme_dupnoneed = external global i32
@enzyme_width = external global i32
define double @mul(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

declare double @__enzyme_autodiff(ptr, ...)

define double @dmul(double %x, double %y) {
entry:
  %out = load i32, ptr @enzyme_out, align 4
  %const = load i32, ptr @enzyme_const, align 4
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @mul, i32 %out, double %x, i32 %const, double %y)
  ret double %d
}

; CHECK: @enzyme_const = global i32 {{[0-9]+}}
; CHECK: @enzyme_out = global i32 {{[0-9]+}}
; CHECK-LABEL: define double @dmul(double %x, double %y)
; CHECK: [[D:%[0-9]+]] = call double @diffe_mul(double %x, double %y, double 1.000000e+00)
; CHECK-NEXT: ret double [[D]]
; CHECK-LABEL: define double @diffe_mul(double %x, double %y, double %dret)
