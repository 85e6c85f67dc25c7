; forward mode, llvm.vector.reduce.fadd: the tangent is the reduction of the lanes' tangents
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(<4 x double> %v) {
entry:
  %r = call double @llvm.vector.reduce.fadd.v4f64(double 0.000000e+00, <4 x double> %v)
  ret double %r
}

declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)

; CHECK-LABEL: define { double, double } @fwddiffe_f(<4 x double> %v, <4 x double> %v.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.vector.reduce.fadd.v4f64(double 0.000000e+00, <4 x double> %v)
; CHECK-NEXT: %r.t = call double @llvm.vector.reduce.fadd.v4f64(double -0.000000e+00, <4 x double> %v.t)
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
