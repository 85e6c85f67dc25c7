; inline-callees then always-inline: the callee's body is in f
; RUN: enzyme-py opt %s -p 'inline-callees{fn=f},always-inline' | filecheck %s

define double @sq(double %a) noinline {
entry:
  %m = fmul double %a, %a
  ret double %m
}

define double @f(double %x) {
entry:
  %s = call double @sq(double %x)
  ret double %s
}

; CHECK-LABEL: define double @f(double %x)
; CHECK-NOT: call
; CHECK: %m.i = fmul double %x, %x
