; print-activity without arguments: every defined function with Enzyme's defaults (integers const, floats out, pointers dup); the integer argument and the index arithmetic are const
; RUN: enzyme-py opt %s -p 'print-activity' --disable-output | filecheck %s

define double @f(double %x, ptr %p, i64 %n) {
entry:
  %i = add i64 %n, 1
  %q = getelementptr double, ptr %p, i64 %i
  %v = load double, ptr %q, align 8
  %m = fmul double %x, %v
  ret double %m
}

define i64 @g(i64 %k) {
entry:
  %r = mul i64 %k, 2
  ret i64 %r
}

; CHECK-LABEL: ; activity of @f
; CHECK-NEXT: ;   arg %x: out
; CHECK-NEXT: ;   arg %p: dup
; CHECK-NEXT: ;   arg %n: const
; CHECK-NEXT: ;   return: active
; CHECK-NEXT: ;   shadow memory: %p
; CHECK: %i = add i64 %n, 1  ; const
; CHECK-NEXT: %q = getelementptr double, ptr %p, i64 %i  ; const
; CHECK-NEXT: %v = load double, ptr %q, align 8  ; active
; CHECK-NEXT: %m = fmul double %x, %v  ; active
; CHECK-LABEL: ; activity of @g
; CHECK-NEXT: ;   arg %k: const
; CHECK-NEXT: ;   return: const
; CHECK: %r = mul i64 %k, 2  ; const
