; print-loops after the canonicalization: a while loop of clang -O0 shape (memory-carried counter) becomes a loop with a phi induction variable
; RUN: enzyme-py opt %s -p 'prepare{fn=f},print-loops{fn=f}' --disable-output | filecheck %s

define void @f(ptr %p, i32 %n) {
entry:
  %i = alloca i32, align 4
  store i32 0, ptr %i, align 4
  br label %cond

cond:
  %iv = load i32, ptr %i, align 4
  %c = icmp slt i32 %iv, %n
  br i1 %c, label %body, label %end

body:
  %idx = sext i32 %iv to i64
  %q = getelementptr double, ptr %p, i64 %idx
  store double 1.000000e+00, ptr %q, align 8
  %next = add nsw i32 %iv, 1
  store i32 %next, ptr %i, align 4
  br label %cond

end:
  ret void
}

; CHECK: loops of @f:
; CHECK-NEXT: loop at %{{.*}} depth 1
; CHECK-NEXT: induction variable %{{.*}}: start 0, step 1
; CHECK-NEXT: trip count:
