; reverse mode, two values of one loop cached on the tape (both loads are overwritten later): the arrays share the loop's frame, and their size (trip count x 8 bytes, rounded up to 16) is computed once for both; the second array starts at that size, the frame is twice it
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,dup,const,ret=active}' | filecheck %s

define double @f(ptr noalias %x, ptr noalias %y, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc2, %loop ]
  %px = getelementptr double, ptr %x, i64 %i
  %py = getelementptr double, ptr %y, i64 %i
  %a = load double, ptr %px
  %b = load double, ptr %py
  %ab = fmul double %a, %b
  %acc2 = fadd double %acc, %ab
  store double 0.0, ptr %px
  store double 0.0, ptr %py
  %i.next = add nsw i64 %i, 1
  %more = icmp slt i64 %i.next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret double %acc2
}

; CHECK-LABEL: define void @diffe_f(
; CHECK: [[SIZE:%[0-9]+]] = and i64 %{{[0-9]+}}, -16
; CHECK-NOT: and i64 {{.*}}, -16
; CHECK: %tape.end = add i64 [[SIZE]], [[SIZE]]
; CHECK-NEXT: %tape = call ptr @enzyme_py.tape_alloc(i64 %tape.end)
; CHECK-NEXT: %a.cache = getelementptr inbounds i8, ptr %tape, i64 [[SIZE]]
