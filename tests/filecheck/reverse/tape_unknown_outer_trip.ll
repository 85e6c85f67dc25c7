; reverse mode, an outer loop of unknown trip count (a while loop): the tape grows by rows of the inner nest (enzyme_py.tape_grow, from empty), never allocated inside the loop
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,dup,dup,const,const,const,ret=active},dupnoneed{fn=f,acts=dup,dup,dup,const,const,const,ret=active}' | filecheck %s

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
; CHECK: entry:
; CHECK: %tape.bytes = call i64 @enzyme_py.bytes_mul(i64 %tc, i64 8)
; CHECK: store i64 0, ptr %tv.cache.cap
; CHECK: store ptr null, ptr %tv.cache.ptr
; CHECK: outer:
; CHECK: call i64 @enzyme_py.tape_grow(ptr %tv.cache.ptr, ptr %tv.cache.cap, i64 %iv, i64 %tape.bytes)
; CHECK-NOT: @malloc
