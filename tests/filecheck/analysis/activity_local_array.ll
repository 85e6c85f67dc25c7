; print-activity: a local array written with active data gets a shadow; the store into a const pointer stays const
; RUN: enzyme-py opt %s -p 'print-activity{fn=f,acts=out,const,const,ret=active}' --disable-output | filecheck %s

define double @f(double %x, double %y, ptr %p) {
entry:
  %a = alloca [4 x double], align 8
  %q = getelementptr [4 x double], ptr %a, i64 0, i64 1
  %m = fmul double %x, %x
  store double %m, ptr %q, align 8
  %l = load double, ptr %q, align 8
  %u = fadd double %x, 1.0
  store double %u, ptr %p, align 8
  %r = fadd double %l, %y
  ret double %r
}

; CHECK: ; activity of @f
; CHECK-NEXT: ;   arg %x: out
; CHECK-NEXT: ;   arg %y: const
; CHECK-NEXT: ;   arg %p: const
; CHECK-NEXT: ;   return: active
; CHECK-NEXT: ;   shadow memory: %a
; CHECK-NEXT: entry:
; CHECK-NEXT:   %a = alloca [4 x double], align 8  ; const
; CHECK-NEXT:   %q = getelementptr [4 x double], ptr %a, i64 0, i64 1  ; const
; CHECK-NEXT:   %m = fmul double %x, %x  ; active
; CHECK-NEXT:   store double %m, ptr %q, align 8  ; active
; CHECK-NEXT:   %l = load double, ptr %q, align 8  ; active
; CHECK-NEXT:   %u = fadd double %x, 1.000000e+00  ; const
; CHECK-NEXT:   store double %u, ptr %p, align 8  ; const
; CHECK-NEXT:   %r = fadd double %l, %y  ; active
; CHECK-NEXT:   ret double %r  ; active
