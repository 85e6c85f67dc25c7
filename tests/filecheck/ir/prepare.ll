; prepare{fn=f}: the whole canonicalization before differentiating, in one name (clang -O0 code: optnone, stack slots, a callee to inline)
; RUN: enzyme-py opt %s -p 'prepare{fn=f}' | filecheck %s

define double @sq(double %x) #0 {
entry:
  %x.addr = alloca double, align 8
  store double %x, ptr %x.addr, align 8
  %v = load double, ptr %x.addr, align 8
  %m = fmul double %v, %v
  ret double %m
}

attributes #0 = { noinline nounwind optnone }

define double @f(double %x) #0 {
entry:
  %r = call double @sq(double %x)
  ret double %r
}

; CHECK-LABEL: define double @f(double %x)
; CHECK-NOT: alloca
; CHECK-NOT: call
; CHECK: fmul double %x, %x
