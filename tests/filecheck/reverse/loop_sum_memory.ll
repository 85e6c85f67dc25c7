; reverse mode of a loop over an array: sum of squares of x[i]; each iteration's adjoint is added into x.shadow[i], in reverse order
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup,const},sroa,instcombine,simplifycfg' | filecheck %s

define double @f(ptr %x, i64 %n) {
entry:
  br label %head

head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %head ]
  %s = phi double [ 0.000000e+00, %entry ], [ %s.next, %head ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %px, align 8
  %sq = fmul double %v, %v
  %s.next = fadd double %s, %sq
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %head, label %exit

exit:
  %r = phi double [ %s.next, %head ]
  ret double %r
}

; CHECK-LABEL: define void @diffe_f(ptr %x, ptr %x.shadow, i64 %n, double %dret)
; COM: nothing to tape: x[i] is reloaded in the reverse sweep (x is never overwritten)
; CHECK-NOT: @malloc
; COM: nor the last iteration: the trip count less one, from n
; CHECK: %iv.last = call i64 @llvm.usub.sat.i64(i64 %n, i64 1)
; CHECK: rev.head:
; CHECK-NEXT: %riv.0 = phi i64 [ %{{[0-9]+}}, %rev.head.to.head ], [ %iv.last, %head ]
; CHECK-NEXT: %px.1 = getelementptr inbounds double, ptr %x, i64 %riv.0
; CHECK-NEXT: %v.1 = load double, ptr %px.1, align 8
; CHECK-NEXT: [[A:%[0-9]+]] = fmul double %dret, %v.1
; CHECK-NEXT: [[B:%[0-9]+]] = fmul double %dret, %v.1
; CHECK-NEXT: [[D:%[0-9]+]] = fadd reassoc double [[A]], [[B]]
; CHECK-NEXT: %px.shadow.1 = getelementptr inbounds double, ptr %x.shadow, i64 %riv.0
; CHECK-NEXT: [[OLD:%[0-9]+]] = load double, ptr %px.shadow.1, align 8
; CHECK-NEXT: [[NEW:%[0-9]+]] = fadd reassoc double [[OLD]], [[D]]
; CHECK-NEXT: store double [[NEW]], ptr %px.shadow.1, align 8
; CHECK-NEXT: %riv.first = icmp eq i64 %riv.0, 0
; CHECK: rev.head.to.head:
; CHECK-NEXT: {{%[0-9]+}} = add i64 %riv.0, -1
