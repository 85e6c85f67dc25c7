; two __enzyme_autodiff calls of one function with the same activities share one gradient; different activities get another
; RUN: enzyme-py opt %s -p 'lower-enzyme,sroa,instcombine' | filecheck %s

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

define double @twice(double %x, double %y) {
entry:
  %const = load i32, ptr @enzyme_const, align 4
  %a = call double (ptr, ...) @__enzyme_autodiff(ptr @mul, double %x, i32 %const, double %y)
  %b = call double (ptr, ...) @__enzyme_autodiff(ptr @mul, double %y, i32 %const, double %x)
  %c = call double (ptr, ...) @__enzyme_autodiff(ptr @mul, i32 %const, double %x, double %y)
  %s = fadd double %a, %b
  %t = fadd double %s, %c
  ret double %t
}

; CHECK-LABEL: define double @twice(double %x, double %y)
; CHECK: call double @diffe_mul(double %x, double %y, double 1.000000e+00)
; CHECK: call double @diffe_mul(double %y, double %x, double 1.000000e+00)
; CHECK: call double @diffe_mul.1(double %x, double %y, double 1.000000e+00)
; CHECK-LABEL: define double @diffe_mul(double %x, double %y, double %dret)
; CHECK: fmul double %dret, %y
; CHECK-LABEL: define double @diffe_mul.1(double %x, double %y, double %dret)
; CHECK: fmul double %dret, %x
; CHECK-NOT: define {{.*}} @diffe_mul.2
