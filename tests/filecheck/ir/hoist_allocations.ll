; hoist-allocations: a block malloc'd and freed in every iteration of a loop nest is made once in the nest's preheader (its size frozen, a broadcast-like size computation copied there) and freed at the nest's exits; a block carried to the next iteration (a header phi) or stored as a value stays where it is
; RUN: enzyme-py opt %s -p 'hoist-allocations' | filecheck %s

declare ptr @malloc(i64)
declare void @free(ptr)

; CHECK-LABEL: define double @per_step(
; CHECK: entry:
; CHECK-NEXT: %[[N1:[0-9]+]] = icmp eq i64 %n, 1
; CHECK-NEXT: %[[EXT:[0-9]+]] = select i1 %[[N1]], i64 %m, i64 %n
; CHECK-NEXT: %[[BYTES:[0-9]+]] = shl i64 %[[EXT]], 3
; CHECK-NEXT: %[[SIZE:[0-9]+]] = freeze i64 %[[BYTES]]
; CHECK-NEXT: %buf = call ptr @malloc(i64 %[[SIZE]])
; CHECK-NEXT: br label %loop
; CHECK: loop:
; CHECK-NOT: call ptr @malloc
; CHECK-NOT: call void @free
; CHECK: br i1 %done, label %exit, label %loop
; CHECK: exit:
; CHECK-NEXT: call void @free(ptr %buf)
; CHECK-NEXT: ret double %acc.next
define double @per_step(ptr %x, i64 %n, i64 %m, i64 %steps) {
entry:
  br label %loop

loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %isone = icmp eq i64 %n, 1
  %extent = select i1 %isone, i64 %m, i64 %n
  %bytes = shl i64 %extent, 3
  %buf = call ptr @malloc(i64 %bytes)
  %at = getelementptr double, ptr %buf, i64 %t
  %v = load double, ptr %x
  store double %v, ptr %buf
  %w = load double, ptr %buf
  %acc.next = fadd double %acc, %w
  call void @free(ptr %buf)
  %t.next = add i64 %t, 1
  %done = icmp eq i64 %t.next, %steps
  br i1 %done, label %exit, label %loop

exit:
  ret double %acc.next
}

; CHECK-LABEL: define void @carried(
; CHECK: loop:
; CHECK: %buf = call ptr @malloc(i64 %n)
; CHECK: call void @free(ptr %old)
define void @carried(i64 %n, i64 %steps) {
entry:
  br label %loop

loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]
  %old = phi ptr [ null, %entry ], [ %buf, %loop ]
  %buf = call ptr @malloc(i64 %n)
  call void @free(ptr %old)
  %t.next = add i64 %t, 1
  %done = icmp eq i64 %t.next, %steps
  br i1 %done, label %exit, label %loop

exit:
  call void @free(ptr %buf)
  ret void
}

; CHECK-LABEL: define void @escapes(
; CHECK: loop:
; CHECK: %buf = call ptr @malloc(i64 %n)
; CHECK: call void @free(ptr %buf)
define void @escapes(ptr %slot, i64 %n, i64 %steps) {
entry:
  br label %loop

loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]
  %buf = call ptr @malloc(i64 %n)
  store ptr %buf, ptr %slot
  call void @free(ptr %buf)
  %t.next = add i64 %t, 1
  %done = icmp eq i64 %t.next, %steps
  br i1 %done, label %exit, label %loop

exit:
  ret void
}

; CHECK-LABEL: define void @loaded_size(
; CHECK: loop:
; CHECK: %buf = call ptr @malloc(i64 %n)
define void @loaded_size(ptr %np, i64 %steps) {
entry:
  br label %loop

loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]
  %n = load i64, ptr %np
  %buf = call ptr @malloc(i64 %n)
  call void @free(ptr %buf)
  %t.next = add i64 %t, 1
  %done = icmp eq i64 %t.next, %steps
  br i1 %done, label %exit, label %loop

exit:
  ret void
}
