; reverse mode of a loop: the trip count is known at loop entry, so the tape is one allocation in the preheader; the reverse loop counts down
; RUN: enzyme-py opt %s -p 'prepare{fn=prod},reverse{fn=prod,acts=dup,const,ret=active},dupnoneed{fn=prod,acts=dup,const,ret=active}' | filecheck %s

define double @prod(ptr %x, i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i.next, %body ]
  %p = phi double [ 1.0, %entry ], [ %p.next, %body ]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %body, label %exit
body:
  %px = getelementptr double, ptr %x, i64 %i
  %v = load double, ptr %px
  %p.next = fmul double %p, %v
  %i.next = add nsw i64 %i, 1
  br label %head
exit:
  ret double %p
}

; CHECK-LABEL: define void @diffe_prod(ptr %x, ptr %x.shadow, i64 %n, double %dret) {
; CHECK-NEXT: alloca:
; CHECK: %riv = alloca i64
; the trip count is known at loop entry: the tape is allocated once in the preheader
; CHECK: entry:
; CHECK: %tc = add i64
; the loop leaves where its counted test fails: the last iteration is the trip count less one
; CHECK-NEXT: %iv.last = sub i64 %tc, 1
; CHECK: %tape = call ptr @enzyme_py.tape_alloc(i64
; CHECK: head:
; CHECK-NEXT: %iv = phi i64 [ 0, %entry ], [ %iv.next, %body ]
; CHECK: store double %p, ptr
; CHECK: body:
; CHECK: %px.shadow = getelementptr double, ptr %x.shadow, i64 %i
; CHECK: %iv.next = add nuw nsw i64 %iv, 1
; CHECK: exit:
; CHECK-NOT: %iv.last = phi
; CHECK: rev.body:
; CHECK: rev.head:
; CHECK: %riv.first = icmp eq i64 %{{.*}}, 0
; CHECK: rev.entry:
; CHECK-NEXT: call void @free(ptr %tape)
; CHECK-NEXT: br label %rev.return
; CHECK: rev.return:
; CHECK-NEXT: ret void
; CHECK: rev.exit.to.head:
; CHECK: store i64 %iv.last, ptr %riv
; CHECK: rev.head.to.body:
; CHECK: sub i64 %{{.*}}, 1
; CHECK: br label %rev.body
