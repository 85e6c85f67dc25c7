; reverse mode of a call that stays a call (prepare{fn=f,inline=0}): the callee gets an augmented forward function and a reverse function, called from the gradient's two sweeps
; RUN: enzyme-py opt %s -p 'prepare{fn=f,inline=0},reverse{fn=f,acts=out},sroa,instcombine,simplifycfg' | filecheck %s

define double @sq(double %a) {
entry:
  %m = fmul double %a, %a
  ret double %m
}

define double @f(double %x) {
entry:
  %s = call double @sq(double %x)
  %r = fmul double %s, %x
  ret double %r
}

; CHECK-LABEL: define internal double @augmented_sq(double %a, ptr %frees, ptr %tape.out)
; CHECK-NEXT: alloca:
; CHECK-NEXT: %m = fmul double %a, %a
; COM: nothing of sq's forward sweep is needed later: the tape is empty
; CHECK-NEXT: store ptr null, ptr %tape.out, align 8
; CHECK-NEXT: ret double %m
; CHECK-LABEL: define internal double @diffe_sq(double %a, double %dret, ptr %tape)
; CHECK: [[A:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[B:%[0-9]+]] = fmul double %dret, %a
; CHECK-NEXT: [[S:%[0-9]+]] = fadd reassoc double [[A]], [[B]]
; CHECK-NEXT: ret double [[S]]
; CHECK-LABEL: define double @diffe_f(double %x, double %dret)
; CHECK: %s = call double @augmented_sq(double %x, ptr nonnull %frees, ptr nonnull %sq.tape.slot)
; CHECK-NEXT: %sq.tape = load ptr, ptr %sq.tape.slot
; CHECK-NEXT: [[DS:%[0-9]+]] = fmul double %dret, %x
; CHECK-NEXT: [[DX1:%[0-9]+]] = call double @diffe_sq(double %x, double [[DS]], ptr %sq.tape)
; CHECK-NEXT: [[DX2:%[0-9]+]] = fmul double %dret, %s
; CHECK-NEXT: [[DX:%[0-9]+]] = fadd reassoc double [[DX2]], [[DX1]]
; CHECK: call void @enzyme_py.free_deferred(
; CHECK-NEXT: ret double [[DX]]
