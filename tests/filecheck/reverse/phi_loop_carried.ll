; reverse mode of a loop-carried phi with a counted loop: x^n by repeated multiplication; the reverse loop reads the cached partial products
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=out,const}' | filecheck %s

define double @f(double %x, i64 %n) {
entry:
  br label %head

head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %head ]
  %p = phi double [ 1.000000e+00, %entry ], [ %p.next, %head ]
  %p.next = fmul double %p, %x
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %head, label %exit

exit:
  %r = phi double [ %p.next, %head ]
  ret double %r
}

; CHECK-LABEL: define double @diffe_f(double %x, i64 %n, double %dret)
; COM: the trip count is known at entry: one tape array for the cached products
; CHECK: entry:
; CHECK: %tc = add i64 %{{[0-9]+}}, 1
; CHECK: %tape = call ptr @enzyme_py.tape_alloc(i64 %{{[0-9]+}})
; CHECK: head:
; CHECK-NEXT: %iv = phi i64 [ 0, %entry ], [ %iv.next, %head ]
; CHECK-NEXT: %i = phi i64 [ 0, %entry ], [ %i.next, %head ]
; CHECK-NEXT: %p = phi double [ 1.000000e+00, %entry ], [ %p.next, %head ]
; CHECK-NEXT: [[SLOT:%[0-9]+]] = getelementptr inbounds double, ptr %tape, i64 %iv
; CHECK-NEXT: store double %p, ptr [[SLOT]], align 8
; CHECK-NEXT: %p.next = fmul double %p, %x
; COM: one reverse iteration: p's adjoint is x times p.next's; x's adds p (from the tape)
; CHECK: rev.head:
; CHECK-NEXT: %p.next.d.1 = load double, ptr %p.next.d
; CHECK-NEXT: store double -0.000000e+00, ptr %p.next.d
; CHECK-NEXT: fmul double %p.next.d.1, %x
; CHECK: [[RIV:%[0-9]+]] = load i64, ptr %riv, align 8
; CHECK-NEXT: [[AT:%[0-9]+]] = getelementptr inbounds double, ptr %tape, i64 [[RIV]]
; CHECK-NEXT: %p.1 = load double, ptr [[AT]], align 8
; CHECK-NEXT: fmul double %p.next.d.1, %p.1
; CHECK: %riv.first = icmp eq i64 %riv.1, 0
; CHECK-NEXT: br i1 %riv.first, label %rev.head.to.entry, label %rev.head.to.head
; CHECK: rev.entry:
; CHECK-NEXT: call void @free(ptr %tape)
; CHECK: rev.exit.to.head:
; CHECK: store i64 %iv.last, ptr %riv, align 8
; CHECK: rev.head.to.head:
; CHECK: [[NEXT:%[0-9]+]] = sub i64 %riv.1, 1
; CHECK-NEXT: store i64 [[NEXT]], ptr %riv, align 8
