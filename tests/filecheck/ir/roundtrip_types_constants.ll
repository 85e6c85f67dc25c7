; the printer spells types and constants as LLVM 22 does: named structs, arrays, vectors, hex doubles, zeroinitializer, splat, poison
; RUN: enzyme-py opt %s -p 'verify' | filecheck %s

%pair = type { double, [2 x float] }

@tab = internal constant [2 x double] [double 1.000000e-01, double 3.000000e+00]
@zero = global %pair zeroinitializer

define <4 x float> @f(<4 x float> %v) {
entry:
  %a = fadd <4 x float> %v, splat (float 1.000000e+00)
  %b = insertelement <4 x float> %a, float poison, i64 3
  ret <4 x float> %b
}

; CHECK: %pair = type { double, [2 x float] }
; CHECK: @tab = internal constant [2 x double] [double 1.000000e-01, double 3.000000e+00]
; CHECK: @zero = global %pair zeroinitializer
; CHECK: %a = fadd <4 x float> %v, splat (float 1.000000e+00)
; CHECK-NEXT: %b = insertelement <4 x float> %a, float poison, i64 3
