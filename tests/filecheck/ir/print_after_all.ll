; --print-after-all shows the IR after every step on stderr, each printer's report as its step, and the passes prepare{...} is made of
; RUN: enzyme-py opt %s -p 'prepare{fn=f},print-activity{fn=f,acts=out},reverse{fn=f,acts=out}' --print-after-all --disable-output 2>&1 | filecheck %s

define double @f(double %x) #0 {
entry:
  %x.addr = alloca double, align 8
  store double %x, ptr %x.addr, align 8
  %v = load double, ptr %x.addr, align 8
  %m = fmul double %v, %v
  ret double %m
}

attributes #0 = { noinline nounwind optnone }

; CHECK: ; *** IR after input ***
; CHECK: ; *** IR after posix-memalign ***
; CHECK: ; *** IR after inline-callees ***
; CHECK: ; *** IR after strip-optnone ***
; CHECK: ; *** IR after always-inline ***
; CHECK: ; *** IR after sroa ***
; CHECK: ; *** IR after lcssa ***
; CHECK: ; *** IR after devirtualize ***
; CHECK: ; *** IR after print-activity ***
; CHECK-NEXT: ; activity of @f
; CHECK: ; *** IR after reverse ***
; CHECK: define double @diffe_f(
