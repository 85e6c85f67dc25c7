; posix-memalign: posix_memalign(&p, align, n) becomes p = aligned_alloc(align, n rounded up to align), stored into the slot, with ENOMEM (12) or 0 as the result
; RUN: enzyme-py opt %s -p 'posix-memalign' | filecheck %s

declare i32 @posix_memalign(ptr, i64, i64)

define ptr @f(i64 %n) {
entry:
  %slot = alloca ptr, align 8
  %r = call i32 @posix_memalign(ptr %slot, i64 64, i64 %n)
  %p = load ptr, ptr %slot, align 8
  ret ptr %p
}

; CHECK-NOT: call i32 @posix_memalign
; CHECK: %memalign = call ptr @aligned_alloc(i64 64, i64 %{{[0-9]+}})
; CHECK-NEXT: store ptr %memalign, ptr %slot, align 8
; CHECK: select i1 %{{[0-9]+}}, i32 12, i32 0
; CHECK: declare ptr @aligned_alloc(i64, i64)
