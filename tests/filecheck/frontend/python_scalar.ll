; the Python front end's IR of 3x^2 + 2x + 1 (locals in stack slots, one exit block): prepare makes it SSA; the gradient is 6x + 2
; RUN: enzyme-py opt %s -p 'prepare{fn=poly},reverse{fn=poly,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

; ModuleID = 'enzyme_py:poly'

define double @poly(double %x) {
entry:
  %retval = alloca double
  %x.1 = alloca double
  br label %body

body:
  store double %x, ptr %x.1
  %x.2 = load double, ptr %x.1
  %0 = fmul double 3.000000e+00, %x.2
  %x.3 = load double, ptr %x.1
  %1 = fmul double %0, %x.3
  %x.4 = load double, ptr %x.1
  %2 = fmul double 2.000000e+00, %x.4
  %3 = fadd double %1, %2
  %4 = fadd double %3, 1.000000e+00
  store double %4, ptr %retval
  br label %exit

exit:
  %5 = load double, ptr %retval
  ret double %5
}

; CHECK-LABEL: define double @diffe_poly(double %x, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: [[A:%[0-9]+]] = fmul double %dret, 2.000000e+00
; CHECK-NEXT: [[B:%[0-9]+]] = fmul double %x, 3.000000e+00
; CHECK-NEXT: [[C:%[0-9]+]] = fmul double %dret, [[B]]
; CHECK-NEXT: [[D:%[0-9]+]] = fadd reassoc double [[A]], [[C]]
; CHECK-NEXT: [[E:%[0-9]+]] = fmul double %dret, %x
; CHECK-NEXT: [[F:%[0-9]+]] = fmul double [[E]], 3.000000e+00
; CHECK-NEXT: [[G:%[0-9]+]] = fadd reassoc double [[D]], [[F]]
; CHECK-NEXT: ret double [[G]]
