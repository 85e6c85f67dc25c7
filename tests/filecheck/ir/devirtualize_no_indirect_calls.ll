; devirtualize on a module without indirect calls changes nothing (its follow-up pipeline does not run)
; RUN: enzyme-py opt %s -p 'devirtualize{fn=f}' | filecheck %s

define double @f(double %x) {
entry:
  %m = fmul double %x, %x
  ret double %m
}

; CHECK: define double @f(double %x) {
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul double %x, %x
; CHECK-NEXT: ret double %m
