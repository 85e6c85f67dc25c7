; sroa after strip-optnone: the stack slot of an -O0 function becomes an SSA value
; RUN: enzyme-py opt %s -p 'strip-optnone,sroa' | filecheck %s

define double @f(double %x) #0 {
entry:
  %x.addr = alloca double, align 8
  store double %x, ptr %x.addr, align 8
  %v = load double, ptr %x.addr, align 8
  %m = fmul double %v, %v
  ret double %m
}

attributes #0 = { noinline nounwind optnone }

; CHECK-LABEL: define double @f(double %x)
; CHECK-NOT: alloca
; CHECK: %m = fmul double %x, %x
; CHECK-NEXT: ret double %m
