; hoist-allocations: a block malloc'd and freed in every iteration of a loop nest is made once in the nest's preheader (its size frozen, a broadcast-like size computation copied there) and freed at the nest's exits; one a loop variable carries to the next iteration takes two blocks in turn; one that may live longer, one stored as a value and one whose size is loaded in the loop stay where they are
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

; A block that may stay in the carried variable longer than one iteration (kept or replaced
; by the new one) stays where it is: two blocks in turn would not do.
; CHECK-LABEL: define void @kept(
; CHECK: loop:
; CHECK: %buf = call ptr @malloc(i64 %n)
; CHECK: call void @free(ptr %drop)
define void @kept(i64 %n, i64 %steps, i1 %c) {
entry:
  br label %loop

loop:
  %t = phi i64 [ 0, %entry ], [ %t.next, %loop ]
  %old = phi ptr [ null, %entry ], [ %keep, %loop ]
  %buf = call ptr @malloc(i64 %n)
  %keep = select i1 %c, ptr %old, ptr %buf
  %drop = select i1 %c, ptr %buf, ptr %old
  call void @free(ptr %drop)
  %t.next = add i64 %t, 1
  %done = icmp eq i64 %t.next, %steps
  br i1 %done, label %exit, label %loop

exit:
  %last = phi ptr [ %keep, %loop ]
  call void @free(ptr %last)
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

; A block a loop variable carries to the next iteration (x = f(x)): two blocks made before the
; loop and used in turn; frees of the carried pointer skip them; both are freed before the return
; (a phi gives null there along the path that skips the loop).
; CHECK-LABEL: define double @carried_state(
; CHECK: pre:
; CHECK: %new.a = call ptr @malloc(i64 %[[SZ:[0-9]+]])
; CHECK-NEXT: %new.b = call ptr @malloc(i64 %[[SZ]])
; CHECK: loop:
; CHECK-NOT: call ptr @malloc
; CHECK: %[[IS:[0-9]+]] = icmp eq ptr %old, %new.a
; CHECK-NEXT: %[[FR:[0-9]+]] = freeze i1 %[[IS]]
; CHECK-NEXT: %new = select i1 %[[FR]], ptr %new.b, ptr %new.a
; CHECK: store double %v2, ptr %new
; CHECK: select i1 %{{[0-9]+}}, ptr null, ptr %old
; CHECK: done:
; CHECK: %[[B:[0-9]+]] = phi ptr [ null, %entry ], [ %new.b, %after ]
; CHECK: %[[A:[0-9]+]] = phi ptr [ null, %entry ], [ %new.a, %after ]
; CHECK: call void @free(ptr %[[A]])
; CHECK-NEXT: call void @free(ptr %[[B]])
; CHECK-NEXT: ret double %r
define double @carried_state(ptr %x0, i64 %n, i64 %steps, i1 %skip) {
entry:
  br i1 %skip, label %done, label %pre

pre:
  br label %loop

loop:
  %t = phi i64 [ 0, %pre ], [ %t.next, %loop ]
  %old = phi ptr [ %x0, %pre ], [ %new, %loop ]
  %new = call ptr @malloc(i64 %n)
  %v = load double, ptr %old
  %v2 = fmul double %v, 2.0
  store double %v2, ptr %new
  call void @free(ptr %old)
  %t.next = add i64 %t, 1
  %stop = icmp eq i64 %t.next, %steps
  br i1 %stop, label %after, label %loop

after:
  %last = phi ptr [ %new, %loop ]
  %y = load double, ptr %last
  call void @free(ptr %last)
  br label %done

done:
  %r = phi double [ 0.0, %entry ], [ %y, %after ]
  ret double %r
}
