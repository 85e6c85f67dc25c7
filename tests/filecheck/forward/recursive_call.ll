; forward mode of a recursive function: the recursive call calls the derivative under construction
; RUN: enzyme-py opt %s -p 'prepare{fn=pw},forward{fn=pw,acts=dup,const}' | filecheck %s

define double @pw(double %x, i32 %n) {
entry:
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more
more:
  %m = sub i32 %n, 1
  %r = call double @pw(double %x, i32 %m)
  %p = fmul double %r, %x
  br label %done
done:
  %v = phi double [ 1.0, %entry ], [ %p, %more ]
  ret double %v
}

; CHECK-LABEL: define { double, double } @fwddiffe_pw(double %x, double %x.t, i32 %n)
; CHECK: [[C:%.*]] = call { double, double } @fwddiffe_pw(double %x, double %x.t, i32 %m)
; CHECK-NEXT: %r = extractvalue { double, double } [[C]], 0
; CHECK-NEXT: %r.t = extractvalue { double, double } [[C]], 1
