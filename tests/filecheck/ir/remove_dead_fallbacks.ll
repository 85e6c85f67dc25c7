; remove-dead-fallbacks{fn=f}: the indirect fallback of a guarded call is proven dead (the only function ever stored where the pointer is loaded from is @twice) and becomes unreachable; the guarded call of the other slot, which an opaque call may overwrite, stays
; RUN: enzyme-py opt %s -p 'remove-dead-fallbacks{fn=f}' | filecheck %s

define internal double @twice(double %a) {
entry:
  %m = fmul double %a, 2.000000e+00
  ret double %m
}

declare void @opaque(ptr)

define double @f(double %x) {
entry:
  %slot = alloca ptr, align 8
  %other = alloca ptr, align 8
  store ptr @twice, ptr %slot, align 8
  store ptr @twice, ptr %other, align 8
  call void @opaque(ptr %other)
  %fp = load ptr, ptr %slot, align 8
  %is = icmp eq ptr %fp, @twice
  br i1 %is, label %direct, label %indirect

direct:
  %a = call double @twice(double %x)
  br label %join

indirect:
  %b = call double %fp(double %x)
  br label %join

join:
  %r = phi double [ %a, %direct ], [ %b, %indirect ]
  %gp = load ptr, ptr %other, align 8
  %is2 = icmp eq ptr %gp, @twice
  br i1 %is2, label %direct2, label %indirect2

direct2:
  %c = call double @twice(double %r)
  br label %join2

indirect2:
  %d = call double %gp(double %r)
  br label %join2

join2:
  %s = phi double [ %c, %direct2 ], [ %d, %indirect2 ]
  ret double %s
}

; CHECK-LABEL: define double @f(double %x)
; CHECK: indirect:
; CHECK-NEXT: unreachable
; CHECK: join:
; CHECK-NEXT: %r = phi double [ %a, %direct ]
; CHECK: indirect2:
; CHECK-NEXT: %d = call double %gp(double %r)
; CHECK: %s = phi double [ %c, %direct2 ], [ %d, %indirect2 ]
