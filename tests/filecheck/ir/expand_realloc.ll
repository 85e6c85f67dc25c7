; expand-realloc: realloc(old, n) becomes malloc(n), a copy of min(old size, n) bytes, free(old); the old size is followed back to its malloc
; RUN: enzyme-py opt %s -p 'expand-realloc' | filecheck %s

declare ptr @malloc(i64)
declare ptr @realloc(ptr, i64)

define ptr @f(i64 %n) {
entry:
  %a = call ptr @malloc(i64 8)
  %b = call ptr @realloc(ptr %a, i64 %n)
  ret ptr %b
}

; CHECK-NOT: call ptr @realloc
; CHECK: %b = call ptr @malloc(i64 %n)
; CHECK-NEXT: [[LT:%[0-9]+]] = icmp ult i64 8, %n
; CHECK-NEXT: [[LEN:%[0-9]+]] = select i1 [[LT]], i64 8, i64 %n
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr %a, i64 [[LEN]], i1 false)
; CHECK-NEXT: call void @free(ptr %a)
; CHECK-NEXT: ret ptr %b
