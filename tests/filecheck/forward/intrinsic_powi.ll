; forward mode, llvm.powi: the tangent is the sum of partial derivative times operand tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(double %x) {
entry:
  %r = call double @llvm.powi.f64.i32(double %x, i32 3)
  ret double %r
}

declare double @llvm.powi.f64.i32(double, i32)

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %r = call double @llvm.powi.f64.i32(double %x, i32 3)
; CHECK-NEXT: [[V0:%[0-9]+]] = call double @llvm.powi.f64.i32(double %x, i32 2)
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double 3.000000e+00, [[V0]]
; CHECK-NEXT: %r.t = fmul double %x.t, [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
