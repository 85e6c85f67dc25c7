; malformed input is one line naming file:line:column, never a traceback
; RUN: not enzyme-py opt %s -p verify 2>&1 | filecheck %s

define double @f(double %x) {
entry:
  %y = fmul double %x,
  ret double %y
}

; CHECK: parse_error.ll:{{[0-9]+}}:3: error: expected a constant of type double
; CHECK-NOT: Traceback
