; checkpoint-loops: one parameter per block of memory. The GEP that GVN leaves before the loop
; (%a.1, one element into %a) is computed again inside the step from %a's parameter, and %a,
; the region base, is passed once; the two mallocs and the noalias argument, which the
; function never lets out, become noalias parameters; the global does not
; RUN: enzyme-py opt %s -p 'checkpoint-loops{fn=relax,time=0}' | filecheck %s

@scale = global double 5.000000e-01

define double @relax(ptr noalias %x, i64 %steps) {
entry:
  %a = call ptr @malloc(i64 64)
  %b = call ptr @malloc(i64 64)
  %x0 = load double, ptr %x
  store double %x0, ptr %a
  %a.1 = getelementptr inbounds i8, ptr %a, i64 8
  br label %loop

loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]
  %v = load double, ptr %a.1
  %s = load double, ptr @scale
  %w = fmul double %v, %s
  %u = load double, ptr %a
  %z = fadd double %w, %u
  store double %z, ptr %b
  %y = load double, ptr %x
  %zz = fadd double %z, %y
  store double %zz, ptr %a.1
  store double %z, ptr @scale
  %t.next = add i64 %t, 1
  %more = icmp slt i64 %t.next, %steps
  br i1 %more, label %loop, label %exit, !llvm.loop !0

exit:
  %r = load double, ptr %a.1
  call void @free(ptr %a)
  call void @free(ptr %b)
  ret double %r
}

declare ptr @malloc(i64)
declare void @free(ptr)

!0 = distinct !{!0, !1}
!1 = !{!"enzyme_py.checkpoint", i64 2}

; CHECK-LABEL: define double @relax(ptr noalias %x, i64 %steps) {
; CHECK: call void @relax.loop.1(ptr %a, ptr %b, ptr %x, i64 %steps, i64 64, i64 64, ptr @scale, i64 8, i64 %tc, ptr %relax.loop.1.state)
; CHECK: exit:
; CHECK-NEXT: %r = load double, ptr %a.1

; CHECK-LABEL: define internal i32 @relax.loop.1.step(ptr noalias %a, ptr noalias %b, ptr noalias %x, i64 %steps, i64 %0, i64 %1, ptr %scale, i64 %2, i64 %tc, ptr noalias %state) {
; CHECK: %t = load i64, ptr %3
; CHECK-NEXT: %a.1 = getelementptr inbounds i8, ptr %a, i64 8
; CHECK-NEXT: br label %loop
; CHECK: loop:
; CHECK-NEXT: %v = load double, ptr %a.1
; CHECK: store double %zz, ptr %a.1

; CHECK-LABEL: define internal void @relax.loop.1(ptr noalias %a, ptr noalias %b, ptr noalias %x, i64 %steps, i64 %0, i64 %1, ptr %scale, i64 %2, i64 %tc, ptr noalias %state) "enzyme_py-checkpoint"="step=relax.loop.1.step state=16 regions=1:4,0:5,6:7 snapshots=2 budget=0 trips=8" {
