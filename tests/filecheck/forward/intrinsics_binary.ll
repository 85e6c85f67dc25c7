; forward mode, the binary and ternary llvm.* intrinsics: pow, maxnum/minnum (the tangent of the chosen operand), copysign (no tangent for the sign), fma/fmuladd
; RUN: enzyme-py opt %s -p 'forward{fn=f.pow,acts=dup,dup},forward{fn=f.maxnum,acts=dup,dup},forward{fn=f.minnum,acts=dup,dup},forward{fn=f.copysign,acts=dup,dup},forward{fn=f.fma,acts=dup,dup,dup},forward{fn=f.fmuladd,acts=dup,dup,dup}' | filecheck %s

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

; CHECK-LABEL: define { double, double } @fwddiffe_f.pow(double %x0, double %x0.t, double %x1, double %x1.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.pow.f64(double %x0, double %x1)
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
; CHECK-LABEL: define { double, double } @fwddiffe_f.maxnum(double %x0, double %x0.t, double %x1, double %x1.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.maxnum.f64(double %x0, double %x1)
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
; CHECK-LABEL: define { double, double } @fwddiffe_f.minnum(double %x0, double %x0.t, double %x1, double %x1.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.minnum.f64(double %x0, double %x1)
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
; CHECK-LABEL: define { double, double } @fwddiffe_f.copysign(double %x0, double %x0.t, double %x1, double %x1.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.copysign.f64(double %x0, double %x1)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.copysign.f64(double 1.000000e+00, double %x1)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x0.t, [[V0]]
; CHECK-NEXT: [[V2:%[0-9]+]] = fcmp olt double %x0, 0.000000e+00
; CHECK-NEXT: [[V3:%[0-9]+]] = fneg double [[V1]]
; CHECK-NEXT: [[V4:%[0-9]+]] = select i1 [[V2]], double [[V3]], double 0.000000e+00
; CHECK-NEXT: [[V5:%[0-9]+]] = fcmp ogt double %x0, 0.000000e+00
; CHECK-NEXT: %r.t = select i1 [[V5]], double [[V1]], double [[V4]]
; CHECK-NEXT: [[V6:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V7:%[0-9]+]] = insertvalue { double, double } [[V6]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V7]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.fma(double %x0, double %x0.t, double %x1, double %x1.t, double %x2, double %x2.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.fma.f64(double %x0, double %x1, double %x2)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0.t, %x1
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x1.t, %x0
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd double [[V0]], [[V1]]
; CHECK-NEXT: %r.t = fadd double [[V2]], %x2.t
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } [[V3]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V4]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.fmuladd(double %x0, double %x0.t, double %x1, double %x1.t, double %x2, double %x2.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.fmuladd.f64(double %x0, double %x1, double %x2)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0.t, %x1
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x1.t, %x0
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd double [[V0]], [[V1]]
; CHECK-NEXT: %r.t = fadd double [[V2]], %x2.t
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } [[V3]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V4]]
; CHECK-NEXT: }
