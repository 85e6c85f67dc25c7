; reverse mode, fpext: the adjoint is truncated back to the operand's type
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(float %x) {
entry:
  %e = fpext float %x to double
  %m = fmul double %e, %e
  ret double %m
}

; CHECK-LABEL: define float @diffe_f(float %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %e = fpext float %x to double
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %e
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %e
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc double [[V0]], [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = fptrunc double [[V2]] to float
; CHECK-NEXT: ret float [[V3]]
; CHECK-NEXT: }
