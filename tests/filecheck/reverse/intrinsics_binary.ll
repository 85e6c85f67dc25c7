; reverse mode, the binary and ternary llvm.* intrinsics: pow, maxnum/minnum (the seed to the chosen operand), copysign (no adjoint for the sign), fma/fmuladd
; RUN: enzyme-py opt %s -p 'reverse{fn=f.pow,acts=out,out},reverse{fn=f.maxnum,acts=out,out},reverse{fn=f.minnum,acts=out,out},reverse{fn=f.copysign,acts=out,out},reverse{fn=f.fma,acts=out,out,out},reverse{fn=f.fmuladd,acts=out,out,out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f.pow(double %x0, double %x1) {
entry:
  %r = call double @llvm.pow.f64(double %x0, double %x1)
  ret double %r
}

define double @f.maxnum(double %x0, double %x1) {
entry:
  %r = call double @llvm.maxnum.f64(double %x0, double %x1)
  ret double %r
}

define double @f.minnum(double %x0, double %x1) {
entry:
  %r = call double @llvm.minnum.f64(double %x0, double %x1)
  ret double %r
}

define double @f.copysign(double %x0, double %x1) {
entry:
  %r = call double @llvm.copysign.f64(double %x0, double %x1)
  ret double %r
}

define double @f.fma(double %x0, double %x1, double %x2) {
entry:
  %r = call double @llvm.fma.f64(double %x0, double %x1, double %x2)
  ret double %r
}

define double @f.fmuladd(double %x0, double %x1, double %x2) {
entry:
  %r = call double @llvm.fmuladd.f64(double %x0, double %x1, double %x2)
  ret double %r
}

declare double @llvm.pow.f64(double, double)
declare double @llvm.maxnum.f64(double, double)
declare double @llvm.minnum.f64(double, double)
declare double @llvm.copysign.f64(double, double)
declare double @llvm.fma.f64(double, double, double)
declare double @llvm.fmuladd.f64(double, double, double)

; CHECK-LABEL: define { double, double } @diffe_f.pow(double %x0, double %x1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fcmp oeq double %x0, 0.000000e+00
; CHECK-NEXT: %r = call double @llvm.pow.f64(double %x0, double %x1)
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
; CHECK-LABEL: define { double, double } @diffe_f.maxnum(double %x0, double %x1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @llvm.maxnum.f64(double %x0, double %x1)
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
; CHECK-LABEL: define { double, double } @diffe_f.minnum(double %x0, double %x1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @llvm.minnum.f64(double %x0, double %x1)
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
; CHECK-LABEL: define { double, double } @diffe_f.copysign(double %x0, double %x1, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fcmp ogt double %x0, 0.000000e+00
; CHECK-NEXT: [[V1:%[0-9]+]] = call double @llvm.copysign.f64(double 1.000000e+00, double %x1)
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, [[V1]]
; CHECK-NEXT: [[V3:%[0-9]+]] = fcmp olt double %x0, 0.000000e+00
; CHECK-NEXT: [[V4:%[0-9]+]] = fneg double [[V2]]
; CHECK-NEXT: [[V5:%[0-9]+]] = select i1 [[V3]], double [[V4]], double 0.000000e+00
; CHECK-NEXT: [[V6:%[0-9]+]] = select i1 [[V0]], double [[V2]], double [[V5]]
; CHECK-NEXT: [[V7:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double [[V6]], 0
; CHECK-NEXT: [[V8:%[0-9]+]] = insertvalue { double, double } [[V7]], double -0.000000e+00, 1
; CHECK-NEXT: ret { double, double } [[V8]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double, double } @diffe_f.fma(double %x0, double %x1, double %x2, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %x1
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double, double } zeroinitializer, double [[V1]], 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double, double } [[V2]], double [[V0]], 1
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double, double } [[V3]], double %dret, 2
; CHECK-NEXT: ret { double, double, double } [[V4]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double, double } @diffe_f.fmuladd(double %x0, double %x1, double %x2, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %x1
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double, double } zeroinitializer, double [[V1]], 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double, double } [[V2]], double [[V0]], 1
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double, double } [[V3]], double %dret, 2
; CHECK-NEXT: ret { double, double, double } [[V4]]
; CHECK-NEXT: }
