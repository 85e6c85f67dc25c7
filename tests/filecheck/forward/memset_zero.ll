; forward mode, memset of active memory: the shadow is set alongside (zero tangents)
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup}' | filecheck %s

define double @f(ptr %p) {
entry:
  %a = load double, ptr %p, align 8
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 8, i1 false)
  %m = fmul double %a, %a
  ret double %m
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; CHECK-LABEL: define { double, double } @fwddiffe_f(ptr %p, ptr %p.shadow)
; CHECK-NEXT: entry:
; CHECK-NEXT: %a = load double, ptr %p, align 8
; CHECK-NEXT: %a.t = load double, ptr %p.shadow, align 8
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 8, i1 false)
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr %p.shadow, i8 0, i64 8, i1 false)
; CHECK-NEXT: %m = fmul double %a, %a
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %a.t, %a
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %a.t, %a
; CHECK-NEXT: %m.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %m, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %m.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
