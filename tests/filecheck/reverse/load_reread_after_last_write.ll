; reverse mode, loads of a buffer no write follows: @f writes %t in a first loop and only reads it in the second, so the reverse sweep re-reads %t (its free waits for the reverse sweep) and needs no tape; @g writes %t again after the reads, so they are cached
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,const,ret=active},dupnoneed{fn=f,acts=dup,const,ret=active}' | filecheck %s
; RUN: enzyme-py opt %s -p 'prepare{fn=g},reverse{fn=g,acts=dup,const,ret=active},dupnoneed{fn=g,acts=dup,const,ret=active}' | filecheck %s --check-prefix=G

define double @f(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %t = call ptr @malloc(i64 %bytes)
  br label %w
w:
  %i = phi i64 [ 0, %entry ], [ %i.next, %w ]
  %px = getelementptr double, ptr %x, i64 %i
  %xv = load double, ptr %px
  %e = fmul double %xv, 3.0
  %pt = getelementptr double, ptr %t, i64 %i
  store double %e, ptr %pt
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %w, label %r.pre
r.pre:
  br label %r
r:
  %k = phi i64 [ 0, %r.pre ], [ %k.next, %r ]
  %s = phi double [ 0.0, %r.pre ], [ %s2, %r ]
  %pt2 = getelementptr double, ptr %t, i64 %k
  %tv = load double, ptr %pt2
  %sq = fmul double %tv, %tv
  %s2 = fadd double %s, %sq
  %k.next = add nsw i64 %k, 1
  %ck = icmp slt i64 %k.next, %n
  br i1 %ck, label %r, label %done
done:
  call void @free(ptr %t)
  ret double %s2
}

define double @g(ptr %x, i64 %n) {
entry:
  %bytes = shl i64 %n, 3
  %t = call ptr @malloc(i64 %bytes)
  br label %w
w:
  %i = phi i64 [ 0, %entry ], [ %i.next, %w ]
  %px = getelementptr double, ptr %x, i64 %i
  %xv = load double, ptr %px
  %e = fmul double %xv, 3.0
  %pt = getelementptr double, ptr %t, i64 %i
  store double %e, ptr %pt
  %i.next = add nsw i64 %i, 1
  %ci = icmp slt i64 %i.next, %n
  br i1 %ci, label %w, label %r.pre
r.pre:
  br label %r
r:
  %k = phi i64 [ 0, %r.pre ], [ %k.next, %r ]
  %s = phi double [ 0.0, %r.pre ], [ %s2, %r ]
  %pt2 = getelementptr double, ptr %t, i64 %k
  %tv = load double, ptr %pt2
  %sq = fmul double %tv, %tv
  %s2 = fadd double %s, %sq
  %k.next = add nsw i64 %k, 1
  %ck = icmp slt i64 %k.next, %n
  br i1 %ck, label %r, label %z.pre
z.pre:
  br label %z
z:
  %q = phi i64 [ 0, %z.pre ], [ %q.next, %z ]
  %pz = getelementptr double, ptr %t, i64 %q
  store double 0.0, ptr %pz
  %q.next = add nsw i64 %q, 1
  %cq = icmp slt i64 %q.next, %n
  br i1 %cq, label %z, label %done
done:
  call void @free(ptr %t)
  ret double %s2
}

declare ptr @malloc(i64)
declare void @free(ptr)

; CHECK-LABEL: define void @diffe_f(ptr %x, ptr %x.shadow, i64 %n, double %dret)
; CHECK: entry:
; CHECK-NEXT: %bytes = shl i64 %n, 3
; CHECK-NEXT: %t = call ptr @malloc(i64 %bytes)
; CHECK-NEXT: %t.shadow = call ptr @calloc(i64 1, i64 %bytes)
; CHECK-NOT: @malloc
; CHECK: r:
; CHECK: %tv = load double, ptr %pt2, align 8
; CHECK-NOT: store double %tv
; CHECK: rev.r:
; CHECK: [[K:%[0-9]+]] = load i64, ptr %riv.1, align 8
; CHECK-NEXT: %pt2.1 = getelementptr double, ptr %t, i64 [[K]]
; CHECK-NEXT: %tv.1 = load double, ptr %pt2.1, align 8
; CHECK: rev.entry:
; CHECK-NEXT: call void @free(ptr %t.shadow)
; CHECK-NEXT: call void @free(ptr %t)

; G-LABEL: define void @diffe_g(ptr %x, ptr %x.shadow, i64 %n, double %dret)
; G: %tape = call ptr @enzyme_py.tape_alloc(
; G: r:
; G: %tv = load double, ptr %pt2, align 8
; G-NEXT: [[SLOT:%[0-9]+]] = getelementptr inbounds double, ptr %tape, i64 %iv.1
; G-NEXT: store double %tv, ptr [[SLOT]], align 8
; G: rev.r:
; G: getelementptr inbounds double, ptr %tape
; G-NEXT: %tv.1 = load double, ptr
