; forward mode, a local slot (alloca) holding active data gets a shadow slot for its tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(double %x) {
entry:
  %slot = alloca double, align 8
  store double %x, ptr %slot, align 8
  %v = load volatile double, ptr %slot, align 8
  %m = fmul double %v, %v
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %slot = alloca double, align 8
; CHECK-NEXT: %slot.shadow = alloca double, align 8
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr %slot.shadow, i8 0, i64 8, i1 false)
; CHECK-NEXT: store double %x, ptr %slot, align 8
; CHECK-NEXT: store double %x.t, ptr %slot.shadow, align 8
; CHECK-NEXT: %v = load volatile double, ptr %slot, align 8
; CHECK-NEXT: %v.t = load volatile double, ptr %slot.shadow, align 8
; CHECK-NEXT: %m = fmul double %v, %v
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %v.t, %v
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %v.t, %v
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
