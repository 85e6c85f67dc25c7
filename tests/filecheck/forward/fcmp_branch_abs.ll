; forward mode through a branch on fcmp (|x| by control flow): the tangent phi follows the value phi
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(double %x) {
entry:
  %c = fcmp olt double %x, 0.000000e+00
  br i1 %c, label %neg, label %done

neg:
  %n = fneg double %x
  br label %done

done:
  %r = phi double [ %n, %neg ], [ %x, %entry ]
  ret double %r
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %c = fcmp olt double %x, 0.000000e+00
; CHECK-NEXT: br i1 %c, label %neg, label %done
; CHECK-EMPTY:
; CHECK-NEXT: neg:
; CHECK-NEXT: %n = fneg double %x
; CHECK-NEXT: %n.t = fneg double %x.t
; CHECK-NEXT: br label %done
; CHECK-EMPTY:
; CHECK-NEXT: done:
; CHECK-NEXT: %r = phi double [ %n, %neg ], [ %x, %entry ]
; CHECK-NEXT: %r.t = phi double [ %n.t, %neg ], [ %x.t, %entry ]
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
