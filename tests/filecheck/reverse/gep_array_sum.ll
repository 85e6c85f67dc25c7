; reverse mode, getelementptr: shadows of p[i] are p.shadow[i]; each element's adjoint is added there
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(ptr %p) {
entry:
  %q = getelementptr inbounds double, ptr %p, i64 1
  %a = load double, ptr %p, align 8
  %b = load double, ptr %q, align 8
  %m = fmul double %a, %b
  ret double %m
}

; CHECK-LABEL: define void @diffe_f(ptr %p, ptr %p.shadow, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %q = getelementptr inbounds nuw i8, ptr %p, i64 8
; CHECK-NEXT: %b = load double, ptr %q, align 8
; CHECK-NEXT: %a = load double, ptr %p, align 8
; CHECK-NEXT: %q.shadow = getelementptr inbounds nuw i8, ptr %p.shadow, i64 8
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %b
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V2:%[0-9]+]] = load double, ptr %q.shadow, align 8
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V2]], [[V1]]
; CHECK-NEXT: store double [[V3]], ptr %q.shadow, align 8
; CHECK-NEXT: [[V4:%[0-9]+]] = load double, ptr %p.shadow, align 8
; CHECK-NEXT: [[V5:%[0-9]+]] = fadd reassoc double [[V4]], [[V0]]
; CHECK-NEXT: store double [[V5]], ptr %p.shadow, align 8
; CHECK-NEXT: ret void
; CHECK-NEXT: }
