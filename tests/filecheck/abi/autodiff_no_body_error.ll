; __enzyme_autodiff of a function declared but not defined in the module: an error naming it
; RUN: not enzyme-py opt %s -p 'lower-enzyme' 2>&1 | filecheck %s

declare double @ext(double)
declare double @__enzyme_autodiff(ptr, ...)

define double @bad(double %x) {
entry:
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @ext, double %x)
  ret double %d
}

; CHECK: error: in @bad, block %entry, the call to __enzyme_autodiff: @ext has no body in this module (it must be defined in the same file)
