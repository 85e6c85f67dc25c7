; checkpoint-loops: the loop writes through %v, a phi that chooses between two mallocs of one
; size (LLVM copies an allocation onto two paths); the phi is the base of one region, whose
; size is that malloc's
; RUN: enzyme-py opt %s -p 'checkpoint-loops{fn=relax,time=0}' | filecheck %s

define double @relax(i1 %c, i64 %n, i64 %steps) {
entry:
  %bytes = shl i64 %n, 3
  br i1 %c, label %left, label %right

left:
  %a = call ptr @malloc(i64 %bytes)
  br label %join

right:
  %b = call ptr @malloc(i64 %bytes)
  br label %join

join:
  %v = phi ptr [ %a, %left ], [ %b, %right ]
  store double 1.000000e+00, ptr %v
  br label %loop

loop:
  %t = phi i64 [ 0, %join ], [ %t.next, %loop ]
  %x = load double, ptr %v
  %y = fmul double %x, 5.000000e-01
  store double %y, ptr %v
  %t.next = add i64 %t, 1
  %more = icmp slt i64 %t.next, %steps
  br i1 %more, label %loop, label %exit, !llvm.loop !0

exit:
  %r = load double, ptr %v
  call void @free(ptr %v)
  ret double %r
}

declare ptr @malloc(i64)
declare void @free(ptr)

!0 = distinct !{!0, !1}
!1 = !{!"enzyme_py.checkpoint", i64 2}

; CHECK-LABEL: define double @relax(i1 %c, i64 %n, i64 %steps) {
; CHECK: call void @relax.loop.1(ptr %v, i64 %steps, i64 %bytes, i64 %tc, ptr %relax.loop.1.state)

; CHECK-LABEL: define internal void @relax.loop.1(ptr %v, i64 %steps, i64 %bytes, i64 %tc, ptr noalias %state) "enzyme_py-checkpoint"="step=relax.loop.1.step state=16 regions=0:2 snapshots=2 budget=0 trips=3" {
