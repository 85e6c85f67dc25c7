; reverse mode, load/store through a dup pointer: the store consumes the shadow (read, then zeroed), the load adds into it
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup},sroa,instcombine,simplifycfg' | filecheck %s

define void @f(ptr %p) {
entry:
  %x = load double, ptr %p, align 8
  %y = fmul double %x, %x
  store double %y, ptr %p, align 8
  ret void
}

; CHECK-LABEL: define void @diffe_f(ptr %p, ptr %p.shadow)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %x = load double, ptr %p, align 8
; CHECK-NEXT: %y = fmul double %x, %x
; CHECK-NEXT: store double %y, ptr %p, align 8
; CHECK-NEXT: [[V0:%[0-9]+]] = load double, ptr %p.shadow, align 8
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double [[V0]], %x
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double [[V0]], %x
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V1]], [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = fadd reassoc double [[V3]], 0.000000e+00
; CHECK-NEXT: store double [[V4]], ptr %p.shadow, align 8
; CHECK-NEXT: ret void
; CHECK-NEXT: }
