; reverse mode, a while loop's header phi is cached after its tape array grows (the store must not write past the old capacity)
; RUN: enzyme-py opt %s -p 'prepare{fn=f},reverse{fn=f,acts=out,out,ret=active},dupnoneed{fn=f,acts=out,out,ret=active}' | filecheck %s

declare double @llvm.sin.f64(double)

define double @f(double %x, double %c) {
entry:
  br label %head
head:
  %y = phi double [ %x, %entry ], [ %y.next, %head ]
  %s = call double @llvm.sin.f64(double %y)
  %sc = fmul double %s, %c
  %half = fmul double %y, 0.5
  %y.next = fadd double %half, %sc
  %big = fcmp ogt double %y.next, 1.0
  br i1 %big, label %head, label %exit
exit:
  ret double %y.next
}

; CHECK-LABEL: define {{.*}} @diffe_f(
; CHECK: head:
; CHECK: call i64 @enzyme_py.tape_grow(ptr %y.cache.ptr
; CHECK: store double %y, ptr
; CHECK: %s = call double @llvm.sin.f64(double %y)
