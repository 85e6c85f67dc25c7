; reverse mode, a triangular nest (the inner trip count depends on the outer index): each entry of the inner loop reserves a segment of one tape stream
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,const,ret=active},dupnoneed{fn=f,acts=dup,const,ret=active}' | filecheck %s

define double @f(ptr %x, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %olatch ]
  %s = phi double [ 0.0, %entry ], [ %s2, %olatch ]
  %ci = icmp slt i64 %i, %n
  br i1 %ci, label %ipre, label %exit
ipre:
  br label %inner
inner:
  %j = phi i64 [ 0, %ipre ], [ %j.next, %inner ]
  %p = phi double [ 1.0, %ipre ], [ %p2, %inner ]
  %px = getelementptr double, ptr %x, i64 %j
  %v = load double, ptr %px
  %p2 = fmul double %p, %v
  %j.next = add nsw i64 %j, 1
  %cj = icmp sle i64 %j.next, %i
  br i1 %cj, label %inner, label %olatch
olatch:
  %sq = fmul double %p2, %p2
  %s2 = fadd double %s, %sq
  %i.next = add nsw i64 %i, 1
  br label %outer
exit:
  ret double %s
}

; CHECK-LABEL: define {{.*}} @diffe_f(
; CHECK: alloca:
; CHECK: %[[FIRST:[0-9]+]] = call ptr @enzyme_py.tape_alloc(i64 4096)
; CHECK-NEXT: store ptr %[[FIRST]], ptr %tape.stream
; CHECK: inner.preheader:
; CHECK: %tape.segment = call i64 @enzyme_py.reserve(ptr %tape.stream, ptr %tape.stream.cap, ptr %tape.stream.used, i64
; CHECK: inner:
; CHECK: %[[BASE:[0-9]+]] = load ptr, ptr %tape.stream
; CHECK-NEXT: getelementptr inbounds i8, ptr %[[BASE]], i64 %tape.segment
; CHECK: exit:
; CHECK: %tape.stream.1 = load ptr, ptr %tape.stream
; CHECK: rev.inner:
; CHECK: getelementptr inbounds i8, ptr %tape.stream.1, i64 %tape.segment.1
; CHECK: rev.entry:
; CHECK: call void @free(ptr %tape.stream.1)
