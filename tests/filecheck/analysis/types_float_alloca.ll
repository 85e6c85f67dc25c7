; print-types: a stack slot of floats, and one of an integer
; RUN: enzyme-py opt %s -p 'print-types{fn=f}' --disable-output | filecheck %s

define float @f(float %x) {
entry:
  %a = alloca [4 x float], align 16
  %n = alloca i32, align 4
  store float %x, ptr %a, align 4
  store i32 1, ptr %n, align 4
  %v = load float, ptr %a, align 4
  ret float %v
}

; CHECK: ; memory types of @f
; CHECK-NEXT: ;   %a: float  ; float*
; CHECK-NEXT: ;   %n: i32
; CHECK: ;   alloca %a: float
; CHECK-NEXT: ;   alloca %n: unknown
