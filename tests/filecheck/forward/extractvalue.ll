; forward mode, extractvalue: the tangent is the same field of the aggregate's tangent
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f({ double, double } %s) {
entry:
  %a = extractvalue { double, double } %s, 0
  %b = extractvalue { double, double } %s, 1
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f({ double, double } %s, { double, double } %s.t)
; CHECK-NEXT: entry:
; CHECK-NEXT: %a = extractvalue { double, double } %s, 0
; CHECK-NEXT: %a.t = extractvalue { double, double } %s.t, 0
; CHECK-NEXT: %b = extractvalue { double, double } %s, 1
; CHECK-NEXT: %b.t = extractvalue { double, double } %s.t, 1
; CHECK-NEXT: %m = fmul double %a, %b
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %a.t, %b
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %b.t, %a
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
