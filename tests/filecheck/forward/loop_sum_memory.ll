; forward mode of a loop over an array: sum of squares of x[i], the tangent accumulates 2 x[i] x.shadow[i]
; RUN: enzyme-py opt %s -p 'forward{fn=f,acts=dup,const}' | filecheck %s

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

; CHECK-LABEL: define { double, double } @fwddiffe_f(ptr %x, ptr %x.shadow, i64 %n)
; CHECK-NEXT: entry:
; CHECK-NEXT: br label %head
; CHECK-EMPTY:
; CHECK-NEXT: head:
; CHECK-NEXT: %i = phi i64 [ 0, %entry ], [ %i.next, %head ]
; CHECK-NEXT: %s = phi double [ 0.000000e+00, %entry ], [ %s.next, %head ]
; CHECK-NEXT: %s.t = phi double [ 0.000000e+00, %entry ], [ %s.next.t, %head ]
; CHECK-NEXT: %px = getelementptr inbounds double, ptr %x, i64 %i
; CHECK-NEXT: %px.shadow = getelementptr inbounds double, ptr %x.shadow, i64 %i
; CHECK-NEXT: %v = load double, ptr %px, align 8
; CHECK-NEXT: %v.t = load double, ptr %px.shadow, align 8
; CHECK-NEXT: %sq = fmul double %v, %v
; CHECK-NEXT: [[V0:%[0-9]+]] = fmul double %v.t, %v
; CHECK-NEXT: [[V1:%[0-9]+]] = fmul double %v.t, %v
; CHECK-NEXT: %sq.t = fadd double [[V0]], [[V1]]
; CHECK-NEXT: %s.next = fadd double %s, %sq
; CHECK-NEXT: %s.next.t = fadd double %s.t, %sq.t
; CHECK-NEXT: %i.next = add nuw nsw i64 %i, 1
; CHECK-NEXT: %c = icmp ult i64 %i.next, %n
; CHECK-NEXT: br i1 %c, label %head, label %exit
; CHECK-EMPTY:
; CHECK-NEXT: exit:
; CHECK-NEXT: %r = phi double [ %s.next, %head ]
; CHECK-NEXT: %r.t = phi double [ %s.next.t, %head ]
; CHECK-NEXT: [[V2:%[0-9]+]] = insertvalue { double, double } zeroinitializer, double %r, 0
; CHECK-NEXT: [[V3:%[0-9]+]] = insertvalue { double, double } [[V2]], double %r.t, 1
; CHECK-NEXT: ret { double, double } [[V3]]
; CHECK-NEXT: }
