; reverse mode, bitcast between float types of one size: the adjoint is cast back
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(<2 x float> %v) {
entry:
  %b = bitcast <2 x float> %v to double
  ret double %b
}

; CHECK-LABEL: define <2 x float> @diffe_f(<2 x float> %v, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[V0:%[0-9]+]] = bitcast double %dret to <2 x float>
; CHECK-NEXT: ret <2 x float> [[V0]]
; CHECK-NEXT: }
