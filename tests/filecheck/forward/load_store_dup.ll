; forward mode, load/store through a dup pointer: the load reads the tangent from the shadow, the store writes the tangent into it
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define void @f(ptr %p) {
entry:
  %x = load double, ptr %p, align 8
  %y = fmul double %x, %x
  store double %y, ptr %p, align 8
  ret void
}

; CHECK-LABEL: define void @fwddiffe_f(ptr %p, ptr %p.shadow)
; CHECK-NEXT: entry:
; CHECK-NEXT: %x = load double, ptr %p, align 8
; CHECK-NEXT: %x.t = load double, ptr %p.shadow, align 8
; CHECK-NEXT: %y = fmul double %x, %x
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x.t, %x
; CHECK-NEXT: %y.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: store double %y, ptr %p, align 8
; CHECK-NEXT: store double %y.t, ptr %p.shadow, align 8
; CHECK-NEXT: ret void
; CHECK-NEXT: }
