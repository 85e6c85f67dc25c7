; reverse mode, the shape of an unoptimized gradient: adjoint slots in the alloca block, the forward sweep, rev.<block>, rev.return
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=out,ret=active},dupnoneed{fn=f,acts=out,ret=active}' | filecheck %s

define double @f(double %x) {
entry:
  %y = fmul double %x, %x
  ret double %y
}

; CHECK-LABEL: define double @f(double %x) {
; CHECK-LABEL: define double @diffe_f(double %x, double %dret) {
; CHECK-NEXT: alloca:
; CHECK-DAG:   %y.d = alloca double
; CHECK-DAG:   %x.d = alloca double
; CHECK:   br label %entry
; CHECK-EMPTY:
; CHECK-NEXT: entry:
; CHECK-NEXT:   %y = fmul double %x, %x
; CHECK-NEXT:   br label %rev.entry
; CHECK-EMPTY:
; CHECK-NEXT: rev.entry:
; CHECK:   fadd reassoc double %{{.*}}, %dret
; CHECK:   %y.d.1 = load double, ptr %y.d
; CHECK:   fmul double %y.d.1, %x
; CHECK:   fmul double %y.d.1, %x
; CHECK:   br label %rev.return
; CHECK-EMPTY:
; CHECK-NEXT: rev.return:
; CHECK-NEXT:   [[D:%x.d.*]] = load double, ptr %x.d
; CHECK:   ret double [[D]]
; CHECK-NEXT: }
