; strip-optnone: clang -O0 marks every function optnone, which LLVM's passes respect; the pass removes it (noinline stays)
; RUN: enzyme-py opt %s -p 'strip-optnone' | filecheck %s

define double @f(double %x) #0 {
entry:
  %x.addr = alloca double, align 8
  store double %x, ptr %x.addr, align 8
  %v = load double, ptr %x.addr, align 8
  %m = fmul double %v, %v
  ret double %m
}

attributes #0 = { noinline nounwind optnone }

; CHECK: attributes #0 = { noinline nounwind }
