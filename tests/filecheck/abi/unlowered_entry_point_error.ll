; an __enzyme_* entry point that lower-enzyme does not lower is an error naming the call, never output that fails to link
; RUN: not enzyme-py opt %s -p 'lower-enzyme' 2>&1 | filecheck %s

define double @square(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

declare ptr @__enzyme_todense(ptr)

define ptr @bad() {
entry:
  %r = call ptr @__enzyme_todense(ptr @square)
  ret ptr %r
}

; CHECK: error: in @bad
; CHECK-SAME: __enzyme_todense
