; reverse mode, fptrunc: the adjoint is extended back to double
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define float @f(double %x) {
entry:
  %t = fptrunc double %x to float
  %m = fmul float %t, %t
  ret float %m
}

; CHECK-LABEL: define double @diffe_f(double %x, float %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %t = fptrunc double %x to float
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul float %dret, %t
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul float %dret, %t
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc float [[V0]], [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = fpext float [[V2]] to double
; CHECK-NEXT: ret double [[V3]]
; CHECK-NEXT: }
