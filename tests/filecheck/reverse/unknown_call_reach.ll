; reverse mode, loads before a call of a function the module does not define (@opaque): it may write globals, arguments that are not noalias and what escaped (%t, whose address @f stores in @keep), so the loads of %y and %t are cached; it cannot reach the noalias argument %x or the local %u it is never handed, so their loads are re-read by the reverse sweep
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=dup,dup,const,ret=active}' | filecheck %s

@keep = global ptr null

declare void @opaque()

define double @f(ptr noalias %x, ptr %y, i64 %n) {
entry:
  %t = alloca [4 x double]
  %u = alloca [4 x double]
  store ptr %t, ptr @keep
  br label %fill
fill:
  %j = phi i64 [ 0, %entry ], [ %j.next, %fill ]
  %pxj = getelementptr double, ptr %x, i64 %j
  %xj = load double, ptr %pxj
  %ptj = getelementptr double, ptr %t, i64 %j
  store double %xj, ptr %ptj
  %puj = getelementptr double, ptr %u, i64 %j
  store double %xj, ptr %puj
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp ult i64 %j.next, 4
  br i1 %cj, label %fill, label %loop.pre
loop.pre:
  br label %loop
loop:
  %i = phi i64 [ 0, %loop.pre ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %loop.pre ], [ %s.next, %loop ]
  %k = and i64 %i, 3
  %px = getelementptr double, ptr %x, i64 %i
  %xv = load double, ptr %px
  %py = getelementptr double, ptr %y, i64 %i
  %yv = load double, ptr %py
  %pt = getelementptr double, ptr %t, i64 %k
  %tv = load double, ptr %pt
  %pu = getelementptr double, ptr %u, i64 %k
  %uv = load double, ptr %pu
  %xy = fmul double %xv, %yv
  %tu = fmul double %tv, %uv
  %p = fmul double %xy, %tu
  %s.next = fadd double %s, %p
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %done
done:
  call void @opaque()
  ret double %s.next
}

; CHECK-LABEL: define void @diffe_f(
; CHECK: loop:
; CHECK: %xv = load double, ptr %px, align 8
; CHECK-NOT: store double %xv,
; CHECK: %yv = load double, ptr %py, align 8
; CHECK-NEXT: [[Y:%[0-9]+]] = getelementptr inbounds double, ptr %yv.cache, i64 %iv.1
; CHECK-NEXT: store double %yv, ptr [[Y]]
; CHECK: %tv = load double, ptr %pt, align 8
; CHECK-NEXT: [[T:%[0-9]+]] = getelementptr inbounds double, ptr %tv.cache, i64 %iv.1
; CHECK-NEXT: store double %tv, ptr [[T]]
; CHECK: %uv = load double, ptr %pu, align 8
; CHECK-NOT: store double %uv,
; CHECK: done:
; CHECK-NEXT: %s.next.lcssa = phi double [ %s.next, %loop ]
; CHECK-NEXT: call void @opaque()
; CHECK: rev.loop:
; CHECK: %uv.1 = load double, ptr %pu.1, align 8
; CHECK: %tv.1 = load double, ptr {{%[0-9]+}}, align 8, !alias.scope
; CHECK: %yv.1 = load double, ptr {{%[0-9]+}}, align 8, !alias.scope
; CHECK: %px.1 = getelementptr double, ptr %x, i64
; CHECK-NEXT: %xv.1 = load double, ptr %px.1, align 8
