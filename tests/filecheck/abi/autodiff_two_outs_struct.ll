; __enzyme_autodiff with two enzyme_out arguments: the adjoints come back as the struct the C compiler declared ({ double, double })
; RUN: enzyme-py opt %s -p 'lower-enzyme' | filecheck %s

define double @mul(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @dmul(double %x, double %y) {
entry:
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @mul, double %x, double %y)
  ret { double, double } %d
}

; CHECK-LABEL: define { double, double } @dmul(double %x, double %y)
; CHECK-NEXT: entry:
; CHECK-NEXT: [[G:%[0-9]+]] = call { double, double } @diffe_mul(double %x, double %y, double 1.000000e+00)
; CHECK-NEXT: [[A:%[0-9]+]] = extractvalue { double, double } [[G]], 0
; CHECK-NEXT: [[B:%[0-9]+]] = extractvalue { double, double } [[G]], 1
; CHECK: [[R0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[A]], 0
; CHECK: [[R1:%[0-9]+]] = insertvalue { double, double } [[R0]], double [[B]], 1
; CHECK-NEXT: ret { double, double } [[R1]]
