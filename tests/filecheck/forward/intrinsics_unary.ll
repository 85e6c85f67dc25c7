; forward mode, the unary llvm.* intrinsics: each derivative is its partial derivative times the tangent (cos for sin, 1/x for log ...)
; RUN: enzyme-py opt %s -p 'forward{fn=f.sin,acts=dup},forward{fn=f.cos,acts=dup},forward{fn=f.tan,acts=dup},forward{fn=f.exp,acts=dup},forward{fn=f.exp2,acts=dup},forward{fn=f.log,acts=dup},forward{fn=f.log2,acts=dup},forward{fn=f.log10,acts=dup},forward{fn=f.sqrt,acts=dup},forward{fn=f.fabs,acts=dup},forward{fn=f.tanh,acts=dup},forward{fn=f.atan,acts=dup}' | filecheck %s

define double @f.sin(double %x0) {
entry:
  %r = call double @llvm.sin.f64(double %x0)
  ret double %r
}

define double @f.cos(double %x0) {
entry:
  %r = call double @llvm.cos.f64(double %x0)
  ret double %r
}

define double @f.tan(double %x0) {
entry:
  %r = call double @llvm.tan.f64(double %x0)
  ret double %r
}

define double @f.exp(double %x0) {
entry:
  %r = call double @llvm.exp.f64(double %x0)
  ret double %r
}

define double @f.exp2(double %x0) {
entry:
  %r = call double @llvm.exp2.f64(double %x0)
  ret double %r
}

define double @f.log(double %x0) {
entry:
  %r = call double @llvm.log.f64(double %x0)
  ret double %r
}

define double @f.log2(double %x0) {
entry:
  %r = call double @llvm.log2.f64(double %x0)
  ret double %r
}

define double @f.log10(double %x0) {
entry:
  %r = call double @llvm.log10.f64(double %x0)
  ret double %r
}

define double @f.sqrt(double %x0) {
entry:
  %r = call double @llvm.sqrt.f64(double %x0)
  ret double %r
}

define double @f.fabs(double %x0) {
entry:
  %r = call double @llvm.fabs.f64(double %x0)
  ret double %r
}

define double @f.tanh(double %x0) {
entry:
  %r = call double @llvm.tanh.f64(double %x0)
  ret double %r
}

define double @f.atan(double %x0) {
entry:
  %r = call double @llvm.atan.f64(double %x0)
  ret double %r
}

declare double @llvm.sin.f64(double)
declare double @llvm.cos.f64(double)
declare double @llvm.tan.f64(double)
declare double @llvm.exp.f64(double)
declare double @llvm.exp2.f64(double)
declare double @llvm.log.f64(double)
declare double @llvm.log2.f64(double)
declare double @llvm.log10.f64(double)
declare double @llvm.sqrt.f64(double)
declare double @llvm.fabs.f64(double)
declare double @llvm.tanh.f64(double)
declare double @llvm.atan.f64(double)

; CHECK-LABEL: define { double, double } @fwddiffe_f.sin(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.sin.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.cos.f64(double %x0)
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.cos(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.cos.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.sin.f64(double %x0)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x0.t, [[V0]]
; CHECK-NEXT: %r.t = fneg double [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.tan(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.tan.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double 1.000000e+00, [[V0]]
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.exp(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.exp.f64(double %x0)
; CHECK-NEXT: %r.t = fmul double %x0.t, %r
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.exp2(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.exp2.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0.t, %r
; CHECK-NEXT: %r.t = fmul double [[V0]], 0x3FE62E42FEFA39EF
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.log(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.log.f64(double %x0)
; CHECK-NEXT: %r.t = fdiv double %x0.t, %x0
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.log2(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.log2.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, 0x3FE62E42FEFA39EF
; CHECK-NEXT: %r.t = fdiv double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.log10(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.log10.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, 0x40026BB1BBB55516
; CHECK-NEXT: %r.t = fdiv double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.sqrt(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.sqrt.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fadd double %r, %r
; CHECK-NEXT: %r.t = fdiv double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.fabs(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.fabs.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fcmp olt double %x0, 0.000000e+00
; CHECK-NEXT: [[V1:%[0-9]+]] = fneg double %x0.t
; CHECK-NEXT: [[V2:%[0-9]+]] = select i1 [[V0]], double [[V1]], double 0.000000e+00
; CHECK-NEXT: [[V3:%[0-9]+]] = fcmp ogt double %x0, 0.000000e+00
; CHECK-NEXT: %r.t = select i1 [[V3]], double %x0.t, double [[V2]]
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.tanh(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.tanh.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fsub double 1.000000e+00, [[V0]]
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.atan(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.atan.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double 1.000000e+00, [[V0]]
; CHECK-NEXT: %r.t = fdiv double %x0.t, [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
