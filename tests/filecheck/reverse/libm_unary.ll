; reverse mode, the unary libm functions (registered by name, with aliases): sin, cos, exp, log, tan, atan, sinh, cosh, erf, cbrt, log1p, expm1, asinh
; RUN: enzyme-py opt %s -p 'reverse{fn=f.sin,acts=out},reverse{fn=f.cos,acts=out},reverse{fn=f.exp,acts=out},reverse{fn=f.log,acts=out},reverse{fn=f.tan,acts=out},reverse{fn=f.atan,acts=out},reverse{fn=f.sinh,acts=out},reverse{fn=f.cosh,acts=out},reverse{fn=f.erf,acts=out},reverse{fn=f.cbrt,acts=out},reverse{fn=f.log1p,acts=out},reverse{fn=f.expm1,acts=out},reverse{fn=f.asinh,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f.sin(double %x0) {
entry:
  %r = call double @sin(double %x0)
  ret double %r
}

define double @f.cos(double %x0) {
entry:
  %r = call double @cos(double %x0)
  ret double %r
}

define double @f.exp(double %x0) {
entry:
  %r = call double @exp(double %x0)
  ret double %r
}

define double @f.log(double %x0) {
entry:
  %r = call double @log(double %x0)
  ret double %r
}

define double @f.tan(double %x0) {
entry:
  %r = call double @tan(double %x0)
  ret double %r
}

define double @f.atan(double %x0) {
entry:
  %r = call double @atan(double %x0)
  ret double %r
}

define double @f.sinh(double %x0) {
entry:
  %r = call double @sinh(double %x0)
  ret double %r
}

define double @f.cosh(double %x0) {
entry:
  %r = call double @cosh(double %x0)
  ret double %r
}

define double @f.erf(double %x0) {
entry:
  %r = call double @erf(double %x0)
  ret double %r
}

define double @f.cbrt(double %x0) {
entry:
  %r = call double @cbrt(double %x0)
  ret double %r
}

define double @f.log1p(double %x0) {
entry:
  %r = call double @log1p(double %x0)
  ret double %r
}

define double @f.expm1(double %x0) {
entry:
  %r = call double @expm1(double %x0)
  ret double %r
}

define double @f.asinh(double %x0) {
entry:
  %r = call double @asinh(double %x0)
  ret double %r
}

declare double @sin(double)
declare double @cos(double)
declare double @exp(double)
declare double @log(double)
declare double @tan(double)
declare double @atan(double)
declare double @sinh(double)
declare double @cosh(double)
declare double @erf(double)
declare double @cbrt(double)
declare double @log1p(double)
declare double @expm1(double)
declare double @asinh(double)

; CHECK-LABEL: define double @diffe_f.sin(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @sin(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.cos.f64(double %x0)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.cos(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @cos(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.sin.f64(double %x0)
; CHECK-NEXT: [[V1:%[0-9]+]] = fneg double [[V0]]
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.exp(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @exp(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %r
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.log(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @log(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fdiv double %dret, %x0
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.tan(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @tan(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double [[V0]], 1.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.atan(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @atan(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double [[V0]], 1.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = fdiv double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.sinh(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @sinh(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.cosh.f64(double %x0)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.cosh(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @cosh(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.sinh.f64(double %x0)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.erf(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @erf(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fneg double %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x0, [[V0]]
; CHECK-NEXT: [[V2:%[0-9]+]] = call double @llvm.exp.f64(double [[V1]])
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double [[V2]], 0x3FF20DD750429B6D
; CHECK-NEXT: [[V4:%[0-9]+]] = fmul double %dret, [[V3]]
; CHECK-NEXT: ret double [[V4]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.cbrt(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @cbrt(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double [[V0]], 3.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = fdiv double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.log1p(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @log1p(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fadd double %x0, 1.000000e+00
; CHECK-NEXT: [[V1:%[0-9]+]] = fdiv double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.expm1(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @expm1(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fadd double %r, 1.000000e+00
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, [[V0]]
; CHECK-NEXT: ret double [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define double @diffe_f.asinh(double %x0, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %r = call double @asinh(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double [[V0]], 1.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = call double @llvm.sqrt.f64(double [[V1]])
; CHECK-NEXT: [[V3:%[0-9]+]] = fdiv double %dret, [[V2]]
; CHECK-NEXT: ret double [[V3]]
; CHECK-NEXT: }
