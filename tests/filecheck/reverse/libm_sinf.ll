; reverse mode, sinf: the float alias of sin uses the same rule
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define float @f(float %x) {
entry:
  %r = call float @sinf(float %x)
  ret float %r
}

declare float @sinf(float)

; CHECK-LABEL: define float @diffe_f(float %x, float %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call float @sinf(float %x)
; CHECK-NEXT: [[V0:%[0-9]+]] = call float @llvm.cos.f32(float %x)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul float %dret, [[V0]]
; CHECK-NEXT: ret float [[V1]]
; CHECK-NEXT: }
