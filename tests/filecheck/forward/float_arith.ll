; forward mode in single precision: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define float @f(float %x, float %y) {
entry:
  %m = fmul float %x, %y
  %s = fadd float %m, %x
  ret float %s
}

; CHECK-LABEL: define { float, float } @fwddiffe_f(float %x, float %x.t, float %y, float %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul float %x, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul float %x.t, %y
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul float %y.t, %x
; CHECK-NEXT: %m.t = fadd float [[V0]], [[V1]]
; CHECK-NEXT: %s = fadd float %m, %x
; CHECK-NEXT: %s.t = fadd float %m.t, %x.t
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { float, float } zeroinitializer, float %s, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { float, float } [[V2]], float %s.t, 1
; CHECK-NEXT: ret { float, float } [[V3]]
; CHECK-NEXT: }
