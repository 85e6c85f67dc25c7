; print-types: a malloc'd block written with doubles, and a pointer loaded from memory that holds pointers
; RUN: enzyme-py opt %s -p 'print-types{fn=f}' --disable-output | filecheck %s

declare ptr @malloc(i64)

define double @f(ptr %tab) {
entry:
  %buf = call ptr @malloc(i64 8)
  store double 2.000000e+00, ptr %buf, align 8
  %p = load ptr, ptr %tab, align 8
  %v = load double, ptr %p, align 8
  %w = load double, ptr %buf, align 8
  %s = fadd double %v, %w
  ret double %s
}

; CHECK: ;   argument %tab: ptr
; CHECK-NEXT: ;   call %buf: double
; CHECK-NEXT: ;   load %p: double
