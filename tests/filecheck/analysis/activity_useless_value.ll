; print-activity: a value that depends on an active input but never reaches the result is varied, not useful: const
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=out,const}' --disable-output | filecheck %s

define double @f(double %x, ptr %log) {
entry:
  %sq = fmul double %x, %x
  store double %sq, ptr %log, align 8
  %y = fmul double %x, 3.000000e+00
  ret double %y
}

; CHECK: ;   shadow memory: none
; CHECK: %sq = fmul double %x, %x  ; const
; CHECK-NEXT: store double %sq, ptr %log, align 8  ; const
; CHECK-NEXT: %y = fmul double %x, 3.000000e+00  ; active
; CHECK-NEXT: ret double %y  ; active
