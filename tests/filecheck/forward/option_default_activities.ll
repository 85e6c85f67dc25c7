; forward without acts=: Enzyme's forward defaults (integers const, floats and pointers dup)
; RUN: enzyme-py opt %s -p 'forward{fn=f}' | filecheck %s

define double @f(double %x, ptr %p, i64 %n) {
entry:
  %v = load double, ptr %p, align 8
  %m = fmul double %x, %v
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(double %x, double %x.t, ptr %p, ptr %p.shadow, i64 %n)
; CHECK-NEXT: entry:
; CHECK-NEXT: %v = load double, ptr %p, align 8
; CHECK-NEXT: %v.t = load double, ptr %p.shadow, align 8
; CHECK-NEXT: %m = fmul double %x, %v
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %x.t, %v
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %v.t, %x
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
