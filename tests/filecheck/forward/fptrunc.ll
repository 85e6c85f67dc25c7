; forward mode, fptrunc: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define float @f(double %x) {
entry:
  %t = fptrunc double %x to float
  %m = fmul float %t, %t
  ret float %m
}

; CHECK-LABEL: define { float, float } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %t = fptrunc double %x to float
; CHECK-NEXT: %t.t = fptrunc double %x.t to float
; CHECK-NEXT: %m = fmul float %t, %t
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul float %t.t, %t
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul float %t.t, %t
; CHECK-NEXT: %m.t = fadd float [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { float, float } zeroinitializer, float %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { float, float } [[V2]], float %m.t, 1
; CHECK-NEXT: ret { float, float } [[V3]]
; CHECK-NEXT: }
