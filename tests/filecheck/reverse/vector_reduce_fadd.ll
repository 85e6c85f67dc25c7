; reverse mode, llvm.vector.reduce.fadd: every lane gets the seed
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(<4 x double> %v) {
entry:
  %r = call double @llvm.vector.reduce.fadd.v4f64(double 0.000000e+00, <4 x double> %v)
  ret double %r
}

declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)

; CHECK-LABEL: define <4 x double> @diffe_f(<4 x double> %v, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = insertelement <4 x double> poison, double %dret, i64 0
; CHECK-NEXT: [[V1:%[0-9]+]] = shufflevector <4 x double> [[V0]], <4 x double> poison, <4 x i32> zeroinitializer
; CHECK-NEXT: ret <4 x double> [[V1]]
; CHECK-NEXT: }
