; reverse mode, the binary libm functions: pow, atan2, hypot, fmax (ties split the seed)
; RUN: enzyme-py opt %s -p 'reverse{fn=f.pow,acts=out,out},reverse{fn=f.atan2,acts=out,out},reverse{fn=f.hypot,acts=out,out},reverse{fn=f.fmax,acts=out,out},sroa,instcombine,simplifycfg' | filecheck %s

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

; CHECK-LABEL: define { double, double } @diffe_f.pow(double %x0, double %x1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @pow(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = fcmp oeq double %x0, 0.000000e+00
; CHECK-NEXT: [[V1:%[0-9]+]] = call double @llvm.log.f64(double %x0)
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %r, [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = select i1 [[V0]], double 0.000000e+00, double [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = fmul double %dret, [[V3]]
; CHECK-NEXT: [[V5:%[0-9]+]] = fcmp oeq double %x1, 0.000000e+00
; CHECK-NEXT: [[V6:%[0-9]+]] = fadd double %x1, -1.000000e+00
; CHECK-NEXT: [[V7:%[0-9]+]] = call double @llvm.pow.f64(double %x0, double [[V6]])
; CHECK-NEXT: [[V8:%[0-9]+]] = fmul double %x1, [[V7]]
; CHECK-NEXT: [[V9:%[0-9]+]] = select i1 [[V5]], double 0.000000e+00, double [[V8]]
; CHECK-NEXT: [[V10:%[0-9]+]] = fmul double %dret, [[V9]]
; CHECK-NEXT: [[V11:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V10]], 0
; CHECK-NEXT: [[V12:%[0-9]+]] = insertvalue { double, double } [[V11]], double [[V4]], 1
; CHECK-NEXT: ret { double, double } [[V12]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @diffe_f.atan2(double %x0, double %x1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @atan2(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = fneg double %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, [[V0]]
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %x1, %x1
; CHECK-NEXT: [[V4:%[0-9]+]] = fadd double [[V2]], [[V3]]
; CHECK-NEXT: [[V5:%[0-9]+]] = fdiv double [[V1]], [[V4]]
; CHECK-NEXT: [[V6:%[0-9]+]] = fmul double %dret, %x1
; CHECK-NEXT: [[V7:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V8:%[0-9]+]] = fmul double %x1, %x1
; CHECK-NEXT: [[V9:%[0-9]+]] = fadd double [[V7]], [[V8]]
; CHECK-NEXT: [[V10:%[0-9]+]] = fdiv double [[V6]], [[V9]]
; CHECK-NEXT: [[V11:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V10]], 0
; CHECK-NEXT: [[V12:%[0-9]+]] = insertvalue { double, double } [[V11]], double [[V5]], 1
; CHECK-NEXT: ret { double, double } [[V12]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @diffe_f.hypot(double %x0, double %x1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @hypot(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %x1
; CHECK-NEXT: [[V1:%[0-9]+]] = fdiv double [[V0]], %r
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, %x0
; CHECK-NEXT: [[V3:%[0-9]+]] = fdiv double [[V2]], %r
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V3]], 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double [[V1]], 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @diffe_f.fmax(double %x0, double %x1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call nsz double @llvm.maxnum.f64(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = fcmp oeq double %x1, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fcmp oeq double %x0, %r
; CHECK-NEXT: [[V2:%[0-9]+]] = select i1 [[V1]], double 5.000000e-01, double 1.000000e+00
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double %dret, [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = select i1 [[V0]], double [[V3]], double 0.000000e+00
; CHECK-NEXT: [[V5:%[0-9]+]] = fcmp oeq double %x0, %r
; CHECK-NEXT: [[V6:%[0-9]+]] = fcmp oeq double %x1, %r
; CHECK-NEXT: [[V7:%[0-9]+]] = select i1 [[V6]], double 5.000000e-01, double 1.000000e+00
; CHECK-NEXT: [[V8:%[0-9]+]] = fmul double %dret, [[V7]]
; CHECK-NEXT: [[V9:%[0-9]+]] = select i1 [[V5]], double [[V8]], double 0.000000e+00
; CHECK-NEXT: [[V10:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V9]], 0
; CHECK-NEXT: [[V11:%[0-9]+]] = insertvalue { double, double } [[V10]], double [[V4]], 1
; CHECK-NEXT: ret { double, double } [[V11]]
; CHECK-NEXT: }
