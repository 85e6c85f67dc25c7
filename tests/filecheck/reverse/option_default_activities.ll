; reverse without acts=: Enzyme's defaults (integers const, floats out, pointers dup) and an active float return
; RUN: enzyme-py opt %s -p 'reverse{fn=f},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x, ptr %p, i64 %n) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %x, %v
  ret double %m
}

; CHECK-LABEL: define double @diffe_f(double %x, ptr %p, ptr %p.shadow, i64 %n, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %v = load double, ptr %p, align 8
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = load double, ptr %p.shadow, align 8
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc double [[V1]], [[V0]]
; CHECK-NEXT: store double [[V2]], ptr %p.shadow, align 8
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %dret, %v
; CHECK-NEXT: ret double [[V3]]
; CHECK-NEXT: }
