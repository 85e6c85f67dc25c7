; reverse mode, a load the inner loop repeats unchanged (its address and memory do not change there, but the outer loop rewrites it): cached once per outer iteration (an array of the outer trip count, not of the nest) and fetched once where the reversed inner loop is entered; its adjoints are summed in a slot (reset on the way in) and added to t's shadow once the reversed inner loop is done; x and y are never written (noalias), so their loads are re-read, not cached
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,dup,dup,const,const,ret=active},dupnoneed{fn=f,acts=dup,dup,dup,const,const,ret=active}' | filecheck %s

define double @f(ptr noalias %x, ptr noalias %y, ptr noalias %t, i64 %n, i64 %m) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %olatch ]
  %s = phi double [ 0.0, %entry ], [ %s.in, %olatch ]
  %go = icmp slt i64 %i, %n
  br i1 %go, label %body, label %exit
body:
  %px = getelementptr double, ptr %x, i64 %i
  %xv = load double, ptr %px
  %sq = fmul double %xv, %xv
  store double %sq, ptr %t
  br label %inner
inner:
  %j = phi i64 [ 0, %body ], [ %j.next, %inner ]
  %s2 = phi double [ %s, %body ], [ %s3, %inner ]
  %tv = load double, ptr %t
  %py = getelementptr double, ptr %y, i64 %j
  %yv = load double, ptr %py
  %p = fmul double %tv, %yv
  %s3 = fadd double %s2, %p
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %m
  br i1 %cj, label %inner, label %olatch
olatch:
  %s.in = phi double [ %s3, %inner ]
  %i.next = add nsw i64 %i, 1
  br label %outer
exit:
  ret double %s
}

; CHECK-LABEL: define void @diffe_f(
; CHECK: entry:
; CHECK: %tc = add i64
; CHECK-NOT: %tape.bytes.1
; CHECK: %tape.bytes = call i64 @enzyme_py.bytes_mul(i64 %tc, i64 8)
; CHECK: %tape = call ptr @enzyme_py.tape_alloc(
; CHECK-NOT: @malloc
; CHECK: inner:
; CHECK: %tv = load double, ptr %t, align 8
; CHECK-NEXT: [[SLOT:%[0-9]+]] = getelementptr inbounds double, ptr %tape, i64 %iv
; CHECK-NEXT: store double %tv, ptr [[SLOT]], align 8
; CHECK-NOT: store double %yv
; CHECK: rev.inner:
; CHECK: %tv.1 = load double, ptr %tv.fetched
; CHECK: [[SUM:%[0-9]+]] = load double, ptr %t.shadow.sum, align 8
; CHECK-NEXT: [[NEW:%[0-9]+]] = fadd reassoc double [[SUM]], %tv.d.1
; CHECK-NEXT: store double [[NEW]], ptr %t.shadow.sum, align 8
; CHECK: rev.body:
; CHECK-NEXT: [[OLD:%[0-9]+]] = load double, ptr %t.shadow
; CHECK-NEXT: [[ADD:%[0-9]+]] = load double, ptr %t.shadow.sum
; CHECK-NEXT: [[TOT:%[0-9]+]] = fadd reassoc double [[OLD]], [[ADD]]
; CHECK-NEXT: store double [[TOT]], ptr %t.shadow
; CHECK-NEXT: load double, ptr %t.shadow, align 8
; CHECK-NEXT: store double 0.000000e+00, ptr %t.shadow, align 8
; CHECK: rev.olatch.to.inner:
; CHECK: store i64 %iv.last.{{[0-9]+}}, ptr %riv.1
; CHECK-NEXT: [[OUTER:%[0-9]+]] = load i64, ptr %riv, align 8
; CHECK-NEXT: [[AT:%[0-9]+]] = getelementptr inbounds double, ptr %tape, i64 [[OUTER]]
; CHECK-NEXT: %tv.2 = load double, ptr [[AT]], align 8
; CHECK-NEXT: store double %tv.2, ptr %tv.fetched
; CHECK-NEXT: store double -0.000000e+00, ptr %t.shadow.sum
; CHECK-NEXT: br label %rev.inner
