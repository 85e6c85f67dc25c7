; print-activity: with x const, nothing depends on an active input and everything is const, though the return is active
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=const,out}' --disable-output | filecheck %s

define double @f(double %x, double %y) {
entry:
  %a = fmul double %x, %x
  %b = fadd double %a, %y
  ret double %b
}

; CHECK: ;   arg %x: const
; CHECK-NEXT: ;   arg %y: out
; CHECK: %a = fmul double %x, %x  ; const
; CHECK-NEXT: %b = fadd double %a, %y  ; active
