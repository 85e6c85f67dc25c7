; forward mode, the unary libm functions (registered by name, with aliases): sin, cos, exp, log, tan, atan, sinh, cosh, erf, cbrt, log1p, expm1, asinh
; RUN: enzyme-py opt %s -p 'forward{fn=f.sin,acts=dup},forward{fn=f.cos,acts=dup},forward{fn=f.exp,acts=dup},forward{fn=f.log,acts=dup},forward{fn=f.tan,acts=dup},forward{fn=f.atan,acts=dup},forward{fn=f.sinh,acts=dup},forward{fn=f.cosh,acts=dup},forward{fn=f.erf,acts=dup},forward{fn=f.cbrt,acts=dup},forward{fn=f.log1p,acts=dup},forward{fn=f.expm1,acts=dup},forward{fn=f.asinh,acts=dup}' | filecheck %s

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

; CHECK-LABEL: define { double, double } @fwddiffe_f.sin(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @sin(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.cos.f64(double %x0)
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.cos(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @cos(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.sin.f64(double %x0)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %x0.t, [[V0]]
; CHECK-NEXT: %r.t = fneg double [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.exp(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @exp(double %x0)
; CHECK-NEXT: %r.t = fmul double %x0.t, %r
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.log(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @log(double %x0)
; CHECK-NEXT: %r.t = fdiv double %x0.t, %x0
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.tan(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @tan(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double 1.000000e+00, [[V0]]
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.atan(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @atan(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double 1.000000e+00, [[V0]]
; CHECK-NEXT: %r.t = fdiv double %x0.t, [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.sinh(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @sinh(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.cosh.f64(double %x0)
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.cosh(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @cosh(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.sinh.f64(double %x0)
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.erf(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @erf(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fneg double [[V0]]
; CHECK-NEXT: [[V2:%[0-9]+]] = call double @llvm.exp.f64(double [[V1]])
; CHECK-NEXT: [[V3:%[0-9]+]] = fmul double 0x3FF20DD750429B6D, [[V2]]
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V3]]
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V5:%[0-9]+]] = insertvalue { double, double } [[V4]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V5]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.cbrt(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @cbrt(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %r, %r
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double 3.000000e+00, [[V0]]
; CHECK-NEXT: %r.t = fdiv double %x0.t, [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.log1p(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @log1p(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fadd double %x0, 1.000000e+00
; CHECK-NEXT: %r.t = fdiv double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.expm1(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @expm1(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fadd double %r, 1.000000e+00
; CHECK-NEXT: %r.t = fmul double %x0.t, [[V0]]
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } [[V1]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V2]]
; CHECK-NEXT: }
; CHECK-LABEL: define { double, double } @fwddiffe_f.asinh(double %x0, double %x0.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @asinh(double %x0)
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x0, %x0
; CHECK-NEXT: [[V1:%[0-9]+]] = fadd double [[V0]], 1.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = call double @llvm.sqrt.f64(double [[V1]])
; CHECK-NEXT: %r.t = fdiv double %x0.t, [[V2]]
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V4:%[0-9]+]] = insertvalue { double, double } [[V3]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V4]]
; CHECK-NEXT: }
