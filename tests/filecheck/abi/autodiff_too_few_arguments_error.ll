; __enzyme_autodiff with fewer values than the function has parameters: an error naming the missing one
; RUN: not enzyme-py opt %s -p 'lower-enzyme' 2>&1 | filecheck %s

define double @mul(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

declare double @__enzyme_autodiff(ptr, ...)

define double @bad(double %x) {
entry:
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @mul, double %x)
  ret double %d
}

; CHECK: error: in @bad, block %entry, the call to __enzyme_autodiff: too few arguments for @mul (parameter 1 of 2 is missing)
