; reverse mode through a branch: the join's way in is the branch's test (`select %c`, recomputed in the reverse sweep, no tape); the reverse sweep switches on it and reads the value cached on the taken side
; RUN: enzyme-py opt %s -p 'prepare{fn=g},reverse{fn=g,acts=dup,out,const,ret=const},dupnoneed{fn=g,acts=dup,out,const,ret=const}' | filecheck %s

define void @g(ptr %x, double %s, i64 %n) {
entry:
  %c = icmp sgt i64 %n, 0
  br i1 %c, label %pos, label %neg
pos:
  %v = load double, ptr %x
  %m = fmul double %v, %s
  br label %join
neg:
  %w = load double, ptr %x
  %m2 = fadd double %w, %s
  br label %join
join:
  %r = phi double [ %m, %pos ], [ %m2, %neg ]
  store double %r, ptr %x
  ret void
}

; CHECK-LABEL: define double @diffe_g(ptr %x, ptr %x.shadow, double %s, i64 %n) {
; CHECK-NEXT: alloca:
; CHECK-DAG: %r.d = alloca double
; CHECK-DAG: %s.d = alloca double
; CHECK-DAG: %v.cache = alloca double
; CHECK: br label %entry
; CHECK: entry:
; CHECK: br i1 %c, label %pos, label %neg
; CHECK: join:
; CHECK-NEXT: %r = phi double [ %m, %pos ], [ %m2, %neg ]
; CHECK-NEXT: %came.from = select i1 %c, i32 0, i32 1
; CHECK: br label %rev.join
; CHECK: rev.join:
; the store to active memory consumes its shadow: read, then zero
; CHECK: [[SH:%.*]] = load double, ptr %x.shadow
; CHECK-NEXT: store double 0.000000e+00, ptr %x.shadow
; CHECK: switch i32 %came.from, label %rev.join.to.pos [
; CHECK-NEXT: i32 1, label %rev.join.to.neg
; CHECK: rev.pos:
; CHECK: load double, ptr %v.cache
; CHECK: br label %rev.entry
; CHECK: rev.neg:
; CHECK: br label %rev.entry
; CHECK: rev.entry:
; CHECK-NEXT: br label %rev.return
; CHECK: rev.return:
; CHECK: [[SD:%s.d.*]] = load double, ptr %s.d
; CHECK: ret double [[SD]]
; CHECK: rev.join.to.pos:
; CHECK: br label %rev.pos
; CHECK: rev.join.to.neg:
; CHECK: br label %rev.neg
