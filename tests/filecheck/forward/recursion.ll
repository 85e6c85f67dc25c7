; forward mode of a recursive function with an integer argument: the derivative calls itself
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,const}' | filecheck %s

define double @f(double %x, i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more

more:
  %m = sub i32 %n, 1
  %r = call double @f(double %x, i32 %m)
  %p = fmul double %r, %x
  br label %done

done:
  %v = phi double [ 1.000000e+00, %entry ], [ %p, %more ]
  ret double %v
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, i32 %n)
; CHECK: [[C:%[0-9]+]] = call { double, double } @fwddiffe_f(double %x, double %x.t, i32 %m)
; CHECK: %p.t = fadd double
