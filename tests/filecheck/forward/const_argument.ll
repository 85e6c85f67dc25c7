; forward mode: a const argument gets no tangent parameter; its partial contributes nothing
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,const}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %m = fmul double %x, %y
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, double %y)
; CHECK-NEXT: entry:
; CHECK-NEXT: %m = fmul double %x, %y
; CHECK-NEXT: %m.t = fmul double %x.t, %y
; CHECK-NEXT: [[V0:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V1:%[0-9]+]] = insertvalue { double, double } [[V0]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V1]]
; CHECK-NEXT: }
