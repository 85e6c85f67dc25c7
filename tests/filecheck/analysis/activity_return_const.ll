; print-activity with ret=const: no output is active, so no value is useful and nothing is active
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=out,ret=const}' --disable-output | filecheck %s

define double @f(double %x) {
entry:
  %a = fmul double %x, %x
  ret double %a
}

; CHECK: ;   return: const
; CHECK: %a = fmul double %x, %x  ; const
; CHECK-NEXT: ret double %a  ; const
