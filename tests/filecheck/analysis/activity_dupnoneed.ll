; print-activity: a dupnoneed pointer is shadowed like a dup one (only its primal contents are not needed)
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=dup,dupnoneed}' --disable-output | filecheck %s

define void @f(ptr %x, ptr %out) {
entry:
  %v = load double, ptr %x, align 8
  %y = fmul double %v, %v
  store double %y, ptr %out, align 8
  ret void
}

; CHECK: ;   arg %x: dup
; CHECK-NEXT: ;   arg %out: dupnoneed
; CHECK-NEXT: ;   return: const
; CHECK-NEXT: ;   shadow memory: %x, %out
; CHECK: store double %y, ptr %out, align 8  ; active
