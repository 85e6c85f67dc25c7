; checkpoint-loops: a loop marked in its metadata becomes a step function (one iteration, the
; header phis and the values leaving the loop in a %state record, 0 to go on, k to leave by exit k)
; and a loop function carrying the plan (with a bound on the steps from the trip count); the
; function stores the start values and calls it; the %state record, an alloca only the call reaches,
; is a noalias parameter
; RUN: enzyme-py opt %s -p 'checkpoint-loops{fn=decay,time=0}' | filecheck %s

define double @decay(double %k, double %x0, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %x = phi double [ %x0, %entry ], [ %x.next, %loop ]
  %a = fmul double %k, %x
  %x.next = fsub double %x, %a
  %i.next = add i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit, !llvm.loop !0

exit:
  %y = phi double [ %x.next, %loop ]
  ret double %y
}

!0 = distinct !{!0, !1}
!1 = !{!"enzyme_py.checkpoint", i64 4}

; CHECK-LABEL: define double @decay(double %k, double %x0, i64 %n) {
; CHECK-NEXT: entry:
; CHECK-NEXT: %decay.loop.1.state = alloca { i64, double, double, i32 }
; CHECK: %tc = add i64 %3, 1
; CHECK-NEXT: %4 = getelementptr inbounds { i64, double, double, i32 }, ptr %decay.loop.1.state, i32 0, i32 0
; CHECK-NEXT: store i64 0, ptr %4
; CHECK-NEXT: %5 = getelementptr inbounds { i64, double, double, i32 }, ptr %decay.loop.1.state, i32 0, i32 1
; CHECK-NEXT: store double %x0, ptr %5
; CHECK-NEXT: call void @decay.loop.1(double %k, i64 %n, i64 %tc, ptr %decay.loop.1.state)
; CHECK-NEXT: br label %exit
; CHECK: exit:
; CHECK-NEXT: %6 = getelementptr inbounds { i64, double, double, i32 }, ptr %decay.loop.1.state, i32 0, i32 2
; CHECK-NEXT: %y = load double, ptr %6
; CHECK-NEXT: ret double %y

; CHECK-LABEL: define internal i32 @decay.loop.1.step(double %k, i64 %n, i64 %tc, ptr noalias %state) {
; CHECK: %i = load i64, ptr %0
; CHECK: %x = load double, ptr %1
; CHECK-NEXT: br label %loop
; CHECK: loop:
; CHECK-NEXT: %a = fmul double %k, %x
; CHECK-NEXT: %x.next = fsub double %x, %a
; CHECK-NEXT: %i.next = add i64 %i, 1
; CHECK-NEXT: %more = icmp slt i64 %i.next, %n
; CHECK-NEXT: br i1 %more, label %step.next, label %step.exit.1{{$}}
; CHECK: step.next:
; CHECK: store i64 %i.next, ptr %2
; CHECK: store double %x.next, ptr %3
; CHECK-NEXT: br label %step.done
; CHECK: step.exit.1:
; CHECK: store double %x.next, ptr %4
; CHECK: store i32 1, ptr %5
; CHECK-NEXT: br label %step.done
; CHECK: step.done:
; CHECK-NEXT: %code = phi i32 [ 0, %step.next ], [ 1, %step.exit.1 ]
; CHECK-NEXT: ret i32 %code

; CHECK-LABEL: define internal void @decay.loop.1(double %k, i64 %n, i64 %tc, ptr noalias %state) "enzyme_py-checkpoint"="step=decay.loop.1.step state=32 regions=- snapshots=4 budget=0 trips=2" {
; CHECK: %code = call i32 @decay.loop.1.step(double %k, i64 %n, i64 %tc, ptr %state)
; CHECK-NEXT: %again = icmp eq i32 %code, 0
; CHECK-NEXT: br i1 %again, label %loop, label %done
