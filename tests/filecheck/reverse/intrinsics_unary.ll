; reverse mode, the unary llvm.* intrinsics: each derivative is its partial derivative times the seed (cos for sin, 1/x for log ...)
; RUN: enzyme-py opt %s -p 'reverse{fn=f.sin,acts=out},reverse{fn=f.cos,acts=out},reverse{fn=f.tan,acts=out},reverse{fn=f.exp,acts=out},reverse{fn=f.exp2,acts=out},reverse{fn=f.log,acts=out},reverse{fn=f.log2,acts=out},reverse{fn=f.log10,acts=out},reverse{fn=f.sqrt,acts=out},reverse{fn=f.fabs,acts=out},reverse{fn=f.tanh,acts=out},reverse{fn=f.atan,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

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

; CHECK-LABEL: define double @diffe_f.sin(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.cos.f64(double %x0)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.cos(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.sin.f64(double %x0)
; CHECK-NEXT: [[V1:%[0-9]+]] = fneg double [[V0]]
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.tan(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @llvm.tan.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double [[V0]], 1.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.exp(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @llvm.exp.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %r
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.exp2(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @llvm.exp2.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double [[V0]], 0x3FE62E42FEFA39EF
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.log(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fdiv double %dret, %x0
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.log2(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, 0x3FE62E42FEFA39EF
; CHECK-NEXT: [[V1:%[0-9]+]] = fdiv double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.log10(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, 0x40026BB1BBB55516
; CHECK-NEXT: [[V1:%[0-9]+]] = fdiv double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.sqrt(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @llvm.sqrt.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fadd double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fdiv double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.fabs(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fcmp ogt double %x0, 0.000000e+00
; CHECK-NEXT: [[V1:%[0-9]+]] = fcmp olt double %x0, 0.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = fneg double %dret
; CHECK-NEXT: [[V3:%[0-9]+]] = select i1 [[V1]], double [[V2]], double 0.000000e+00
; CHECK-NEXT: [[V4:%[0-9]+]] = select i1 [[V0]], double %dret, double [[V3]]
; CHECK-NEXT: ret double [[V4]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.tanh(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @llvm.tanh.f64(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fsub double 1.000000e+00, [[V0]]
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.atan(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double [[V0]], 1.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = fdiv double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
