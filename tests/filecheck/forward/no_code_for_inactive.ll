; forward mode builds nothing for inactive values: an inactive factor's partial contributes no product and no sum
; RUN: enzyme-py opt %s -p 'prepare{fn=f},forward{fn=f,acts=dup,const}' | filecheck %s

declare double @llvm.exp.f64(double)

define double @f(double %x, double %c) {
entry:
  %k = fmul double %c, 2.0
  %e = call double @llvm.exp.f64(double %k)
  %y = fmul double %x, %e
  ret double %y
}

; CHECK-LABEL: define {{.*}} @fwddiffe_f(
; CHECK: %y = fmul double %x, %e
; a partial whose operand is inactive contributes nothing: one product, no sum
; CHECK-NEXT: %y.t = fmul double %x.t, %e
; CHECK-NOT: fadd
