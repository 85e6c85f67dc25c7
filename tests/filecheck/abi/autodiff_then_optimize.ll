; the whole transform pipeline (prepare, lower-enzyme, O2): the gradient is inlined into the caller and folds to 2x
; RUN: enzyme-py opt %s -p 'prepare{fn=square},lower-enzyme,O2' | filecheck %s

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
; CHECK-NEXT: [[D:%.*]] = fadd reassoc double %x, %x
; CHECK-NEXT: ret double [[D]]
