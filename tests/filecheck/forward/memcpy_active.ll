; forward mode, memcpy of active memory: the shadows are copied alongside the memory
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,dup}' | filecheck %s

define double @f(ptr %dst, ptr %src) {
entry:
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 16, i1 false)
  %a = load double, ptr %dst, align 8
  %q = getelementptr inbounds double, ptr %dst, i64 1
  %b = load double, ptr %q, align 8
  %m = fmul double %a, %b
  ret double %m
}

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; CHECK-LABEL: define { double, double } @fwddiffe_f(ptr %dst, ptr %dst.shadow, ptr %src, ptr %src.shadow)
; CHECK-NEXT: entry:
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 16, i1 false)
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %dst.shadow, ptr %src.shadow, i64 16, i1 false)
; CHECK-NEXT: %a = load double, ptr %dst, align 8
; CHECK-NEXT: %a.t = load double, ptr %dst.shadow, align 8
; CHECK-NEXT: %q = getelementptr inbounds double, ptr %dst, i64 1
; CHECK-NEXT: %q.shadow = getelementptr inbounds double, ptr %dst.shadow, i64 1
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
