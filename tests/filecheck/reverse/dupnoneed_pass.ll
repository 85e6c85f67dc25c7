; the dupnoneed pass: with out dupnoneed, the gradient need not store the primal result into out (its caller never reads it), so the store and the product feeding it go; without the pass they stay
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup,dupnoneed},dupnoneed{fn=f,acts=dup,dupnoneed},sroa,instcombine,simplifycfg' | filecheck %s
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup,dupnoneed},sroa,instcombine,simplifycfg' | filecheck %s --check-prefix=KEPT

define void @f(ptr noalias %x, ptr noalias %out) {
entry:
  %v = load double, ptr %x, align 8
  %e = call double @llvm.exp.f64(double %v)
  %m = fmul double %e, %v
  store double %m, ptr %out, align 8
  ret void
}

declare double @llvm.exp.f64(double)

; CHECK-LABEL: define void @diffe_f(ptr %x, ptr %x.shadow, ptr %out, ptr %out.shadow)
; CHECK-NOT: store double %m, ptr %out
; CHECK: ret void
; KEPT-LABEL: define void @diffe_f(ptr %x, ptr %x.shadow, ptr %out, ptr %out.shadow)
; KEPT: store double %m, ptr %out
; KEPT: ret void
