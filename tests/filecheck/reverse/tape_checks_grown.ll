; tape-checks: every tape allocation is checked right after it (here the growth of a while loop's array at the top of its header), and each function has one exit, `tape.failed`, that calls enzyme_py.tape_failed (a message and abort()) with the bytes it could not get
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,dup,dup,const,const,const,ret=active},tape-checks' | filecheck %s

define double @f(ptr %a, ptr %x, ptr %t, i64 %n, i64 %d, double %lim) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %olatch ]
  %s = phi double [ 0.0, %entry ], [ %s.row, %olatch ]
  %go = fcmp olt double %s, %lim
  br i1 %go, label %w.pre, label %exit
w.pre:
  %row = mul i64 %i, %d
  br label %w
w:
  %j = phi i64 [ 0, %w.pre ], [ %j.next, %w ]
  %ij = add i64 %row, %j
  %px = getelementptr double, ptr %x, i64 %ij
  %xv = load double, ptr %px
  %pa = getelementptr double, ptr %a, i64 %j
  %av = load double, ptr %pa
  %u = fsub double %xv, %av
  %pt = getelementptr double, ptr %t, i64 %j
  store double %u, ptr %pt
  %j.next = add nsw i64 %j, 1
  %cj = icmp slt i64 %j.next, %d
  br i1 %cj, label %w, label %r.pre
r.pre:
  br label %r
r:
  %k = phi i64 [ 0, %r.pre ], [ %k.next, %r ]
  %s2 = phi double [ %s, %r.pre ], [ %s3, %r ]
  %pt2 = getelementptr double, ptr %t, i64 %k
  %tv = load double, ptr %pt2
  %sq = fmul double %tv, %tv
  %s3 = fadd double %s2, %sq
  %k.next = add nsw i64 %k, 1
  %ck = icmp slt i64 %k.next, %d
  br i1 %ck, label %r, label %olatch
olatch:
  %s.row = phi double [ %s3, %r ]
  %i.next = add nsw i64 %i, 1
  br label %outer
exit:
  ret double %s
}


; CHECK-LABEL: define {{.*}} @diffe_f(
; CHECK: outer:
; CHECK: [[GOT:%[0-9]+]] = call i64 @enzyme_py.tape_grow(ptr %tv.cache.ptr,
; CHECK-NEXT: [[FAILED:%[0-9]+]] = icmp ne i64 [[GOT]], 0
; CHECK-NEXT: br i1 [[FAILED]], label %tape.failed, label %outer.tape.ok, !prof [[RARE:![0-9]+]]
; CHECK: outer.tape.ok:
; CHECK: tape.failed:
; CHECK-NEXT: %tape.needed = phi i64 [ [[GOT]], %outer ]
; CHECK-NEXT: call void @enzyme_py.tape_failed(i64 %tape.needed)
; CHECK-NEXT: unreachable
; CHECK: define internal void @enzyme_py.tape_failed(i64 %bytes) noreturn cold noinline
; CHECK: call void @abort()
; CHECK: [[RARE]] = !{!"branch_weights", i32 1, i32 1048575}
