; reverse mode in single precision: float adjoints, float seed
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

define float @f(float %x, float %y) {
entry:
  %m = fmul float %x, %y
  %s = fadd float %m, %x
  ret float %s
}

; CHECK-LABEL: define { float, float } @diffe_f(float %x, float %y, float %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul float %dret, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul float %dret, %y
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc float %dret, [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { float, float } zeroinitializer, float [[V2]], 0
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { float, float } [[V3]], float [[V0]], 1
; CHECK-NEXT: ret { float, float } [[V4]]
; CHECK-NEXT: }
