; simplifycfg folds a branch on a constant; mergereturn leaves one return (what the reverse transform needs)
; RUN: enzyme-py opt %s -p 'simplifycfg,mergereturn' | filecheck %s

define double @f(double %x, i1 %c) {
entry:
  br i1 true, label %a, label %b

a:
  br i1 %c, label %r1, label %r2

b:
  ret double 0.000000e+00

r1:
  ret double %x

r2:
  %n = fneg double %x
  ret double %n
}

; CHECK-LABEL: define double @f(double %x, i1 %c)
; CHECK-NOT: label %b
; CHECK: ret double
; CHECK-NOT: ret double
