; devirtualize{fn=f}: an indirect call whose candidate targets are known (the functions whose address reaches the pointer) is guarded by a test per candidate; the original call stays as the fallback
; RUN: enzyme-py opt %s -p 'devirtualize{fn=f,rounds=1,inline=0}' | filecheck %s

@table = internal constant [1 x ptr] [ptr @twice]

define internal double @twice(double %a) {
entry:
  %m = fmul double %a, 2.000000e+00
  ret double %m
}

define double @f(double %x) {
entry:
  %slot = alloca ptr, align 8
  store ptr @twice, ptr %slot, align 8
  call void @opaque(ptr %slot)
  %fp = load ptr, ptr %slot, align 8
  %r = call double %fp(double %x)
  ret double %r
}

declare void @opaque(ptr)

; CHECK-LABEL: define double @f(double %x)
; CHECK: %fp = load ptr, ptr %slot, align 8
; CHECK-NEXT: %devirt.is = icmp eq ptr %fp, @twice
; CHECK-NEXT: br i1 %devirt.is, label %devirt.direct0, label %devirt.indirect0
; CHECK: devirt.direct0:
; CHECK-NEXT: [[D:%[0-9]+]] = call double @twice(double %x)
; COM: the opaque call may have changed the slot: the fallback is not proven dead and stays
; CHECK: devirt.indirect0:
; CHECK-NEXT: [[I:%[0-9]+]] = call double %fp(double %x)
; CHECK: %r = phi double [ [[D]], %devirt.direct0 ], [ [[I]], %devirt.indirect0 ]
