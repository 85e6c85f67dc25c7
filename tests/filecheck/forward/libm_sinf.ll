; forward mode, sinf: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define float @f(float %x) {
entry:
  %r = call float @sinf(float %x)
  ret float %r
}

declare float @sinf(float)

; CHECK-LABEL: define { float, float } @fwddiffe_f(float %x, float %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call float @sinf(float %x)
; CHECK-NEXT: [[V0:%[0-9]+]] = call float @llvm.cos.f32(float %x)
; CHECK-NEXT: %r.t = fmul float %x.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { float, float } zeroinitializer, float %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { float, float } [[V1]], float %r.t, 1
; CHECK-NEXT: ret { float, float } [[V2]]
; CHECK-NEXT: }
