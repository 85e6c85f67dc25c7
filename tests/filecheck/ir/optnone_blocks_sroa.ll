; sroa leaves an optnone function alone, as LLVM does: the stack slot stays until strip-optnone
; RUN: enzyme-py opt %s -p 'sroa' | filecheck %s

define double @f(double %x) #0 {
entry:
  %x.addr = alloca double, align 8
  store double %x, ptr %x.addr, align 8
  %v = load double, ptr %x.addr, align 8
  %m = fmul double %v, %v
  ret double %m
}

attributes #0 = { noinline nounwind optnone }

; CHECK: %x.addr = alloca double
