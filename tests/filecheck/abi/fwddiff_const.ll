; __enzyme_fwddiff with enzyme_const: the const argument takes no tangent
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

declare double @__enzyme_fwddiff(ptr, ...)

define double @tmul(double %x, double %dx, double %y) {
entry:
  %const = load i32, ptr @enzyme_const, align 4
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @mul, double %x, double %dx, i32 %const, double %y)
  ret double %t
}

; CHECK-LABEL: define double @tmul(double %x, double %dx, double %y)
; CHECK: call double @fwddiffe_mul(double %x, double %dx, double %y)
; CHECK-LABEL: define double @fwddiffe_mul(double %x, double %x.t, double %y)
; CHECK: %m.t = fmul double %x.t, %y
