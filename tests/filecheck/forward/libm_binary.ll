; forward mode, the binary libm functions: pow, atan2, hypot, fmax (ties average the tangents)
; RUN: enzyme-py opt %s -p 'forward{fn=f.pow,acts=dup,dup},forward{fn=f.atan2,acts=dup,dup},forward{fn=f.hypot,acts=dup,dup},forward{fn=f.fmax,acts=dup,dup}' | filecheck %s

define double @f.pow(double %x0, double %x1) {
entry:
  %r = call double @pow(double %x0, double %x1)
  ret double %r
}

define double @f.atan2(double %x0, double %x1) {
entry:
  %r = call double @atan2(double %x0, double %x1)
  ret double %r
}

define double @f.hypot(double %x0, double %x1) {
entry:
  %r = call double @hypot(double %x0, double %x1)
  ret double %r
}

define double @f.fmax(double %x0, double %x1) {
entry:
  %r = call double @fmax(double %x0, double %x1)
  ret double %r
}

declare double @pow(double, double)
declare double @atan2(double, double)
declare double @hypot(double, double)
declare double @fmax(double, double)

; CHECK-LABEL: define { double, double } @fwddiffe_f.pow(double %x0, double %x0.t, double %x1, double %x1.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @pow(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = fsub double %x1, 1.000000e+00
; CHECK-NEXT: [[V1:%[0-9]+]] = call double @llvm.pow.f64(double %x0, double [[V0]])
; CHECK-NEXT: [[V2:%[0-9]+]] = fcmp oeq double %x1, 0.000000e+00
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %x1, [[V1]]
; CHECK-NEXT: [[V4:%[0-9]+]] = select i1 [[V2]], double 0.000000e+00, double [[V3]]
; CHECK-NEXT: [[V5:%[0-9]+]] = fmul double %x0.t, [[V4]]
; CHECK-NEXT: [[V6:%[0-9]+]] = fcmp oeq double %x0, 0.000000e+00
; CHECK-NEXT: [[V7:%[0-9]+]] = call double @llvm.log.f64(double %x0)
; CHECK-NEXT: [[V8:%[0-9]+]] = fmul double %r, [[V7]]
; CHECK-NEXT: [[V9:%[0-9]+]] = select i1 [[V6]], double 0.000000e+00, double [[V8]]
; CHECK-NEXT: [[V10:%[0-9]+]] = fmul double %x1.t, [[V9]]
; CHECK-NEXT: %r.t = fadd double [[V5]], [[V10]]
; CHECK-NEXT: [[V11:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V12:%[0-9]+]] = insertvalue { double, double } [[V11]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V12]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.atan2(double %x0, double %x0.t, double %x1, double %x1.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @atan2(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0.t, %x1
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %x1, %x1
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd double [[V1]], [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = fdiv double [[V0]], [[V3]]
; CHECK-NEXT: [[V5:%[0-9]+]] = fmul double %x1.t, %x0
; CHECK-NEXT: [[V6:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V7:%[0-9]+]] = fmul double %x1, %x1
; CHECK-NEXT: [[V8:%[0-9]+]] = fadd double [[V6]], [[V7]]
; CHECK-NEXT: [[V9:%[0-9]+]] = fdiv double [[V5]], [[V8]]
; CHECK-NEXT: [[V10:%[0-9]+]] = fneg double [[V9]]
; CHECK-NEXT: %r.t = fadd double [[V4]], [[V10]]
; CHECK-NEXT: [[V11:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V12:%[0-9]+]] = insertvalue { double, double } [[V11]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V12]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.hypot(double %x0, double %x0.t, double %x1, double %x1.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @hypot(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0.t, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fdiv double [[V0]], %r
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %x1.t, %x1
; CHECK-NEXT: [[V3:%[0-9]+]] = fdiv double [[V2]], %r
; CHECK-NEXT: %r.t = fadd double [[V1]], [[V3]]
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.fmax(double %x0, double %x0.t, double %x1, double %x1.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @fmax(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = fcmp oeq double %x0, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fcmp oeq double %x1, %r
; CHECK-NEXT: [[V2:%[0-9]+]] = select i1 [[V1]], double 5.000000e-01, double 1.000000e+00
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %x0.t, [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = select i1 [[V0]], double [[V3]], double 0.000000e+00
; CHECK-NEXT: [[V5:%[0-9]+]] = fcmp oeq double %x1, %r
; CHECK-NEXT: [[V6:%[0-9]+]] = fcmp oeq double %x0, %r
; CHECK-NEXT: [[V7:%[0-9]+]] = select i1 [[V6]], double 5.000000e-01, double 1.000000e+00
; CHECK-NEXT: [[V8:%[0-9]+]] = fmul double %x1.t, [[V7]]
; CHECK-NEXT: [[V9:%[0-9]+]] = select i1 [[V5]], double [[V8]], double 0.000000e+00
; CHECK-NEXT: %r.t = fadd double [[V4]], [[V9]]
; CHECK-NEXT: [[V10:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V11:%[0-9]+]] = insertvalue { double, double } [[V10]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V11]]
; CHECK-NEXT: }
