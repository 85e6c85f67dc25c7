; print-loops: a function without loops
; RUN: enzyme-py opt %s -p 'print-loops' --disable-output | filecheck %s

define double @f(double %x) {
entry:
  ret double %x
}

; CHECK: loops of @f:
; CHECK-NOT: loop at
