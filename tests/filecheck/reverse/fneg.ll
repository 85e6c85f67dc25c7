; reverse mode, fneg: the operand's adjoint is the negated seed
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(double %x) {
entry:
  %n = fneg double %x
  ret double %n
}

; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = fneg double %dret
; CHECK-NEXT: ret double [[V0]]
; CHECK-NEXT: }
