; the Python front end's IR of 3x^2 + 2x + 1, forward mode after prepare
; RUN: enzyme-py opt %s -p 'prepare{fn=poly},forward{fn=poly,acts=dup}' | filecheck %s

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

; CHECK-LABEL: define { double, double } @fwddiffe_poly(double %x, double %x.t)
; CHECK: fmul double %x.t, 3.000000e+00
; CHECK: fmul double %x.t, 2.000000e+00
; CHECK: ret { double, double }
