; reverse mode, memset of active memory: the overwritten shadow is zeroed (its adjoint is consumed)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(ptr %p) {
entry:
  %a = load double, ptr %p, align 8
  call void @llvm.memset.p0.i64(ptr %p, i8 0, i64 8, i1 false)
  %m = fmul double %a, %a
  ret double %m
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; CHECK-LABEL: define void @diffe_f(ptr %p, ptr %p.shadow, double %dret)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %a = load double, ptr %p, align 8
; CHECK-NEXT: store i64 0, ptr %p, align 1
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[V2:%[0-9]+]] = fadd reassoc double [[V0]], [[V1]]
; CHECK-NEXT: store i64 0, ptr %p.shadow, align 1
; CHECK-NEXT: [[V3:%[0-9]+]] = fadd reassoc double [[V2]], 0.000000e+00
; CHECK-NEXT: store double [[V3]], ptr %p.shadow, align 8
; CHECK-NEXT: ret void
; CHECK-NEXT: }
