; reverse mode, memcpy of active memory: the adjoint moves back from the destination's shadow to the source's (element type from the loads), and the destination's shadow is zeroed
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup,dup},sroa,instcombine,simplifycfg' | filecheck %s

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

; CHECK-LABEL: define void @diffe_f(ptr %dst, ptr %dst.shadow, ptr %src, ptr %src.shadow, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr noundef nonnull align 1 dereferenceable(16) %dst, ptr noundef nonnull align 1 dereferenceable(16) %src, i64 16, i1 false)
; CHECK-NEXT: %q = getelementptr inbounds nuw i8, ptr %dst, i64 8
; CHECK-NEXT: %b = load double, ptr %q, align 8
; CHECK-NEXT: %q.shadow = getelementptr inbounds nuw i8, ptr %dst.shadow, i64 8
; CHECK-NEXT: %a = load double, ptr %dst, align 8
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %b
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V2:%[0-9]+]] = load double, ptr %q.shadow, align 8
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V2]], [[V1]]
; CHECK-NEXT: store double [[V3]], ptr %q.shadow, align 8
; CHECK-NEXT: [[V4:%[0-9]+]] = load double, ptr %dst.shadow, align 8
; CHECK-NEXT: [[V5:%[0-9]+]] = fadd reassoc double [[V4]], [[V0]]
; CHECK-NEXT: store double [[V5]], ptr %dst.shadow, align 8
; CHECK-NEXT: call void @enzyme_py.copy_adjoint.f64(ptr nonnull %dst.shadow, ptr %src.shadow, i64 16)
; CHECK-NEXT: ret void
; CHECK-NEXT: }
