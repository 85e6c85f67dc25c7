; the verifier: a use that its definition does not dominate is an error naming the function and the instruction
; RUN: not enzyme-py opt %s -p 'verify' 2>&1 | filecheck %s

define double @f(double %x, i1 %c) {
entry:
  br i1 %c, label %a, label %b

a:
  %y = fmul double %x, %x
  br label %b

b:
  %z = fadd double %y, %x
  ret double %z
}

; CHECK: enzyme-py opt: error: IR verification failed (1 problem):
; CHECK-NEXT: verify_error.ll:13: in function @f, block %b, instruction `%z = fadd double %y, %x`: %y does not dominate this use
