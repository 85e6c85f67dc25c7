; forward mode, getelementptr: the shadow of p[i] is p.shadow[i]; each load reads its tangent there
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(ptr %p) {
entry:
  %q = getelementptr inbounds double, ptr %p, i64 1
  %a = load double, ptr %p, align 8
  %b = load double, ptr %q, align 8
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define { double, double } @fwddiffe_f(ptr %p, ptr %p.shadow)
; CHECK-NEXT: entry:
; CHECK-NEXT: %q = getelementptr inbounds double, ptr %p, i64 1
; CHECK-NEXT: %q.shadow = getelementptr inbounds double, ptr %p.shadow, i64 1
; CHECK-NEXT: %a = load double, ptr %p, align 8
; CHECK-NEXT: %a.t = load double, ptr %p.shadow, align 8
; CHECK-NEXT: %b = load double, ptr %q, align 8
; CHECK-NEXT: %b.t = load double, ptr %q.shadow, align 8
; CHECK-NEXT: %m = fmul double %a, %b
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %a.t, %b
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %b.t, %a
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
