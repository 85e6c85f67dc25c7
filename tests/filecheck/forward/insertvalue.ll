; forward mode, insertvalue: the result's tangent is the aggregate's tangent with the field's tangent inserted
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(double %x, double %y) {
entry:
  %s0 = insertvalue { double, double } undef, double %x, 0
  %s1 = insertvalue { double, double } %s0, double %y, 1
  %a = extractvalue { double, double } %s1, 0
  %b = extractvalue { double, double } %s1, 1
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, double %y, double %y.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %s0 = insertvalue { double, double } undef, double %x, 0
; CHECK-NEXT: %s0.t = insertvalue { double, double } zeroinitializer, double %x.t, 0
; CHECK-NEXT: %s1 = insertvalue { double, double } %s0, double %y, 1
; CHECK-NEXT: %s1.t = insertvalue { double, double } %s0.t, double %y.t, 1
; CHECK-NEXT: %a = extractvalue { double, double } %s1, 0
; CHECK-NEXT: %a.t = extractvalue { double, double } %s1.t, 0
; CHECK-NEXT: %b = extractvalue { double, double } %s1, 1
; CHECK-NEXT: %b.t = extractvalue { double, double } %s1.t, 1
; CHECK-NEXT: %m = fmul double %a, %b
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %a.t, %b
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %b.t, %a
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
