; reverse mode, llvm.powi: d(x^n) = n x^(n-1); the integer exponent is constant
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x) {
entry:
  %r = call double @llvm.powi.f64.i32(double %x, i32 3)
  ret double %r
}

declare double @llvm.powi.f64.i32(double, i32)

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x, %x
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double [[V0]], 3.000000e+00
; CHECK-NEXT: [[V2:%[0-9]+]] = fmul double %dret, [[V1]]
; CHECK-NEXT: ret double [[V2]]
; CHECK-NEXT: }
