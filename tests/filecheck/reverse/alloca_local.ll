; reverse mode, a local slot (alloca) holding active data gets a shadow slot of its own
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out}' | filecheck %s

define double @f(double %x) {
entry:
  %slot = alloca double, align 8
  store double %x, ptr %slot, align 8
  %v = load volatile double, ptr %slot, align 8
  %m = fmul double %v, %v
  ret double %m
}

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %slot = alloca double, align 8
; CHECK-NEXT: %slot.shadow = alloca double, align 8
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr %slot.shadow, i8 0, i64 8, i1 false)
; CHECK-NEXT: %m.d = alloca double
; CHECK-NEXT: store double -0.000000e+00, ptr %m.d
; CHECK-NEXT: %v.d = alloca double
; CHECK-NEXT: store double -0.000000e+00, ptr %v.d
; CHECK-NEXT: %x.d = alloca double
; CHECK-NEXT: store double -0.000000e+00, ptr %x.d
; CHECK-NEXT: br label %entry
; CHECK-EMPTY:
; CHECK-NEXT: entry:
; CHECK-NEXT: store double %x, ptr %slot, align 8
; CHECK-NEXT: %v = load volatile double, ptr %slot, align 8
; CHECK-NEXT: %m = fmul double %v, %v
; CHECK-NEXT: br label %rev.entry
; CHECK-EMPTY:
; CHECK-NEXT: rev.entry:
; CHECK-NEXT: [[V0:%[0-9]+]] = load double, ptr %m.d
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd reassoc double [[V0]], %dret
; CHECK-NEXT: store double [[V1]], ptr %m.d
; CHECK-NEXT: %m.d.1 = load double, ptr %m.d
; CHECK-NEXT: store double -0.000000e+00, ptr %m.d
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %m.d.1, %v
; CHECK-NEXT: [[V3:%[0-9]+]] = load double, ptr %v.d
; CHECK-NEXT: [[V4:%[0-9]+]] = fadd reassoc double [[V3]], [[V2]]
; CHECK-NEXT: store double [[V4]], ptr %v.d
; CHECK-NEXT: [[V5:%[0-9]+]] = fmul double %m.d.1, %v
; CHECK-NEXT: [[V6:%[0-9]+]] = load double, ptr %v.d
; CHECK-NEXT: [[V7:%[0-9]+]] = fadd reassoc double [[V6]], [[V5]]
; CHECK-NEXT: store double [[V7]], ptr %v.d
; CHECK-NEXT: %v.d.1 = load double, ptr %v.d
; CHECK-NEXT: store double -0.000000e+00, ptr %v.d
; CHECK-NEXT: [[V8:%[0-9]+]] = load double, ptr %slot.shadow, align 8
; CHECK-NEXT: [[V9:%[0-9]+]] = fadd reassoc double [[V8]], %v.d.1
; CHECK-NEXT: store double [[V9]], ptr %slot.shadow, align 8
; CHECK-NEXT: [[V10:%[0-9]+]] = load double, ptr %slot.shadow, align 8
; CHECK-NEXT: store double 0.000000e+00, ptr %slot.shadow, align 8
; CHECK-NEXT: [[V11:%[0-9]+]] = load double, ptr %x.d
; CHECK-NEXT: [[V12:%[0-9]+]] = fadd reassoc double [[V11]], [[V10]]
; CHECK-NEXT: store double [[V12]], ptr %x.d
; CHECK-NEXT: br label %rev.return
; CHECK-EMPTY:
; CHECK-NEXT: rev.return:
; CHECK-NEXT: %x.d.1 = load double, ptr %x.d
; CHECK-NEXT: store double -0.000000e+00, ptr %x.d
; CHECK-NEXT: ret double %x.d.1
; CHECK-NEXT: }
