; reverse mode of an in-place loop that reads each element one trip before it overwrites it (u[i] = u[i + 1]^2): the read's adjoint is stored when the reversed trip ends, the store's adjoint only reads, and the element the last reversed trip's store wrote is zeroed when the reversed loop ends (ad/overwritten_loads.py)
; RUN: enzyme-py opt %s -p 'reverse{fn=f,acts=dup,const}' | filecheck %s

define void @f(ptr noalias %u, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add nuw nsw i64 %i, 1
  %ahead = getelementptr inbounds double, ptr %u, i64 %i.next
  %x = load double, ptr %ahead, align 8
  %y = fmul double %x, %x
  %here = getelementptr inbounds double, ptr %u, i64 %i
  store double %y, ptr %here, align 8
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret void
}

; CHECK-LABEL: define void @diffe_f(ptr %u, ptr %u.shadow, i64 %n)
; COM: the store's adjoint reads du[i] and keeps its address; it does not zero it
; CHECK: rev.loop:
; CHECK-NEXT: [[RIV:%[0-9]+]] = load i64, ptr %riv, align 8
; CHECK-NEXT: %here.shadow.1 = getelementptr inbounds double, ptr %u.shadow, i64 [[RIV]]
; CHECK-NEXT: store ptr %here.shadow.1, ptr %overwritten.at
; CHECK-NEXT: [[D:%[0-9]+]] = load double, ptr %here.shadow.1, align 8
; CHECK-NOT: store double 0.000000e+00, ptr %here.shadow.1
; COM: at the trip's end the read's adjoint is stored into du[i + 1], added to what it held
; COM: only in the first reversed trip
; CHECK: %ahead.shadow.1 = getelementptr inbounds double, ptr %u.shadow, i64 %i.next.1
; CHECK-NEXT: [[OLD:%[0-9]+]] = load double, ptr %ahead.shadow.1, align 8
; CHECK: %riv.entered = icmp eq i64 %{{[0-9]+}}, %{{[0-9]+}}
; CHECK-NEXT: [[HELD:%[0-9]+]] = select i1 %riv.entered, double [[OLD]], double 0.000000e+00
; CHECK-NEXT: [[SUM:%[0-9]+]] = fadd reassoc double [[HELD]], %x.d.1
; CHECK-NEXT: store double [[SUM]], ptr %ahead.shadow.1, align 8
; CHECK: br i1 %riv.first, label %rev.loop.overwritten, label %rev.loop.to.loop
; COM: entering the reversed loop records its first trip
; CHECK: rev.exit.to.loop:
; CHECK-NEXT: store i64 %iv.last, ptr %riv, align 8
; CHECK-NEXT: [[START:%[0-9]+]] = load i64, ptr %riv, align 8
; CHECK-NEXT: store i64 [[START]], ptr %riv.start, align 8
; COM: leaving it zeroes du[0], which no read's adjoint stores
; CHECK: rev.loop.overwritten:
; CHECK-NEXT: [[AT:%[0-9]+]] = load ptr, ptr %overwritten.at
; CHECK-NEXT: store double 0.000000e+00, ptr [[AT]], align 8
; CHECK-NEXT: br label %rev.entry
